import { MAX_MATCHES } from '../matcher/results.ts';
import type { CriminalResult, PepResult, RiskLevel, SanctionsResult } from '../matcher/types.ts';
import type { CheckType } from '../watchlists/types.ts';
import { listsStaleAt, type StaleList } from './lists-stale.ts';
import { narrativeOfCut } from './match-narrative.ts';
import type { ScreenReceipt } from './receipt.ts';
import type { DispositionValue } from './request.ts';
import type { ScreenOrigin } from './screen-origin.ts';
import type {
  Actor,
  DecisionRecord,
  HistoryEntry,
  HistoryValue,
  ScreenAlert,
  ScreenItem,
  ScreenSummaryItem,
} from './screen-table.ts';
import type { Subject } from './subject.ts';

/**
 * The screen as the API shows it (docs/api-decisions.md#the-screen-object), its list rows and its
 * history with the sign-off links, made from the screen item (lib/screening/screen-table.ts, which
 * declares the stored shape once).
 */

// The stored shapes, declared in screen-table.ts (and screen-origin.ts), for the modules that
// name them from here.
export {
  RESCREEN_TRIGGERS,
  type RescreenTrigger,
  SCREEN_ORIGINS,
  type ScreenOrigin,
} from './screen-origin.ts';
export {
  type Actor,
  ActorSchema,
  type ApprovalRecord,
  type CarriedFrom,
  CarriedFromSchema,
  type DecisionRecord,
  HISTORY_VALUES,
  type HistoryEntry,
  HistoryEntrySchema,
  type HistoryValue,
  historyEntryBytes,
  type MatchRef,
  parseScreenItem,
  type ScreenAlert,
  type ScreenItem,
} from './screen-table.ts';

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
  /** The lists it used that were stale when it was made (lists-stale.ts); absent without a receipt. */
  lists_stale?: StaleList[];
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
    ...(item.receipt ? { lists_stale: listsStaleAt(item.receipt, item.types, item.screened_at) } : {}),
  };
}

/** A check's result with its match count: `null` where a result stored before counts cannot tell. */
type Counted<T> = Omit<T, 'total' | 'truncated'> & { total: number | null; truncated: boolean | null };

/**
 * The result with `total` and `truncated` (lib/matcher/types.ts MatchCount). A result stored before
 * they were recorded: fewer matches than the cut were not cut; as many may have been (null).
 */
function counted<T extends { total?: number; truncated?: boolean; narrative: string }>(
  result: T | null | undefined,
  shown = 0,
): Counted<T> | null {
  if (!result) return null;
  if (result.total !== undefined && result.truncated !== undefined)
    return {
      ...result,
      narrative: narrativeOfCut(result.narrative, shown, result.total, result.truncated),
      total: result.total,
      truncated: result.truncated,
    };
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

export function toSummary(item: ScreenSummaryItem): ScreenSummary {
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
