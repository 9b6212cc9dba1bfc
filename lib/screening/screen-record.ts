import * as v from 'valibot';
import { MAX_MATCHES } from '../matcher/results.ts';
import {
  type CriminalResult,
  type PepResult,
  RISK_ORDER,
  type RiskLevel,
  type SanctionsResult,
} from '../matcher/types.ts';
import { parseItem } from '../store/table.ts';
import { ROLES, type Role } from '../tenancy/roles.ts';
import { CHECK_TYPES, type CheckType } from '../watchlists/types.ts';
import { type ScreenReceipt, ScreenReceiptSchema } from './receipt.ts';
import { DISPOSITIONS, type DispositionValue } from './request.ts';
import { type Subject, SubjectSchema } from './subject.ts';

/**
 * Who did something: the user's id and the role they acted in. The service itself acts as
 * `system` (re-screens of registered clients, decisions carried forward from an earlier screen).
 */
export interface Actor {
  user_id: string;
  role: Role | 'system';
}

/**
 * One entry of a screen's disposition history, as stored (append-only, oldest first). An entry's
 * version is its position in the history, from 1. An `approved` entry is an admin's sign-off on
 * the decision of version `approves_version` (older entries without it signed off the decision
 * recorded just before them).
 */
export interface HistoryEntry {
  disposition: HistoryValue;
  note: string | null;
  author: Actor;
  /**
   * The tenant users besides the author who could hold the API key the entry was made with (its
   * lineage: lib/tenancy/key-lineage.ts), recorded when it was made; the four-eyes rule reads it.
   * Absent on entries of the system and on entries made before lineages were recorded.
   */
  author_key_lineage?: string[];
  /** `YYYY-MM-DDThh:mm:ssZ`. */
  at: string;
  override: boolean;
  approval_requested: boolean;
  approves_version?: number;
}

/**
 * What a history entry records: a decision (the dispositions of POST /screens/{id}/dispose), or
 * `not_carried`, written by the system on a re-screen of a client: the decision of an earlier
 * screen was NOT carried forward to this one, and the note says why (it awaits approval, or a
 * listing or the client's data changed in a way that bears on it). A `not_carried` entry is no
 * decision: the screen stays pending.
 */
export const HISTORY_VALUES = [...DISPOSITIONS, 'not_carried'] as const;
export type HistoryValue = (typeof HISTORY_VALUES)[number];

/** The analyst decision in force (never `approved`: sign-off is stored beside it as `approval`). */
export type DecisionRecord = HistoryEntry & { disposition: DispositionValue };

export interface ApprovalRecord {
  author: Actor;
  /** As on a history entry: who besides the approving admin could hold the key they approved with. */
  author_key_lineage?: string[];
  at: string;
  note: string | null;
  /** The history version of the decision signed off: an approval binds to what the admin saw. */
  approves_version?: number;
}

/**
 * The screen item in the table (keys.screen). History and notes live inside it, so every
 * disposition rule is one conditional write and deleting the item removes the notes for good.
 * `disposition` and `approval` are absent (not null) while there is none, so conditions can use
 * attribute_not_exists; `gsi1pk`/`gsi1sk` exist only while the screen is pending; `gsi2pk`/`gsi2sk`
 * index it under its subject hash for the rescreen window.
 */
export interface ScreenItem {
  pk: string;
  sk: string;
  entity: 'screen';
  screen_id: string;
  tenant_id: string;
  subject: Subject;
  subject_hash: string;
  types: CheckType[];
  risk_level: RiskLevel;
  sanctions_result: SanctionsResult | null;
  pep_result: PepResult | null;
  criminal_result: CriminalResult | null;
  screened_at: string;
  created_by: Actor;
  disposition?: DecisionRecord;
  /** History version of `disposition` (its position in `history`, from 1). */
  decision_version?: number;
  approval?: ApprovalRecord;
  history: HistoryEntry[];
  /** Entries in `history`: the next entry's version is this plus one. */
  history_count?: number;
  /** UTF-8 size of the entries in `history`, held under HISTORY_BYTES_LIMIT (lib/screening/dispose.ts). */
  history_bytes?: number;
  /** How the screen came about. */
  origin: ScreenOrigin;
  /** The registered client it belongs to (registration and re-screens). */
  client_id?: string;
  /** On a re-screen: what started its run (`list_change`: a list sync), for the `origin` filter. */
  rescreen_trigger?: RescreenTrigger;
  /**
   * Every list a match of the screen is listed on (a linked listing's too), for the `list` filter
   * of the screen lists; absent on screens stored before it was recorded.
   */
  matched_lists?: string[];
  /** On a re-screen with an open alert: what changed since the client's last settled state. */
  alert?: ScreenAlert;
  /** `alert.since`, kept beside it so the screen lists can show it without reading the alert. */
  alert_since?: string;
  /**
   * On a re-screen: the client's last settled state it was compared with (lib/monitoring/
   * rescreen-review.ts). The next run starts from it while this screen stays undecided, so an
   * undecided change is never folded into "nothing changed".
   */
  baseline_screen_id?: string;
  /**
   * On a decision carried forward by the system: the screen where a person made it. A later
   * settled decision on that screen (an approval or an override) replaces the carried one.
   */
  decision_source_screen_id?: string;
  /** A newer screen of the same client took this one's place in the pending queue. */
  superseded_by?: string;
  /** The queued job the screen was made for (screenSubject's `jobRef`); absent for direct screens. */
  job_ref?: string;
  /** The snapshot and matcher the screen was made with; absent on screens stored before receipts. */
  receipt?: ScreenReceipt;
}

export const SCREEN_ORIGINS = ['api', 'batch', 'client_registration', 'rescreen'] as const;
export type ScreenOrigin = (typeof SCREEN_ORIGINS)[number];

export const RESCREEN_TRIGGERS = ['schedule', 'manual', 'list_change'] as const;
export type RescreenTrigger = (typeof RESCREEN_TRIGGERS)[number];

/** The lists the matches of a screen's checks are listed on, each once, in a stable order. */
export function matchedLists(
  checks: Pick<ScreenItem, 'sanctions_result' | 'pep_result' | 'criminal_result'>,
): string[] {
  const matches = [
    ...(checks.sanctions_result?.matches ?? []),
    ...(checks.pep_result?.matches ?? []),
    ...(checks.criminal_result?.interpol_hits ?? []),
    ...(checks.criminal_result?.fbi_hits ?? []),
  ];
  const lists = new Set<string>();
  for (const match of matches) {
    lists.add(match.list_id);
    for (const listing of match.listings ?? []) lists.add(listing.list_id);
  }
  return [...lists].sort();
}

/** A listed entry a match points at: list and the publisher's entry id. */
export interface MatchRef {
  list_id: string;
  entity_id: string;
  primary_name: string;
  risk_level: RiskLevel;
}

/**
 * An alert on a client: what a re-screen found different, in a way that needs an analyst, from
 * the client's last settled state (`baseline_screen_id`). It stays open, carried from screen to
 * screen, until somebody records a settled decision on a screen that carries it.
 */
export interface ScreenAlert {
  /** The client's screen just before this one. */
  previous_screen_id: string | null;
  /** The last settled state compared with (the registration screen while nothing was settled). */
  baseline_screen_id?: string | null;
  /** When the alert was first raised, and by which screen (an earlier one when carried forward). */
  since?: string | null;
  raised_by_screen_id?: string | null;
  /** Risk of the baseline and of this screen. */
  risk_before: RiskLevel | null;
  risk_after: RiskLevel;
  matches_added: MatchRef[];
  matches_removed: MatchRef[];
  /** Matches on entries whose identifying data (names, dates of birth, nationalities) changed. */
  matches_changed: MatchRef[];
  /** Why the alert is open, in words: each change that bears on the decision, or why none was carried. */
  reasons?: string[];
}

/**
 * The disposition in force, as the API shows it. After an admin's sign-off the value is
 * `approved`, the author is the approving admin and `approved_decision` is the decision signed
 * off. `awaiting_approval` is true while a decision flagged with `approval_requested` has no
 * sign-off.
 */
export interface CurrentDisposition extends Omit<HistoryEntry, 'disposition'> {
  disposition: DispositionValue;
  awaiting_approval: boolean;
  /**
   * History version of the decision in force (the one signed off, once approved). An admin's
   * `approved` request names it as `approves_version`. Null only on screens disposed before
   * versions were recorded.
   */
  decision_version: number | null;
  approved_decision?: DecisionRecord;
}

/** The Screen object (docs/api-decisions.md#the-screen-object), plus the stored workflow fields. */
export interface Screen {
  screen_id: string;
  risk_level: RiskLevel;
  subject: Subject;
  sanctions_result: Counted<SanctionsResult> | null;
  pep_result: Counted<PepResult> | null;
  criminal_result: Counted<CriminalResult> | null;
  screened_at: string;
  /** The check types performed; an excluded type's result is null (docs/api-decisions.md#the-screen-object). */
  types: CheckType[];
  created_by: Actor;
  disposition: CurrentDisposition | null;
  origin: ScreenOrigin;
  client_id: string | null;
  alert: Required<ScreenAlert> | null;
  /** `alert.since`, as the screen rows show it. */
  alert_since: string | null;
  superseded_by: string | null;
  /** The snapshot and matcher the screen was made with; null on screens stored before receipts. */
  receipt: ScreenReceipt | null;
}

/** A row of GET /screens and GET /screens/pending: enough to triage without the match data. */
export interface ScreenSummary {
  screen_id: string;
  risk_level: RiskLevel;
  subject: Subject;
  screened_at: string;
  types: CheckType[];
  created_by: Actor;
  disposition: CurrentDisposition | null;
  /** When the alert this screen carries was first raised; null when it carries none. */
  alert_since: string | null;
  origin: ScreenOrigin;
  client_id: string | null;
}

/** Where an entry points at another: its version, value, author and time. */
export interface EntryLink {
  version: number;
  disposition: HistoryValue;
  author: Actor;
  at: string;
}

/** A history entry as GET /screens/{id}/history shows it, with the sign-off links resolved. */
export interface HistoryView extends HistoryEntry {
  /** Position in the history, from 1. */
  version: number;
  /** On an `approved` entry: the decision it signed off. */
  approves?: EntryLink;
  /**
   * On an `approved` entry whose decision a later decision replaced: that decision. The sign-off
   * no longer stands; it approved what came before.
   */
  superseded_by?: EntryLink;
  /** On a decision an admin signed off: who and when. */
  approved_by?: Actor;
  approved_at?: string;
  /** On a decision that replaced an approved one: the sign-off it withdrew. */
  withdraws_approval?: EntryLink;
}

/** The size an entry counts against HISTORY_BYTES_LIMIT (lib/screening/dispose.ts): its JSON, an upper bound of DynamoDB's. */
export function historyEntryBytes(entry: HistoryEntry): number {
  return Buffer.byteLength(JSON.stringify(entry), 'utf8');
}

export function currentDisposition(
  item: Pick<ScreenItem, 'disposition' | 'approval' | 'decision_version'>,
): CurrentDisposition | null {
  const decision = item.disposition;
  if (!decision) return null;
  const decision_version = item.decision_version ?? null;
  if (item.approval) {
    return {
      disposition: 'approved',
      note: item.approval.note,
      author: item.approval.author,
      ...(item.approval.author_key_lineage ? { author_key_lineage: item.approval.author_key_lineage } : {}),
      at: item.approval.at,
      override: false,
      approval_requested: false,
      awaiting_approval: false,
      decision_version,
      approved_decision: decision,
    };
  }
  return { ...decision, awaiting_approval: decision.approval_requested, decision_version };
}

export function toScreen(item: ScreenItem): Screen {
  return {
    screen_id: item.screen_id,
    risk_level: item.risk_level,
    subject: item.subject,
    sanctions_result: counted(item.sanctions_result, item.sanctions_result?.matches.length),
    pep_result: counted(item.pep_result, item.pep_result?.matches.length),
    criminal_result: counted(
      item.criminal_result,
      (item.criminal_result?.interpol_hits.length ?? 0) + (item.criminal_result?.fbi_hits.length ?? 0),
    ),
    screened_at: item.screened_at,
    types: item.types,
    created_by: item.created_by,
    disposition: currentDisposition(item),
    origin: item.origin,
    client_id: item.client_id ?? null,
    alert: item.alert ? alertView(item.alert) : null,
    alert_since: item.alert_since ?? null,
    superseded_by: item.superseded_by ?? null,
    receipt: item.receipt ?? null,
  };
}

/** A check's result with its match count: `null` where a result stored before counts cannot tell. */
type Counted<T> = Omit<T, 'total' | 'truncated'> & { total: number | null; truncated: boolean | null };

/**
 * The result with `total` and `truncated` (lib/matcher/types.ts MatchCount). A result stored before
 * they were recorded: fewer matches than the cut were not cut; as many may have been (null).
 */
function counted<T extends { total?: number; truncated?: boolean }>(
  result: T | null | undefined,
  shown = 0,
): Counted<T> | null {
  if (!result) return null;
  if (result.total !== undefined && result.truncated !== undefined)
    return { ...result, total: result.total, truncated: result.truncated };
  const known = shown < MAX_MATCHES;
  return { ...result, total: known ? shown : null, truncated: known ? false : null };
}

/** The alert as the API shows it (alerts stored before they were carried forward lack the newer fields). */
export function alertView(alert: ScreenAlert): Required<ScreenAlert> {
  return {
    previous_screen_id: alert.previous_screen_id,
    baseline_screen_id: alert.baseline_screen_id ?? alert.previous_screen_id,
    since: alert.since ?? null,
    raised_by_screen_id: alert.raised_by_screen_id ?? null,
    risk_before: alert.risk_before,
    risk_after: alert.risk_after,
    matches_added: alert.matches_added,
    matches_removed: alert.matches_removed,
    matches_changed: alert.matches_changed,
    reasons: alert.reasons ?? [],
  };
}

export function toSummary(
  item: Pick<
    ScreenItem,
    Exclude<keyof ScreenSummary, 'alert_since' | 'client_id'> | 'approval' | 'decision_version'
  > & {
    alert_since?: string;
    client_id?: string;
  },
): ScreenSummary {
  return {
    screen_id: item.screen_id,
    risk_level: item.risk_level,
    subject: item.subject,
    screened_at: item.screened_at,
    types: item.types,
    created_by: item.created_by,
    disposition: currentDisposition(item),
    alert_since: item.alert_since ?? null,
    origin: item.origin,
    client_id: item.client_id ?? null,
  };
}

const link = (view: HistoryView): EntryLink => ({
  version: view.version,
  disposition: view.disposition,
  author: view.author,
  at: view.at,
});

/**
 * Resolves the sign-off links: which decision each approval signed off (`approves_version`, or
 * for entries written before it existed the decision just before), and where a later decision
 * replaced an approved one, that the approval no longer stands (`superseded_by` on the approval,
 * `withdraws_approval` on the replacing decision).
 */
export function historyView(history: readonly HistoryEntry[]): HistoryView[] {
  const views: HistoryView[] = history.map((entry, i) => ({ ...entry, version: i + 1 }));
  let lastDecision: HistoryView | undefined;
  let standingApproval: HistoryView | undefined;
  for (const view of views) {
    // A system note that a decision was not carried forward decides nothing.
    if (view.disposition === 'not_carried') continue;
    if (view.disposition !== 'approved') {
      if (standingApproval) {
        view.withdraws_approval = link(standingApproval);
        standingApproval.superseded_by = link(view);
        standingApproval = undefined;
      }
      lastDecision = view;
      continue;
    }
    const approved = view.approves_version ? views[view.approves_version - 1] : lastDecision;
    if (approved) {
      view.approves = link(approved);
      approved.approved_by = view.author;
      approved.approved_at = view.at;
      standingApproval = view;
    }
  }
  return views;
}

const objectOf = <T>() => v.custom<T>((value) => typeof value === 'object' && value !== null);
export const ActorSchema = v.object({ user_id: v.string(), role: v.picklist([...ROLES, 'system']) });
export const HistoryEntrySchema = v.object({
  disposition: v.picklist(HISTORY_VALUES),
  note: v.nullable(v.string()),
  author: ActorSchema,
  author_key_lineage: v.optional(v.array(v.string())),
  at: v.string(),
  override: v.boolean(),
  approval_requested: v.boolean(),
  approves_version: v.optional(v.number()),
});
export const DecisionRecordSchema = v.object({
  ...HistoryEntrySchema.entries,
  disposition: v.picklist(DISPOSITIONS),
});

/** The fields a screen row shows (the lists read only these). */
const screenSummaryEntries = {
  screen_id: v.string(),
  risk_level: v.picklist(RISK_ORDER),
  subject: SubjectSchema,
  screened_at: v.string(),
  types: v.array(v.picklist(CHECK_TYPES)),
  created_by: ActorSchema,
  disposition: v.optional(DecisionRecordSchema),
  decision_version: v.optional(v.number()),
  approval: v.optional(
    v.object({
      author: ActorSchema,
      author_key_lineage: v.optional(v.array(v.string())),
      at: v.string(),
      note: v.nullable(v.string()),
      approves_version: v.optional(v.number()),
    }),
  ),
  alert_since: v.optional(v.string()),
  // Screens stored before origins were recorded came through POST /screen or a batch.
  origin: v.optional(v.picklist(SCREEN_ORIGINS), 'api'),
  client_id: v.optional(v.string()),
};

/** A screen item as stored: parsed on the way out of the table, never cast. */
export const ScreenItemSchema = v.object({
  pk: v.string(),
  sk: v.string(),
  entity: v.literal('screen'),
  tenant_id: v.string(),
  subject_hash: v.string(),
  sanctions_result: v.nullish(objectOf<SanctionsResult>(), null),
  pep_result: v.nullish(objectOf<PepResult>(), null),
  criminal_result: v.nullish(objectOf<CriminalResult>(), null),
  history: v.array(HistoryEntrySchema),
  history_count: v.optional(v.number()),
  history_bytes: v.optional(v.number()),
  alert: v.optional(objectOf<ScreenAlert>()),
  baseline_screen_id: v.optional(v.string()),
  decision_source_screen_id: v.optional(v.string()),
  superseded_by: v.optional(v.string()),
  job_ref: v.optional(v.string()),
  rescreen_trigger: v.optional(v.picklist(RESCREEN_TRIGGERS)),
  matched_lists: v.optional(v.array(v.string())),
  receipt: v.optional(ScreenReceiptSchema),
  ...screenSummaryEntries,
});

export const ScreenSummaryItemSchema = v.object(screenSummaryEntries);

export function parseScreenItem(item: Record<string, unknown>): ScreenItem {
  return parseItem(ScreenItemSchema, item);
}
