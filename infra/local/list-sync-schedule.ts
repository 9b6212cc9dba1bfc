import { logger } from '../../lib/common/log.ts';
import { runListSync } from '../../lib/jobs/run-sync.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { liveWatchlistsOf } from '../../lib/sync/live-watchlists.ts';

export interface ListSyncSchedule {
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * `npm start`'s stand-in for the daily EventBridge schedule: a list sync every `everySeconds`
 * (LIST_SYNC_INTERVAL_SECONDS; off when 0), from LIST_SYNC_FROM or the official URLs. A run that
 * published a new snapshot swaps it into the running server at once; runs never overlap.
 */
export function startListSyncSchedule(everySeconds: number): ListSyncSchedule | undefined {
  if (!(everySeconds > 0)) return undefined;
  let running: Promise<void> | undefined;
  const run = async () => {
    const { config, table, batchQueue } = getServices();
    const report = await runListSync({ config, table, batchQueue });
    if (report.snapshotVersion) await liveWatchlistsOf(config).refresh();
  };
  const timer = setInterval(() => {
    if (running) return;
    running = run()
      .catch((error) => logger.error({ err: error }, 'scheduled list sync failed'))
      .finally(() => {
        running = undefined;
      });
  }, everySeconds * 1000);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
