import { streamBatch } from '../../lib/batch/batch-stream.ts';
import { streamHandler } from '../../lib/runtime/handlers.ts';

/** POST /batch/stream: Lambda response streaming behind a Function URL. */
export const handler = streamHandler(
  'batch-stream',
  async ({ services, principal, body, log, once, apiKey }, context) => ({
    events: await streamBatch(services, principal, body, {
      log,
      once,
      apiKey,
      remainingMs: () => context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY,
    }),
  }),
);
