import { type Config, readConfig } from '../common/config.ts';
import { whenReady } from '../common/readiness.ts';
import type { Services } from '../ports.ts';
import { type BatchQueue, createBatchQueue } from '../queue/batch-queue.ts';
import { createTable, type Table } from '../store/table.ts';
import { liveWatchlistsOf } from '../sync/live-watchlists.ts';

/**
 * The composition root: every handler gets its adapters (lib/ports.ts `Services`) from here, built
 * once per cold start (or once per local server process) from configuration validated once.
 */

let services: Services | undefined;
let batchQueue: BatchQueue | undefined;
export function getServices(): Services {
  if (!services) {
    const config = readConfig();
    services = {
      config,
      table: createTable({
        tableName: config.TABLE_NAME,
        endpoint: config.DYNAMODB_ENDPOINT,
        region: config.AWS_REGION,
      }),
      // A starting process (npm start) loads the lists itself; a request waits for it, bounded.
      matcher: async () => {
        await whenReady(config.STARTUP_WAIT_SECONDS * 1000);
        return liveWatchlistsOf(config).matcher();
      },
      batchQueue: () => {
        batchQueue ??= createBatchQueue({
          queueUrl: config.BATCH_QUEUE_URL,
          endpoint: config.SQS_ENDPOINT,
          region: config.AWS_REGION,
        });
        return batchQueue;
      },
    };
  }
  return services;
}

/** Drops the cached services so the next call rebuilds them from the environment (tests). */
export function resetServices(): void {
  services = undefined;
  batchQueue = undefined;
}
