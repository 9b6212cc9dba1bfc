import type { Context } from 'aws-lambda';
import type { HttpRequest, StreamResult } from '../http/handler.ts';
import { idempotencyKeyOf, idempotent } from '../http/idempotency.ts';
import type { Principal } from '../tenancy/auth.ts';
import type { BatchItemSubject, BatchPurpose } from './batch-record.ts';
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
    route: 'batch-stream',
    key: idempotencyKeyOf(request.event.headers),
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
