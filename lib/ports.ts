import type { Config } from './common/config.ts';
import type { Matcher } from './matcher/screen.ts';
import type { BatchQueue } from './queue/batch-queue.ts';
import type { Table } from './store/table.ts';

/**
 * What a use case may use of the outside world: the adapters the composition root
 * (lib/runtime/services.ts) builds once per cold start. Types only, so a feature depends on the
 * ports and never on the root that builds them.
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
