import type { Context, ScheduledEvent } from 'aws-lambda';
import { purgeOnSchedule } from '../../lib/jobs/retention-purge.ts';
import { getServices } from '../../lib/runtime/services.ts';

/** EventBridge (daily rule): deletes the screens past each tenant's retention period (lib/jobs/retention-purge.ts). */
export async function handler(event: ScheduledEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>) {
  const remaining = context?.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY;
  return purgeOnSchedule(getServices().table, event, remaining);
}
