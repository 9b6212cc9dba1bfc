import { runListSync, summariseSync } from '../../lib/jobs/run-sync.ts';
import { getServices } from '../../lib/runtime/services.ts';

/**
 * The daily list sync (EventBridge schedule): every list from its publisher into a new snapshot
 * in the bucket, one status row per list. A failing list does not fail the run (it is recorded
 * and keeps its last good data); only a run that could not publish at all throws, so the
 * schedule's retry policy tries again. After publishing, the clients who could match an added or
 * amended listing are rescreened at once (lib/monitoring/delta-rescreen.ts).
 */
export const handler = async () => {
  const { config, table, batchQueue } = getServices();
  return summariseSync(await runListSync({ config, table, batchQueue }));
};
