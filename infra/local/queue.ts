import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Message } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { Consumer } from 'sqs-consumer';
import { BATCH_MAX_RECEIVE_COUNT } from '../../lib/batch/worker.ts';
import { logger } from '../../lib/log.ts';
import { createSqsClient } from '../../lib/queue/batch-queue.ts';
import { batchWorker } from '../../lib/routes.ts';
import { localContext } from './lambda-context.ts';

const repoRoot = resolve(import.meta.dirname, '../..');

export type QueueWorker = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined | void>;

export interface LocalQueueOptions {
  /** The worker handler; default the deployed one (lib/routes.ts `batchWorker`). */
  worker?: QueueWorker;
  /**
   * Pollers, each handing the worker batches of up to ten messages like Lambda's SQS event
   * source. Default LOCAL_BATCH_CONSUMERS or 4: enough to keep this process busy on two cores.
   */
  consumers?: number;
  region?: string;
}

export interface LocalQueue {
  /** The SQS endpoint (fauxqs) the SDK clients must use. */
  endpoint: string;
  queueUrl: string;
  queueArn: string;
  deadLetterQueueUrl: string | undefined;
  /** Messages currently in the dead-letter queue (fauxqs only). */
  deadLetterBodies(): string[];
  close(): Promise<void>;
}

export const BATCH_QUEUE_NAME = 'screening-batch';
export const BATCH_DEAD_LETTER_QUEUE_NAME = 'screening-batch-dlq';

/** The SQSEvent record Lambda's event source would build from a received message. */
export function toSqsRecord(message: Message, queueArn: string, region: string): SQSRecord {
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: (message.Attributes ?? {}) as unknown as SQSRecordAttributes,
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

/**
 * The batch queue on one machine: fauxqs in-process (SQS JSON protocol, visibility timeouts,
 * long polling, DLQ redrive after BATCH_MAX_RECEIVE_COUNT receives like the deployed queue) and
 * sqs-consumer pollers handing the worker handler SQSEvent batches; only messages the worker
 * does not report in `batchItemFailures` are deleted, as Lambda's event source does.
 * With SQS_ENDPOINT and BATCH_QUEUE_URL set, polls that external queue instead.
 */
export async function startLocalQueue(options: LocalQueueOptions = {}): Promise<LocalQueue> {
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  let fauxqs: FauxqsServer | undefined;
  let endpoint: string;
  let queueUrl: string;
  let queueArn: string;
  let deadLetterQueueUrl: string | undefined;

  if (process.env.SQS_ENDPOINT && process.env.BATCH_QUEUE_URL) {
    endpoint = process.env.SQS_ENDPOINT;
    queueUrl = process.env.BATCH_QUEUE_URL;
    const name = queueUrl.split('/').pop() ?? BATCH_QUEUE_NAME;
    queueArn = `arn:aws:sqs:${region}:000000000000:${name}`;
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
    deadLetterQueueUrl = dlq.queueUrl;
  }

  const worker =
    options.worker ??
    ((await import(pathToFileURL(resolve(repoRoot, batchWorker.entry)).href)) as { handler: QueueWorker }).handler;
  const sqs = createSqsClient({ endpoint, region });
  const inFlight = new Set<Promise<unknown>>();

  const handleMessageBatch = async (messages: Message[]): Promise<Message[]> => {
    const event: SQSEvent = { Records: messages.map((message) => toSqsRecord(message, queueArn, region)) };
    const run = worker(event, localContext(batchWorker.id, 60_000));
    inFlight.add(run);
    try {
      const result = await run;
      const failed = new Set((result?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
      return messages.filter((message) => !failed.has(message.MessageId ?? ''));
    } finally {
      inFlight.delete(run);
    }
  };

  const count = options.consumers ?? Number(process.env.LOCAL_BATCH_CONSUMERS ?? 4);
  const consumers = Array.from({ length: Math.max(1, count) }, () => {
    const consumer = Consumer.create({
      queueUrl,
      sqs,
      batchSize: 10,
      waitTimeSeconds: 20,
      messageSystemAttributeNames: ['All'],
      handleMessageBatch,
    });
    consumer.on('error', (err) => logger.warn({ err }, 'batch queue error'));
    consumer.on('processing_error', (err) => logger.warn({ err }, 'batch worker error'));
    consumer.start();
    return consumer;
  });

  return {
    endpoint,
    queueUrl,
    queueArn,
    deadLetterQueueUrl,
    deadLetterBodies: () => {
      const state = fauxqs?.inspectQueue(BATCH_DEAD_LETTER_QUEUE_NAME);
      if (!state) return [];
      const { ready, delayed, inflight } = state.messages;
      return [...ready, ...delayed, ...inflight.map((entry) => entry.message)].map((message) => message.body);
    },
    close: async () => {
      for (const consumer of consumers) consumer.stop({ abort: true });
      await Promise.allSettled([...inFlight]);
      await fauxqs?.stop();
      sqs.destroy();
    },
  };
}
