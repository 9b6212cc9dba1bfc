import { createMatcher, type Matcher } from '../matcher/screen.ts';
import { loadSnapshot } from '../matcher/snapshot-file.ts';
import { type BatchQueue, createBatchQueue } from '../queue/batch-queue.ts';
import { createTable, type Table } from '../store/table.ts';
import { type Config, readConfig } from './config.ts';

/**
 * The composition root: every handler gets its adapters from here, built once per cold start
 * (or once per local server process) from configuration validated once.
 */
export interface Services {
  config: Config;
  table: Table;
  /**
   * The matcher over the watchlist snapshot, built on first use and then kept for the life of
   * the process (one cold start): loading the compiled lists costs about a quarter of a second, a
   * screen well under a millisecond. Functions that never screen never pay for it.
   */
  matcher(): Matcher;
  /**
   * The batch queue (SQS; fauxqs locally), built on first use from BATCH_QUEUE_URL and
   * SQS_ENDPOINT. Only the batch streams send (they need BATCH_QUEUE_URL); the worker uses it to
   * schedule retries of the messages it received.
   */
  batchQueue(): BatchQueue;
}

let services: Services | undefined;
let batchQueue: BatchQueue | undefined;
/** Outlives resetServices: the lists do not depend on the table a test stack points at. */
let matcher: Matcher | undefined;

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
      matcher: () => {
        matcher ??= createMatcher(loadSnapshot(config.WATCHLIST_SNAPSHOT || undefined));
        return matcher;
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
