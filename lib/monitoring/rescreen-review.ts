import { type BaselineComparison, compareWithBaseline, listingName } from '../screening/change-detection.ts';
import {
  type CarriedFrom,
  type DecisionRecord,
  type HistoryEntry,
  historyEntryBytes,
  type ScreenAlert,
  type ScreenItem,
} from '../screening/screen-record.ts';
import { indexAttributes } from '../store/schema.ts';
import { SYSTEM_ACTOR } from './client-record.ts';

/**
 * What a re-screen of a monitored client means for its alert and for the decision carried
 * forward (README, "Alert on change only"). Pure: the worker (rescreen-client.ts) and the
 * disposition follow-up (settled-decisions.ts) apply the same rules.
 *
 * - SETTLED: a decision in force that needs no further sign-off: `confirmed_hit`,
 *   `false_positive` or `cleared` recorded without `approval_requested`, or such a decision an
 *   admin approved. `needs_review`, and a decision awaiting approval, are not settled.
 * - BASELINE: the client's last screen with a settled decision (the registration screen while
 *   nothing was ever settled). A re-screen is compared with it, not merely with the previous
 *   screen, so a change nobody decided is never folded into "nothing changed".
 * - ALERT: a change against the baseline that needs an analyst (below). It stays open, carried
 *   from each re-screen to the next (keeping when and by which screen it was first raised), until
 *   somebody records a settled decision on a screen that carries it.
 * - CARRY FORWARD: with no open alert and no such change, the baseline's settled decision is
 *   copied onto the new screen by the system actor, so nobody is asked twice. The copy is still the
 *   decision of the person who made it: its `author` and `author_key_lineage` are theirs, the
 *   system is its carrier (`carried_by`) and `carried_from` names the screen and version where it
 *   was made, so the four-eyes rule (lib/screening/dispose.ts) refuses its sign-off to its author
 *   on every screen it reaches.
 *
 * What needs an analyst depends on the decision it would replace:
 *
 * | baseline decision           | raises (re-opens) an alert                                          | carried, with a note  |
 * |-----------------------------|---------------------------------------------------------------------|-----------------------|
 * | confirmed_hit               | a new match                                                         | any listing change    |
 * | false_positive, cleared     | a new match; a matched listing gaining or losing identifying data;  | cosmetic list edits   |
 * |                             | a higher risk; the client's own name, dob, nationality or alias     |                       |
 * | none settled                | as for false_positive                                               | (nothing to carry)    |
 */

/** Decisions that say what the listed matches are, and so can hold for the same matches. */
const SETTLING_DECISIONS = new Set(['confirmed_hit', 'false_positive', 'cleared']);

type Decided = Pick<ScreenItem, 'disposition' | 'approval' | 'decision_version'>;

/** The decision in force when it is settled (the decision an admin signed off, once approved). */
export function settledDecision(screen: Decided | undefined): DecisionRecord | undefined {
  const decision = screen?.disposition;
  if (!decision || !SETTLING_DECISIONS.has(decision.disposition)) return undefined;
  if (screen.approval) return decision;
  return decision.approval_requested ? undefined : decision;
}

/** A decision recorded with `approval_requested` that no admin has signed off yet. */
export function awaitsApproval(screen: Decided | undefined): boolean {
  return Boolean(screen?.disposition?.approval_requested && !screen.approval);
}

/** The reasons a change needs an analyst, given the decision it would replace. */
function reasonsToOpen(comparison: BaselineComparison, decision: DecisionRecord | undefined): string[] {
  const reasons = comparison.matches_added.map((match) => `new match: ${listingName(match)}`);
  // A confirmed hit is still a hit however its listing is amended; only a new listing needs a look.
  if (decision?.disposition === 'confirmed_hit') return reasons;
  for (const change of comparison.identifying) {
    reasons.push(`${listingName(change.match)} ${change.identifying.join(', ')}`);
  }
  if (comparison.risk_rose) {
    reasons.push(`risk rose from ${comparison.risk_before} to ${comparison.risk_after}`);
  }
  for (const field of comparison.subject_changed) reasons.push(`the client's ${field} changed`);
  return reasons;
}

/** Listing changes that do not bear on the decision carried, noted on it. */
function notesOnCarry(comparison: BaselineComparison, decision: DecisionRecord): string[] {
  const changes =
    decision.disposition === 'confirmed_hit'
      ? [...comparison.identifying, ...comparison.cosmetic]
      : comparison.cosmetic;
  const notes = changes.map(
    (change) => `${listingName(change.match)} ${[...change.identifying, ...change.cosmetic].join(', ')}`,
  );
  if (decision.disposition === 'confirmed_hit' && comparison.risk_before !== comparison.risk_after) {
    notes.push(`risk ${comparison.risk_before} -> ${comparison.risk_after}`);
  }
  return notes;
}

export type BaselineVerdict =
  /** The baseline's settled decision holds for the new screen. */
  | { kind: 'carry'; decision: DecisionRecord; notes: string[] }
  /** A change that needs an analyst; `decision` is the settled decision it re-opens, if any. */
  | { kind: 'open'; reasons: string[]; decision: DecisionRecord | undefined }
  /** Nothing that needs an analyst, and no settled decision to carry. */
  | { kind: 'nothing_new' };

/** What the new screen's outcome means against the baseline. */
export function judgeAgainstBaseline(
  baseline: ScreenItem | undefined,
  fresh: Pick<ScreenItem, 'risk_level' | 'sanctions_result' | 'pep_result' | 'criminal_result' | 'subject'>,
): { comparison: BaselineComparison; verdict: BaselineVerdict } {
  const comparison = compareWithBaseline(baseline, fresh);
  const decision = settledDecision(baseline);
  const reasons = reasonsToOpen(comparison, decision);
  if (reasons.length > 0) return { comparison, verdict: { kind: 'open', reasons, decision } };
  if (decision)
    return { comparison, verdict: { kind: 'carry', decision, notes: notesOnCarry(comparison, decision) } };
  return { comparison, verdict: { kind: 'nothing_new' } };
}

export interface RescreenContext {
  /** The client's screen before this one (undefined when it was deleted). */
  previous: ScreenItem | undefined;
  /** The client's last settled state (undefined when that screen was deleted: every match is then new). */
  baseline: ScreenItem | undefined;
}

/**
 * The fresh re-screen as it is stored: with `baseline_screen_id`, and either an open alert
 * (pending), the baseline's settled decision carried forward (decided), or neither (pending).
 * A settled decision that is not carried, and why, is a `not_carried` entry of its history.
 */
export function reviewRescreen(fresh: ScreenItem, { previous, baseline }: RescreenContext): ScreenItem {
  const { comparison, verdict } = judgeAgainstBaseline(baseline, fresh);
  const withBaseline: ScreenItem = {
    ...fresh,
    ...(baseline ? { baseline_screen_id: baseline.screen_id } : {}),
  };
  // An alert nobody has settled stays open on the client's newest screen.
  const openAlert = previous && !settledDecision(previous) ? previous.alert : undefined;
  const waiting = [previous, baseline].find((screen) => screen && awaitsApproval(screen));
  const waitingNote = waiting
    ? `The decision on ${waiting.screen_id} awaits approval (${waiting.disposition?.disposition} by ${waiting.disposition?.author.user_id}): it is carried forward only once an admin signs it off`
    : undefined;

  if (verdict.kind === 'open' || openAlert) {
    const reasons = verdict.kind === 'open' ? [...verdict.reasons] : [];
    if (openAlert && reasons.length === 0) {
      reasons.push('no settled decision was recorded on the screens carrying this alert');
    }
    if (waitingNote) reasons.push(waitingNote);
    // Carried forward: still the alert first raised after this baseline.
    const carried =
      openAlert?.since &&
      openAlert.raised_by_screen_id &&
      (!baseline || openAlert.raised_by_screen_id > baseline.screen_id)
        ? { since: openAlert.since, raised_by_screen_id: openAlert.raised_by_screen_id }
        : undefined;
    const alert: ScreenAlert = {
      previous_screen_id: previous?.screen_id ?? null,
      baseline_screen_id: baseline?.screen_id ?? null,
      since: carried?.since ?? fresh.screened_at,
      raised_by_screen_id: carried?.raised_by_screen_id ?? fresh.screen_id,
      risk_before: comparison.risk_before,
      risk_after: comparison.risk_after,
      matches_added: comparison.matches_added,
      matches_removed: comparison.matches_removed,
      matches_changed: comparison.identifying.map((change) => change.match),
      reasons,
    };
    const settled = settledDecision(baseline);
    const note = settled
      ? `Not carried forward: the ${settled.disposition} decided on ${baseline?.screen_id} (by ${settled.author.user_id}); ${verdict.kind === 'open' ? 're-opened' : 'an alert is still open'}: ${reasons.join('; ')}`
      : waitingNote;
    const pending: ScreenItem = { ...withBaseline, alert, alert_since: alert.since ?? fresh.screened_at };
    return note ? withSystemNote(pending, note) : pending;
  }
  if (verdict.kind === 'carry' && baseline) return carryDecision(withBaseline, baseline, verdict);
  return waitingNote ? withSystemNote(withBaseline, waitingNote) : withBaseline;
}

/** A `not_carried` history entry by the system on a screen that stays pending. */
function withSystemNote(screen: ScreenItem, note: string): ScreenItem {
  const entry: HistoryEntry = {
    disposition: 'not_carried',
    note,
    author: { ...SYSTEM_ACTOR },
    at: screen.screened_at,
    override: false,
    approval_requested: false,
  };
  return {
    ...screen,
    history: [...screen.history, entry],
    history_count: (screen.history_count ?? screen.history.length) + 1,
    history_bytes: (screen.history_bytes ?? 0) + historyEntryBytes(entry),
  };
}

/**
 * Whether a decision is one the system carried to its screen: it names its carrier, or (carried
 * before carriers were recorded) the system is its author.
 */
export function isCarried(decision: Pick<HistoryEntry, 'author' | 'carried_by'> | undefined): boolean {
  return decision?.carried_by !== undefined || decision?.author.role === SYSTEM_ACTOR.role;
}

/**
 * Who made the decision `source` holds, with the lineage of the key they made it with, and where:
 * `source` itself, or, when the system carried it there, the screen it was carried from (kept
 * through any number of carries). A decision the system carried before carriers were recorded
 * names no person: its author stays the system, which no admin may sign off.
 */
function madeBy(
  source: ScreenItem,
  decision: DecisionRecord,
): Pick<HistoryEntry, 'author' | 'author_key_lineage'> & { carried_from: CarriedFrom } {
  const lineage = decision.author_key_lineage ? { author_key_lineage: [...decision.author_key_lineage] } : {};
  if (decision.carried_from) {
    return { author: { ...decision.author }, ...lineage, carried_from: { ...decision.carried_from } };
  }
  if (isCarried(decision)) {
    return {
      author: { ...decision.author },
      carried_from: { screen_id: decisionSource(source), decision_version: null, decided_at: null },
    };
  }
  return {
    author: { ...decision.author },
    ...lineage,
    carried_from: {
      screen_id: source.screen_id,
      decision_version: source.decision_version ?? null,
      decided_at: decision.at,
    },
  };
}

/**
 * The history entry of a decision carried forward from `source` by the system: the decision of the
 * person who made it (author, key lineage, where and when), written here by the system.
 */
export function carriedEntry(
  source: ScreenItem,
  verdict: { decision: DecisionRecord; notes: string[] },
  at: string,
): HistoryEntry {
  const approval = source.approval ? `, approved by ${source.approval.author.user_id}` : '';
  const why =
    verdict.notes.length > 0
      ? `listing changes that do not bear on it: ${verdict.notes.join('; ')}.`
      : 'the listed entries matched are unchanged.';
  const { author, author_key_lineage, carried_from } = madeBy(source, verdict.decision);
  return {
    disposition: verdict.decision.disposition,
    note: `Carried forward from ${source.screen_id} (decided by ${author.user_id}${approval}): ${why}`,
    author,
    ...(author_key_lineage ? { author_key_lineage } : {}),
    at,
    override: false,
    approval_requested: false,
    carried_by: { ...SYSTEM_ACTOR },
    carried_from,
  };
}

/** The screen where a person made the decision `source` holds: itself, unless the system carried it there. */
export const decisionSource = (source: ScreenItem) =>
  isCarried(source.disposition)
    ? (source.decision_source_screen_id ?? source.disposition?.carried_from?.screen_id ?? source.screen_id)
    : source.screen_id;

function carryDecision(
  fresh: ScreenItem,
  source: ScreenItem,
  verdict: { decision: DecisionRecord; notes: string[] },
): ScreenItem {
  const entry = carriedEntry(source, verdict, fresh.screened_at);
  // Decided, so not pending: the sparse pending keys stay off the item.
  const decided: Record<string, unknown> = { ...fresh };
  for (const name of indexAttributes('pendingScreens')) delete decided[name];
  return {
    ...(decided as unknown as ScreenItem),
    disposition: entry as DecisionRecord,
    decision_version: 1,
    history: [entry],
    history_count: 1,
    history_bytes: historyEntryBytes(entry),
    decision_source_screen_id: decisionSource(source),
  };
}

/**
 * The client's last settled state: the previous screen when it is settled, otherwise the newest
 * of the previous screen's own baseline and the client's `settled_screen_id` (moved forward by a
 * settled decision on any of its screens). Screen ids sort by time.
 */
export function baselineScreenId(
  previous: ScreenItem | undefined,
  fallbackId: string,
  settledScreenId: string | undefined,
): string {
  const own = previous
    ? settledDecision(previous)
      ? previous.screen_id
      : (previous.baseline_screen_id ?? previous.screen_id)
    : fallbackId;
  return settledScreenId && settledScreenId > own ? settledScreenId : own;
}
