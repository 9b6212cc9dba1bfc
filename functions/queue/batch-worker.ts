import { createBatchWorker } from '../../lib/batch/worker.ts';

/** SQS → one screen per batch subject; reports batch item failures so only those are retried. */
export const handler = createBatchWorker();
