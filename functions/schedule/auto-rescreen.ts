import type { ScheduledEvent } from 'aws-lambda';
import { logger } from '../../lib/common/log.ts';
import { runScheduledRescreens } from '../../lib/monitoring/rescreen-run.ts';
import { getServices } from '../../lib/runtime/services.ts';

/**
 * EventBridge (hourly rule): a rescreen run for every tenant with clients past their due date.
 * The event's own time is the cut-off, so a retried invocation looks at the same due window.
 */
export async function handler(event: ScheduledEvent) {
  const now = Number.isNaN(Date.parse(event.time)) ? new Date() : new Date(event.time);
  const runs = await runScheduledRescreens(getServices(), now, logger.child({ eventId: event.id }));
  return { runs: runs.map((run) => ({ run_id: run.run_id, queued: run.queued, due: run.due })) };
}
