import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { BATCH_MAX_RECEIVE_COUNT } from '../../lib/batch/worker.ts';
import { createSqsClient } from '../../lib/queue/batch-queue.ts';
import { batchWorker } from '../../lib/routes.ts';
import { type QueueWorker, startConsumers } from './queue-consumers.ts';

const repoRoot = resolve(import.meta.dirname, '../..');

export interface LocalQueueOptions {
  /**
   * Module exporting the worker `handler`, relative to the repository root; default the deployed
   * one (lib/routes.ts `batchWorker`). Tests name a module whose worker has a failing dependency.
   */
  workerEntry?: string;
  /**
   * Pollers, each handing the worker batches of up to ten messages like Lambda's SQS event
   * source. Default LOCAL_BATCH_CONSUMERS or 4.
   */
  consumers?: number;
  region?: string;
}

export interface LocalQueue {
  /** The SQS endpoint (fauxqs) the SDK clients must use. */
  endpoint: string;
  queueUrl: string;
  queueArn: string;
  /** Messages currently in the dead-letter queue (fauxqs only). */
  deadLetterBodies(): string[];
  close(): Promise<void>;
}

export const BATCH_QUEUE_NAME = 'screening-batch';
export const BATCH_DEAD_LETTER_QUEUE_NAME = 'screening-batch-dlq';

/**
 * The batch queue on one machine: fauxqs in-process (SQS JSON protocol, visibility timeouts,
 * long polling, DLQ redrive after BATCH_MAX_RECEIVE_COUNT receives like the deployed queue), and
 * sqs-consumer pollers handing the worker handler SQSEvent batches (infra/local/queue-consumers.ts).
 * With SQS_ENDPOINT and BATCH_QUEUE_URL set, polls that external queue instead of fauxqs.
 */
export async function startLocalQueue(options: LocalQueueOptions = {}): Promise<LocalQueue> {
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  let fauxqs: FauxqsServer | undefined;
  let endpoint: string;
  let queueUrl: string;
  let queueArn: string;

  if (process.env.SQS_ENDPOINT && process.env.BATCH_QUEUE_URL) {
    endpoint = process.env.SQS_ENDPOINT;
    queueUrl = process.env.BATCH_QUEUE_URL;
    queueArn = `arn:aws:sqs:${region}:000000000000:${queueUrl.split('/').pop() ?? BATCH_QUEUE_NAME}`;
  } else {
    fauxqs = await startFauxqs({ port: 0, logger: false, defaultRegion: region });
    endpoint = `http://127.0.0.1:${fauxqs.port}`;
    const dlq = fauxqs.createQueue(BATCH_DEAD_LETTER_QUEUE_NAME, {
      attributes: { MessageRetentionPeriod: String(14 * 24 * 3600) },
    });
    const main = fauxqs.createQueue(BATCH_QUEUE_NAME, {
      attributes: {
        VisibilityTimeout: '60',
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlq.queueArn,
          maxReceiveCount: String(BATCH_MAX_RECEIVE_COUNT),
        }),
      },
    });
    queueUrl = main.queueUrl;
    queueArn = main.queueArn;
  }

  const entry = resolve(repoRoot, options.workerEntry ?? batchWorker.entry);
  const worker = ((await import(pathToFileURL(entry).href)) as { handler: QueueWorker }).handler;
  const sqs = createSqsClient({ endpoint, region });
  const consumers = startConsumers(
    {
      queueUrl,
      queueArn,
      region,
      consumers: options.consumers ?? Number(process.env.LOCAL_BATCH_CONSUMERS ?? 4),
    },
    sqs,
    worker,
  );

  return {
    endpoint,
    queueUrl,
    queueArn,
    deadLetterBodies: () => {
      const state = fauxqs?.inspectQueue(BATCH_DEAD_LETTER_QUEUE_NAME);
      if (!state) return [];
      const { ready, delayed, inflight } = state.messages;
      return [...ready, ...delayed, ...inflight.map((entry) => entry.message)].map((message) => message.body);
    },
    close: async () => {
      // Subjects being screened finish before the stores go away; unstarted ones stay queued.
      await consumers.stop();
      sqs.destroy();
      await fauxqs?.stop();
    },
  };
}
