import { streamBatch } from '../../lib/batch/batch-stream.ts';
import { BatchRequestSchema } from '../../lib/batch/request.ts';
import { streamHandler } from '../../lib/http/handler.ts';

/** POST /batch/stream: Lambda response streaming behind a Function URL. */
export const handler = streamHandler('batch-stream', { body: BatchRequestSchema }, streamBatch);
