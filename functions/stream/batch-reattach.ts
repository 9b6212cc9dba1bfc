import { reattachBatch } from '../../lib/batch/batch-stream.ts';
import { streamHandler } from '../../lib/runtime/handlers.ts';

/** GET /batch/{batch_id}/events: a batch's progress stream again, from its first event. */
export const handler = streamHandler(
  'batch-reattach',
  async ({ services, principal, params, apiKey }, context) => ({
    events: await reattachBatch(services, principal, params.batch_id ?? '', {
      remainingMs: () => context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY,
      apiKey,
    }),
  }),
);
