import { logger } from '../common/log.ts';
import { isoSeconds } from '../common/time.ts';
import { findScreen, type ScreenItem } from '../screening/screen-table.ts';
import { noteScreenDecision } from '../screening/screened-subjects.ts';
import type { Table } from '../store/table.ts';
import type { TableWrite } from '../store/write.ts';
import { carryToScreen } from './carried-decisions.ts';
import { clientWrites, findClient } from './client-table.ts';
import { carriedEntry, isCarried, judgeAgainstBaseline, settledDecision } from './rescreen-review.ts';

/**
 * A settled decision recorded on one of a client's screens (a sign-off, an override, or a decision
 * on a screen a newer one has since superseded) reaches the client's current state:
 *
 * 1. the client's `settled_screen_id` moves forward to that screen (never back: condition on the
 *    stored id, screen ids sort by time), so the next re-screen's baseline is never older. This
 *    write is part of the decision's own transaction ({@link settledPointerWrites}, joined by
 *    lib/jobs/dispose-screen.ts): the decision and the pointer land together. When the pointer is
 *    already further on (or the client is gone) the decision is made without it;
 * 2. then ({@link applySettledDecision}) the client's current screen takes the decision, carried
 *    by the system and still the decision of the person who made it (rescreen-review.ts
 *    `carriedEntry`), when it is undecided (or holds a decision the system carried from the very
 *    screen just decided: an override there replaces it) and shows nothing that needs an analyst
 *    against the decided screen (rescreen-review.ts, the same rule a run applies): one
 *    conditional write on it, under those conditions, in one transaction with its `screen.carry`
 *    audit entry (carried-decisions.ts).
 *
 * The carry is a follow-up of a decision already stored, so a failure is logged, not returned: the
 * decision stands, and the next re-screen derives the same from its baseline (the current screen
 * names the screen it was compared with; the decided one, when the current screen derives from
 * it). A follow-up lost can leave an alert open for one more run; it never closes one.
 */

/** The client's settled pointer moved forward to the decided screen, when its decision settles. */
export function settledPointerWrites(decided: ScreenItem): TableWrite[] {
  if (!decided.client_id || !settledDecision(decided)) return [];
  return [clientWrites.settle(decided.tenant_id, decided.client_id, decided.screen_id)];
}

/** The settled decision carried to the client's current screen (2. above), once the decision is written. */
export async function applySettledDecision(table: Table, decided: ScreenItem, at: Date): Promise<void> {
  if (!decided.client_id || !settledDecision(decided)) return;
  try {
    // When the pointer was already further on, the current screen may still hold a decision
    // carried from this one.
    const client = await findClient(table, decided.tenant_id, decided.client_id);
    const currentId = client?.last_screen_id;
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

async function carryToCurrent(table: Table, decided: ScreenItem, current: ScreenItem, at: Date) {
  const carriedFromDecided =
    isCarried(current.disposition) && current.decision_source_screen_id === decided.screen_id;
  if (current.disposition && !carriedFromDecided) return;
  // Compared with a settled state newer than the decided screen: that one holds, not this.
  if (!carriedFromDecided && (current.baseline_screen_id ?? '') > decided.screen_id) return;
  const { verdict } = judgeAgainstBaseline(decided, current);
  if (verdict.kind !== 'carry') return;
  const entry = { ...carriedEntry(decided, verdict, isoSeconds(at)), override: carriedFromDecided };
  // Still as read: undecided, or still holding the decision carried from the decided screen.
  const carried = await carryToScreen(table, current, entry, {
    viaScreenId: decided.screen_id,
    replacingCarried: carriedFromDecided,
  });
  // Refused: decided or re-screened meanwhile, and what is there now stands.
  if (carried) await noteScreenDecision(table, carried, at);
}
