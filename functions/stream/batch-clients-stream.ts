import { streamBatch } from '../../lib/batch/batch-stream.ts';
import { streamHandler } from '../../lib/runtime/handlers.ts';

/** POST /batch/clients/stream: each subject screened and registered as a monitored client. */
export const handler = streamHandler('batch-clients-stream', async (request, context) => ({
  events: await streamBatch(
    request.services,
    request.principal,
    { ...request.body, purpose: 'register-clients' },
    { ...request, remainingMs: () => context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY },
  ),
}));
