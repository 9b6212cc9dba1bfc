import { BATCH_MAX_RECEIVE_COUNT, batchSubjectHandler, batchSubjectsHandler } from '../batch/worker.ts';
import { type Logger, logger } from '../common/log.ts';
import { registerQueuedClient } from '../monitoring/register-client.ts';
import { rescreenQueuedClient } from '../monitoring/rescreen-client.ts';
import type { Services } from '../ports.ts';
import { queueUrlFromArn } from '../queue/batch-queue.ts';
import { sqsPartialBatch } from '../queue/partial-batch.ts';
import { policySandboxHandler } from '../screening/policy-sandbox-job.ts';
import { screenSubject } from '../screening/screen-subject.ts';
import { type JobHandlers, jobDispatcher } from './kinds.ts';

export interface QueueWorkerDependencies {
  services: () => Pick<Services, 'table' | 'config' | 'matcher' | 'batchQueue'>;
  /** Screens one subject: the single-subject use case of POST /screen (tests swap it). */
  screen: typeof screenSubject;
  maxReceiveCount: number;
  /** Seconds before a failed delivery is tried again: 1 s, 2 s, 4 s ... capped at 30 s. */
  retryDelaySeconds: (receiveCount: number) => number;
  log: Logger;
}

/**
 * The worker of the work queue (functions/queue/batch-worker.ts): SQS events in, each message
 * dispatched by its job kind to that kind's use case, `batchItemFailures` out. Composed here,
 * once, so every kind shares the adapter, the retry policy and the dead-letter rule.
 */
export function createQueueWorker(
  overrides: Partial<QueueWorkerDependencies> & Pick<QueueWorkerDependencies, 'services'>,
) {
  const deps: QueueWorkerDependencies = {
    screen: screenSubject,
    maxReceiveCount: BATCH_MAX_RECEIVE_COUNT,
    retryDelaySeconds: (receiveCount) => Math.min(2 ** (receiveCount - 1), 30),
    log: logger,
    ...overrides,
  };
  const batchSubject = batchSubjectHandler({
    ...deps,
    screeners: { 'register-clients': registerQueuedClient, rescreen: rescreenQueuedClient },
  });
  const handlers: JobHandlers = {
    'batch-subject': batchSubject,
    'batch-subjects': batchSubjectsHandler(batchSubject),
    'policy-sandbox': policySandboxHandler(deps),
  };
  return sqsPartialBatch(jobDispatcher(handlers, deps.log), {
    maxReceiveCount: deps.maxReceiveCount,
    retryDelaySeconds: deps.retryDelaySeconds,
    log: deps.log,
    setVisibility: async (record, seconds) => {
      const { config, batchQueue } = deps.services();
      // Locally the configured URL: fauxqs names its own host, not the ARN's region.
      const queueUrl = config.BATCH_QUEUE_URL ?? queueUrlFromArn(record.eventSourceARN);
      await batchQueue().retryAfter(queueUrl, record.receiptHandle, seconds);
    },
  });
}
