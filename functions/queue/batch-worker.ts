import { createQueueWorker } from '../../lib/jobs/queue-worker.ts';
import { getServices } from '../../lib/runtime/services.ts';

/** SQS → each job (a batch subject) to its use case; reports batch item failures so only those are retried. */
export const handler = createQueueWorker({ services: getServices });
