import { readConfig } from '../common/config.ts';
import { whenReady } from '../common/readiness.ts';
import type { Services } from '../ports.ts';
import { type BatchQueue, createBatchQueue } from '../queue/batch-queue.ts';
import { createTable } from '../store/table.ts';

/**
 * Replaced at bundle time by the stack (infra/cdk/constructs/service-function.ts): `false` in the
 * bundle of a function that never screens, so esbuild leaves the matcher, the list parsers and
 * their dependencies out of it (about 2 MB each). Undefined when the code runs unbundled (`npm
 * start`, tests), which screens as before.
 */
declare const SERVICE_BUNDLES_WATCHLISTS: boolean | undefined;

/**
 * The composition root: every handler gets its adapters (lib/ports.ts `Services`) from here, built
 * once per cold start (or once per local server process) from configuration validated once. Each
 * capability is built at its first use, so a function pays only for what its route calls: the
 * table client for nearly every one; the matcher and its snapshot only in a function that screens
 * (and only in its bundle, above); the SQS client only at a first send (lib/queue/batch-queue.ts
 * imports the SDK's SQS package then). `npm run bench:bundles` and `npm run bench:cold-start`
 * measure it (README, Bundles and cold starts).
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
        // The test inline, so esbuild drops the import from a bundle where it is false.
        if (typeof SERVICE_BUNDLES_WATCHLISTS === 'undefined' || SERVICE_BUNDLES_WATCHLISTS) {
          await whenReady(config.STARTUP_WAIT_SECONDS * 1000);
          const { liveWatchlistsOf } = await import('../sync/live-watchlists.ts');
          return liveWatchlistsOf(config).matcher();
        }
        throw new Error(
          'This function was deployed without the watchlists (needsWatchlists in lib/contract/routes.ts)',
        );
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
