import { logger } from '../common/log.ts';
import { isoSeconds } from '../common/time.ts';
import { carryDecision, findScreen, type ScreenItem } from '../screening/screen-table.ts';
import { noteScreenDecision } from '../screening/screened-subjects.ts';
import type { Table } from '../store/table.ts';
import { SYSTEM_ACTOR } from './client-record.ts';
import { settleClientScreen } from './client-table.ts';
import { carriedEntry, judgeAgainstBaseline, settledDecision } from './rescreen-review.ts';

/**
 * A settled decision recorded on one of a client's screens (a sign-off, an override, or a decision
 * on a screen a newer one has since superseded) reaches the client's current state. The decision
 * itself is ONE conditional write on the screen it was made on (lib/screening/dispose.ts); then:
 *
 * 1. the client's `settled_screen_id` moves forward to that screen (never back: condition on the
 *    stored id, screen ids sort by time), so the next re-screen's baseline is never older;
 * 2. the client's current screen takes the decision, by the system actor with a history entry
 *    naming the screen it came from, when it is undecided (or holds a decision the system carried
 *    from the very screen just decided: an override there replaces it) and shows nothing that
 *    needs an analyst against the decided screen (rescreen-review.ts, the same rule a run applies):
 *    one conditional write on it, under those conditions.
 *
 * Both are follow-ups of a decision already stored, so a failure is logged, not returned: the
 * decision stands, and the next re-screen derives the same from its baseline (the current
 * screen names the screen it was compared with; the decided one, when the current screen derives
 * from it). A follow-up lost can leave an alert open for one more run; it never closes one.
 */
export async function applySettledDecision(table: Table, decided: ScreenItem, at: Date): Promise<void> {
  if (!decided.client_id || !settledDecision(decided)) return;
  try {
    const currentId = await moveSettledPointer(table, decided);
    if (!currentId || currentId <= decided.screen_id) return;
    const current = await findScreen(table, decided.tenant_id, currentId);
    if (current) await carryToCurrent(table, decided, current, at);
  } catch (error) {
    logger.error(
      { err: error, tenant: decided.tenant_id, screenId: decided.screen_id, clientId: decided.client_id },
      'settled decision not applied to the client’s current screen; the next re-screen applies it',
    );
  }
}

/** Moves the client's settled screen forward; answers the client's current screen id. */
async function moveSettledPointer(table: Table, decided: ScreenItem): Promise<string | undefined> {
  // When refused, a newer screen is settled already: the current screen may still hold a
  // decision carried from this one.
  const client = await settleClientScreen(
    table,
    decided.tenant_id,
    decided.client_id ?? '',
    decided.screen_id,
  );
  return client?.last_screen_id;
}

async function carryToCurrent(table: Table, decided: ScreenItem, current: ScreenItem, at: Date) {
  const carriedFromDecided =
    current.disposition?.author.role === SYSTEM_ACTOR.role &&
    current.decision_source_screen_id === decided.screen_id;
  if (current.disposition && !carriedFromDecided) return;
  // Compared with a settled state newer than the decided screen: that one holds, not this.
  if (!carriedFromDecided && (current.baseline_screen_id ?? '') > decided.screen_id) return;
  const { verdict } = judgeAgainstBaseline(decided, current);
  if (verdict.kind !== 'carry') return;
  const entry = { ...carriedEntry(decided, verdict, isoSeconds(at)), override: carriedFromDecided };
  // Still as read: undecided, or still holding the decision carried from the decided screen.
  const carried = await carryDecision(table, current, entry, {
    sourceScreenId: decided.screen_id,
    replacingCarried: carriedFromDecided,
    systemRole: SYSTEM_ACTOR.role,
  });
  // Refused: decided or re-screened meanwhile, and what is there now stands.
  if (carried) await noteScreenDecision(table, carried, at);
}
