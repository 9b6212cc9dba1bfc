import { NotFoundError } from '../common/errors.ts';
import { isBatchId } from '../common/ids.ts';
import type { Logger } from '../common/log.ts';
import type { Services } from '../ports.ts';
import { ACCESS_ENDED, keyWatch } from '../tenancy/access-recheck.ts';
import type { Principal } from '../tenancy/auth.ts';
import { type BatchItemSubject, type BatchPurpose, getBatch } from './batch-table.ts';
import { type BatchStreamMessage, batchEvents, type ProgressStreamOptions } from './progress-stream.ts';
import type { BatchRequest } from './request.ts';
import { type StartedBatch, startBatch } from './start-batch.ts';

/** What a batch stream needs from the request it answers, besides the caller and the body. */
export interface BatchStreamRequest {
  log: Logger;
  /** Time left before the response must have ended (Lambda's remaining time). */
  remainingMs: () => number;
  /**
   * Runs the batch's start at most once per Idempotency-Key (the request pipeline's `once`): a
   * repeat with the same key and body starts nothing and streams the first request's batch again.
   */
  once: (start: () => Promise<StartedBatch>) => Promise<StartedBatch>;
  /** The key the stream was asked with: re-checked as it goes (lib/tenancy/access-recheck.ts). */
  apiKey: string;
}

/**
 * What a stream that stopped because its caller lost access says: a disabled (or removed) user's
 * batch stops as well (lib/batch/worker.ts), a rotated or revoked key stops only the stream.
 */
function accessEndedDetail(batchId: string) {
  return (reason: string) =>
    reason === ACCESS_ENDED.keyReplaced
      ? `The stream stopped: ${reason}. The batch goes on; follow it with a current key: GET /batch/${batchId}/events.`
      : `The stream stopped: ${reason}. The batch stops too: its subjects not yet screened are not screened, and are refunded.`;
}

/** The re-check of a stream's caller, with what its `complete` event then says. */
function watchingKey(table: Services['table'], apiKey: string, batchId: string): ProgressStreamOptions {
  return { accessEnded: keyWatch(table, apiKey), accessEndedDetail: accessEndedDetail(batchId) };
}

/**
 * POST /batch/stream, after the request pipeline has authenticated the caller, checked the batch
 * plan and validated every subject: charges the whole batch and queues it before the first byte
 * of the stream, then streams progress as the workers finish. A client that disconnects stops
 * only the stream: the queued subjects are still screened.
 */
export async function streamBatch(
  services: Services,
  principal: Principal,
  body: BatchRequest & { subjects: readonly BatchItemSubject[]; purpose?: BatchPurpose },
  { log, remainingMs, once, apiKey }: BatchStreamRequest,
  streamOptions: ProgressStreamOptions = {},
): Promise<AsyncIterable<readonly BatchStreamMessage[]>> {
  // A repeat with the same Idempotency-Key and body starts nothing: it streams the first
  // request's batch again, from its first event.
  const batch = await once(() => startBatch(services, principal, body, log));
  const started = Date.now();

  async function* logged() {
    let finished = false;
    try {
      yield* batchEvents(services.table, batch, {
        remainingMs,
        ...watchingKey(services.table, apiKey, batch.batchId),
        ...streamOptions,
      });
      finished = true;
    } finally {
      // A disconnect ends the stream early; the subjects are screened all the same.
      log.info(
        { tenant: batch.tenantId, batchId: batch.batchId, ms: Date.now() - started, clientStayed: finished },
        'batch stream ended',
      );
    }
  }
  return logged();
}

/**
 * GET /batch/{batch_id}/events: the progress stream of a batch the caller's tenant started,
 * from its `start` event (every subject finished so far is reported again, in finish order),
 * until `complete`. For a client that lost its connection, or a stream that ended at its time
 * limit or a restart of the service. Another tenant's batch, or an expired one, is 404.
 */
export async function reattachBatch(
  services: Pick<Services, 'table'>,
  principal: Principal,
  batchId: string,
  { remainingMs, apiKey }: { remainingMs: () => number; apiKey: string },
  streamOptions: ProgressStreamOptions = {},
): Promise<AsyncIterable<readonly BatchStreamMessage[]>> {
  const notFound = new NotFoundError(`Batch ${batchId.slice(0, 40)} not found`);
  if (!isBatchId(batchId)) throw notFound;
  const record = await getBatch(services.table, { tenantId: principal.tenantId, batchId });
  if (!record) throw notFound;
  const batch = { tenantId: principal.tenantId, batchId, total: record.total };
  return batchEvents(services.table, batch, {
    remainingMs,
    ...watchingKey(services.table, apiKey, batchId),
    ...streamOptions,
  });
}
