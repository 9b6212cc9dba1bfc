import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { buildApp } from 'fauxqs';
import { BATCH_MAX_RECEIVE_COUNT } from '../../lib/batch/worker.ts';
import { defaultRegion, localSettings } from '../../lib/common/config.ts';
import { batchWorker } from '../../lib/contract/routes.ts';
import { createSqsClient } from '../../lib/queue/sqs-client.ts';
import { type QueueWorker, startConsumers } from './queue-consumers.ts';

const repoRoot = resolve(import.meta.dirname, '../..');

export interface LocalQueueOptions {
  /**
   * Module exporting the worker `handler`, relative to the repository root; default the deployed
   * one (lib/contract/routes.ts `batchWorker`). Tests name a module whose worker has a failing dependency.
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
  /** Up to ten messages of the dead-letter queue (fauxqs only). */
  deadLetterBodies(): Promise<string[]>;
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
  const settings = localSettings();
  const region = options.region ?? defaultRegion();
  let fauxqs: { close(): Promise<void> } | undefined;
  let endpoint: string;
  let queueUrl: string;
  let queueArn: string;
  let deadLetterUrl: string | undefined;

  if (settings.sqsEndpoint && settings.batchQueueUrl) {
    endpoint = settings.sqsEndpoint;
    queueUrl = settings.batchQueueUrl;
    queueArn = `arn:aws:sqs:${region}:000000000000:${queueUrl.split('/').pop() ?? BATCH_QUEUE_NAME}`;
  } else {
    // fauxqs's own startFauxqs listens on every interface; the queue holds names and dates of
    // birth, so the app is started here on loopback only, and the queues are made over its API.
    const app = buildApp({ logger: false, defaultRegion: region });
    await app.listen({ port: 0, host: '127.0.0.1' });
    fauxqs = app;
    endpoint = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const admin = createSqsClient({ endpoint, region });
    try {
      deadLetterUrl = await createQueue(admin, BATCH_DEAD_LETTER_QUEUE_NAME, {
        MessageRetentionPeriod: String(14 * 24 * 3600),
      });
      const dlqArn = await queueArnOf(admin, deadLetterUrl);
      queueUrl = await createQueue(admin, BATCH_QUEUE_NAME, {
        VisibilityTimeout: '60',
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlqArn,
          maxReceiveCount: String(BATCH_MAX_RECEIVE_COUNT),
        }),
      });
      queueArn = await queueArnOf(admin, queueUrl);
    } finally {
      admin.destroy();
    }
  }

  const entry = resolve(repoRoot, options.workerEntry ?? batchWorker.entry);
  const worker = ((await import(pathToFileURL(entry).href)) as { handler: QueueWorker }).handler;
  const sqs = createSqsClient({ endpoint, region });
  const consumers = startConsumers(
    {
      queueUrl,
      queueArn,
      region,
      consumers: options.consumers ?? settings.batchConsumers,
    },
    sqs,
    worker,
  );

  return {
    endpoint,
    queueUrl,
    queueArn,
    deadLetterBodies: async () => {
      if (!deadLetterUrl) return [];
      return peekBodies(sqs, deadLetterUrl);
    },
    close: async () => {
      // Subjects being screened finish before the stores go away; unstarted ones stay queued.
      await consumers.stop();
      sqs.destroy();
      await fauxqs?.close();
    },
  };
}

/** Creates a queue on the local SQS (fauxqs) and returns its URL; shared with the webhook queue. */
export async function createQueue(
  sqs: SQSClient,
  name: string,
  attributes: Record<string, string>,
): Promise<string> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  if (!QueueUrl) throw new Error(`queue ${name} not created`);
  return QueueUrl;
}

/**
 * Up to ten message bodies of a queue, with visibility 0: looking does not hide the messages from
 * the next look. Shared with the webhook queue (its dead-letter queue).
 */
export async function peekBodies(sqs: SQSClient, queueUrl: string): Promise<string[]> {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
  );
  return Messages.map((message) => message.Body ?? '');
}

export async function queueArnOf(sqs: SQSClient, queueUrl: string): Promise<string> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  if (!Attributes?.QueueArn) throw new Error(`queue ${queueUrl} has no ARN`);
  return Attributes.QueueArn;
}
