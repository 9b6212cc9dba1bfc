import type { Context } from 'aws-lambda';
import { NotFoundError } from '../common/errors.ts';
import { isBatchId } from '../common/ids.ts';
import type { HttpRequest, StreamResult } from '../http/handler.ts';
import { idempotent } from '../http/idempotency.ts';
import type { Principal } from '../tenancy/auth.ts';
import { type BatchItemSubject, type BatchPurpose, getBatch } from './batch-record.ts';
import { batchEvents, type ProgressStreamOptions } from './progress-stream.ts';
import type { BatchRequest } from './request.ts';
import { startBatch } from './start-batch.ts';

/**
 * POST /batch/stream, after the request pipeline has authenticated the caller, checked the batch
 * plan and validated every subject: charges the whole batch and queues it before the first byte
 * of the stream, then streams progress as the workers finish. A client that disconnects stops
 * only the stream: the queued subjects are still screened.
 */
export async function streamBatch(
  request: HttpRequest<
    BatchRequest & { subjects: readonly BatchItemSubject[]; purpose?: BatchPurpose },
    undefined,
    Principal
  >,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  streamOptions: ProgressStreamOptions = {},
): Promise<StreamResult> {
  const { services, principal, log } = request;
  // A repeat with the same Idempotency-Key and body starts nothing: it streams the first
  // request's batch again, from its first event.
  const scope = {
    tenantId: principal.tenantId,
    route: request.body.purpose === 'register-clients' ? 'batch-clients-stream' : 'batch-stream',
    key: request.idempotencyKey,
    body: request.body,
  };
  const { result: batch } = await idempotent(services.table, scope, () =>
    startBatch(services, principal, request.body, log),
  );
  const started = Date.now();

  async function* logged() {
    let finished = false;
    try {
      yield* batchEvents(services.table, batch, {
        remainingMs: () => context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY,
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
  return { headers: {}, events: logged() };
}

/**
 * GET /batch/{batch_id}/events: the progress stream of a batch the caller's tenant started,
 * from its `start` event (every subject finished so far is reported again, in finish order),
 * until `complete`. For a client that lost its connection, or a stream that ended at its time
 * limit or a restart of the service. Another tenant's batch, or an expired one, is 404.
 */
export async function reattachBatch(
  request: HttpRequest<undefined, undefined, Principal>,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  streamOptions: ProgressStreamOptions = {},
): Promise<StreamResult> {
  const { services, principal } = request;
  const batchId = request.params.batch_id ?? '';
  const notFound = new NotFoundError(`Batch ${batchId.slice(0, 40)} not found`);
  if (!isBatchId(batchId)) throw notFound;
  const record = await getBatch(services.table, { tenantId: principal.tenantId, batchId });
  if (!record) throw notFound;
  const batch = { tenantId: principal.tenantId, batchId, total: record.total };
  return {
    headers: {},
    events: batchEvents(services.table, batch, {
      remainingMs: () => context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY,
      ...streamOptions,
    }),
  };
}
