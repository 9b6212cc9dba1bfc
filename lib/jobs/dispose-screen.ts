import { applySettledDecision } from '../monitoring/settled-decisions.ts';
import { disposeScreen as decide } from '../screening/dispose.ts';

/**
 * POST /screens/{screen_id}/dispose: the decision (lib/screening/dispose.ts, one conditional
 * write), then, on a monitored client's screen, its settled decision carried to the client's
 * current screen (lib/monitoring/settled-decisions.ts). Two features joined, so it lives here.
 */
export function disposeScreen(...[table, caller, screenId, request, at]: Parameters<typeof decide>) {
  return decide(table, caller, screenId, request, at, applySettledDecision);
}
