import type { Context, ScheduledEvent } from 'aws-lambda';
import { logger } from '../../lib/common/log.ts';
import { runRetentionPurge } from '../../lib/jobs/retention-purge.ts';
import { getServices } from '../../lib/runtime/services.ts';

/**
 * EventBridge (daily rule): deletes the screens past each tenant's retention period, audited per
 * tenant with the counts. The event's own time is the clock, so a retried invocation judges the
 * same cut-off; it stops taking pages a minute before the function's timeout (the next run goes on).
 */
export async function handler(event: ScheduledEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>) {
  const now = Number.isNaN(Date.parse(event.time)) ? new Date() : new Date(event.time);
  const remaining = context?.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY;
  const purged = await runRetentionPurge(
    getServices().table,
    now,
    logger.child({ eventId: event.id }),
    Date.now() + remaining - 60_000,
  );
  return { tenants: purged.map(({ tenant_id, deleted, complete }) => ({ tenant_id, deleted, complete })) };
}
