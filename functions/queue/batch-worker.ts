import { createQueueWorker } from '../../lib/jobs/queue-worker.ts';

/** SQS → each job (a batch subject) to its use case; reports batch item failures so only those are retried. */
export const handler = createQueueWorker();
