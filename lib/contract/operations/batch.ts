import { BatchRequestSchema } from '../../batch/request.ts';
import { BatchClientsRequestSchema } from '../../monitoring/register-client.ts';
import type { RouteId } from '../routes.ts';
import { batchErrors, batchEvents, notFound, type Operation } from './shared.ts';

/** The contract of the batch streams (lib/contract/operations.ts). */
export const batchOperations = {
  'batch-stream': { body: BatchRequestSchema, idempotent: true, success: batchEvents, errors: batchErrors },
  'batch-clients-stream': {
    body: BatchClientsRequestSchema,
    idempotent: true,
    success: batchEvents,
    // A subject whose reference another client holds is an `error` event of the stream, not a 409.
    errors: batchErrors,
  },
  'batch-reattach': { success: batchEvents, errors: notFound('batch') },
} as const satisfies Partial<Record<RouteId, Operation>>;
