import * as v from 'valibot';
import {
  type CriminalResult,
  type PepResult,
  RISK_ORDER,
  type RiskLevel,
  type SanctionsResult,
} from '../matcher/types.ts';
import { parseItem } from '../store/table.ts';
import { ROLES, type Role } from '../tenancy/tenants.ts';
import { CHECK_TYPES, type CheckType } from '../watchlists/types.ts';
import { DISPOSITIONS, type DispositionValue } from './request.ts';
import type { Subject } from './subject.ts';

/** Who did something: the user's id and the role they acted in. */
export interface Actor {
  user_id: string;
  role: Role;
}

/**
 * One entry of a screen's disposition history, as stored (append-only, oldest first).
 * An `approved` entry is an admin's sign-off on the decision recorded just before it.
 */
export interface HistoryEntry {
  disposition: DispositionValue;
  note: string | null;
  author: Actor;
  /** `YYYY-MM-DDThh:mm:ssZ`. */
  at: string;
  override: boolean;
  approval_requested: boolean;
}

/** The analyst decision in force (never `approved`: sign-off is stored beside it as `approval`). */
export type DecisionRecord = HistoryEntry;

export interface ApprovalRecord {
  author: Actor;
  at: string;
  note: string | null;
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
  approval?: ApprovalRecord;
  history: HistoryEntry[];
}

/**
 * The disposition in force, as the API shows it. After an admin's sign-off the value is
 * `approved`, the author is the approving admin and `approved_decision` is the decision signed
 * off. `awaiting_approval` is true while a decision flagged with `approval_requested` has no
 * sign-off.
 */
export interface CurrentDisposition extends HistoryEntry {
  awaiting_approval: boolean;
  approved_decision?: DecisionRecord;
}

/** The Screen object of SPEC §2.1, plus the stored workflow fields. */
export interface Screen {
  screen_id: string;
  risk_level: RiskLevel;
  subject: Subject;
  sanctions_result: SanctionsResult | null;
  pep_result: PepResult | null;
  criminal_result: CriminalResult | null;
  screened_at: string;
  /** The check types performed; an excluded type's result is null (DESIGN §4). */
  types: CheckType[];
  created_by: Actor;
  disposition: CurrentDisposition | null;
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
}

/** A history entry as GET /screens/{id}/history shows it, with the sign-off links resolved. */
export interface HistoryView extends HistoryEntry {
  /** On an `approved` entry: the decision it signed off. */
  approves?: { disposition: DispositionValue; author: Actor; at: string };
  /** On a decision an admin signed off: who and when. */
  approved_by?: Actor;
  approved_at?: string;
}

/** `YYYY-MM-DDThh:mm:ssZ` (DESIGN §4: `Z` and no fraction). */
export function isoSeconds(at: Date): string {
  return `${at.toISOString().slice(0, 19)}Z`;
}

export function currentDisposition(
  item: Pick<ScreenItem, 'disposition' | 'approval'>,
): CurrentDisposition | null {
  const decision = item.disposition;
  if (!decision) return null;
  if (item.approval) {
    return {
      disposition: 'approved',
      note: item.approval.note,
      author: item.approval.author,
      at: item.approval.at,
      override: false,
      approval_requested: false,
      awaiting_approval: false,
      approved_decision: decision,
    };
  }
  return { ...decision, awaiting_approval: decision.approval_requested };
}

export function toScreen(item: ScreenItem): Screen {
  return {
    screen_id: item.screen_id,
    risk_level: item.risk_level,
    subject: item.subject,
    sanctions_result: item.sanctions_result ?? null,
    pep_result: item.pep_result ?? null,
    criminal_result: item.criminal_result ?? null,
    screened_at: item.screened_at,
    types: item.types,
    created_by: item.created_by,
    disposition: currentDisposition(item),
  };
}

export function toSummary(item: Pick<ScreenItem, keyof ScreenSummary | 'approval'>): ScreenSummary {
  return {
    screen_id: item.screen_id,
    risk_level: item.risk_level,
    subject: item.subject,
    screened_at: item.screened_at,
    types: item.types,
    created_by: item.created_by,
    disposition: currentDisposition(item),
  };
}

/** Resolves which decision each sign-off approved: the last decision recorded before it. */
export function historyView(history: readonly HistoryEntry[]): HistoryView[] {
  const views: HistoryView[] = history.map((entry) => ({ ...entry }));
  let lastDecision: HistoryView | undefined;
  for (const view of views) {
    if (view.disposition !== 'approved') {
      lastDecision = view;
      continue;
    }
    if (lastDecision) {
      view.approves = {
        disposition: lastDecision.disposition,
        author: lastDecision.author,
        at: lastDecision.at,
      };
      lastDecision.approved_by = view.author;
      lastDecision.approved_at = view.at;
    }
  }
  return views;
}

const objectOf = <T>() => v.custom<T>((value) => typeof value === 'object' && value !== null);
const ActorSchema = v.object({ user_id: v.string(), role: v.picklist(ROLES) });
const HistoryEntrySchema = v.object({
  disposition: v.picklist(DISPOSITIONS),
  note: v.nullable(v.string()),
  author: ActorSchema,
  at: v.string(),
  override: v.boolean(),
  approval_requested: v.boolean(),
});
const SubjectSchema = v.object({
  name: v.string(),
  dob: v.optional(v.string()),
  nationality: v.optional(v.string()),
  location: v.optional(v.string()),
  alias: v.optional(v.string()),
});

/** The fields a screen row shows (the lists read only these). */
const screenSummaryEntries = {
  screen_id: v.string(),
  risk_level: v.picklist(RISK_ORDER),
  subject: SubjectSchema,
  screened_at: v.string(),
  types: v.array(v.picklist(CHECK_TYPES)),
  created_by: ActorSchema,
  disposition: v.optional(HistoryEntrySchema),
  approval: v.optional(v.object({ author: ActorSchema, at: v.string(), note: v.nullable(v.string()) })),
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
  ...screenSummaryEntries,
});

export const ScreenSummaryItemSchema = v.object(screenSummaryEntries);

export function parseScreenItem(item: Record<string, unknown>): ScreenItem {
  return parseItem(ScreenItemSchema, item);
}
