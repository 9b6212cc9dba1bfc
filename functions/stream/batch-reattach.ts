import { reattachBatch } from '../../lib/batch/batch-stream.ts';
import { streamHandler } from '../../lib/runtime/handlers.ts';

/** GET /batch/{batch_id}/events: a batch's progress stream again, from its first event. */
export const handler = streamHandler('batch-reattach', reattachBatch);
