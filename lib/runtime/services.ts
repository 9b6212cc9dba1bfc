import { type Config, readConfig } from '../common/config.ts';
import { createMatcher, type Matcher } from '../matcher/screen.ts';
import { loadSnapshot } from '../matcher/snapshot-file.ts';
import { type BatchQueue, createBatchQueue } from '../queue/batch-queue.ts';
import { createTable, type Table } from '../store/table.ts';
import { createLiveWatchlists, type LiveWatchlists } from '../sync/live-watchlists.ts';
import {
  createFileSnapshotStore,
  createS3SnapshotStore,
  type SnapshotStore,
} from '../sync/snapshot-store.ts';

/**
 * The composition root: every handler gets its adapters from here, built once per cold start
 * (or once per local server process) from configuration validated once.
 */
export interface Services {
  config: Config;
  table: Table;
  /**
   * The matcher over the newest watchlist snapshot, built on first use (functions that never
   * screen never pay for it) and replaced, between requests, when the list sync publishes a newer
   * snapshot (lib/sync/live-watchlists.ts). Take it once per request.
   */
  matcher(): Matcher | Promise<Matcher>;
  /**
   * The batch queue (SQS; fauxqs locally), built on first use from BATCH_QUEUE_URL and
   * SQS_ENDPOINT. Only the batch streams send (they need BATCH_QUEUE_URL); the worker uses it to
   * schedule retries of the messages it received.
   */
  batchQueue(): BatchQueue;
}

let services: Services | undefined;
let batchQueue: BatchQueue | undefined;
/** Outlives resetServices unless the snapshot store changes: the lists do not depend on the table. */
let watchlists: { key: string; live: LiveWatchlists } | undefined;

/** Where the list sync publishes snapshots (S3 on AWS, a directory locally); undefined = bundled only. */
export function snapshotStoreOf(config: Config): SnapshotStore | undefined {
  if (config.WATCHLIST_BUCKET) {
    return createS3SnapshotStore({
      bucket: config.WATCHLIST_BUCKET,
      endpoint: config.S3_ENDPOINT,
      region: config.AWS_REGION,
    });
  }
  return config.WATCHLIST_STORE_DIR
    ? createFileSnapshotStore(config.WATCHLIST_STORE_DIR, { retentionDays: config.SNAPSHOT_RETENTION_DAYS })
    : undefined;
}

/** The watchlists in force, for an in-process sync to swap in its result at once (npm start). */
export function liveWatchlistsOf(config: Config): LiveWatchlists {
  const key = JSON.stringify([
    config.WATCHLIST_BUCKET,
    config.WATCHLIST_STORE_DIR,
    config.WATCHLIST_SNAPSHOT,
  ]);
  if (watchlists?.key !== key) {
    watchlists = {
      key,
      live: createLiveWatchlists({
        store: snapshotStoreOf(config),
        loadBundled: () => loadSnapshot(config.WATCHLIST_SNAPSHOT || undefined),
        createMatcher,
        checkEveryMs: config.WATCHLIST_CHECK_SECONDS * 1000,
      }),
    };
  }
  return watchlists.live;
}

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
      matcher: () => liveWatchlistsOf(config).matcher(),
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
