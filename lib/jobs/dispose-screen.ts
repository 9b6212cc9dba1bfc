import { applySettledDecision, settledPointerWrites } from '../monitoring/settled-decisions.ts';
import { disposeScreen as decide } from '../screening/dispose.ts';

/**
 * POST /screens/{screen_id}/dispose: the decision (lib/screening/dispose.ts, one transaction with
 * its audit entry) and, on a monitored client's screen, a settled decision's move of the client's
 * settled pointer in that same transaction; then its settled decision carried to the client's
 * current screen (lib/monitoring/settled-decisions.ts). Two features joined, so it lives here.
 */
export function disposeScreen(...[table, caller, screenId, request, at]: Parameters<typeof decide>) {
  return decide(table, caller, screenId, request, at, {
    alongside: settledPointerWrites,
    after: applySettledDecision,
  });
}
