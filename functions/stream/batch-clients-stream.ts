import { streamBatch } from '../../lib/batch/batch-stream.ts';
import { streamHandler } from '../../lib/runtime/handlers.ts';

/** POST /batch/clients/stream: each subject screened and registered as a monitored client. */
export const handler = streamHandler('batch-clients-stream', (request, context) =>
  streamBatch({ ...request, body: { ...request.body, purpose: 'register-clients' } }, context),
);
