import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import { Consumer } from 'sqs-consumer';
import { logger } from '../../lib/common/log.ts';
import { batchWorker } from '../../lib/contract/routes.ts';
import { localContext } from './lambda-context.ts';

export type QueueWorker = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

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

export interface ConsumerSettings {
  queueUrl: string;
  queueArn: string;
  region: string;
  consumers: number;
}

/**
 * Lambda's SQS event source, locally: sqs-consumer pollers receive up to ten messages, hand the
 * worker one SQSEvent, and delete only the messages it did not report in `batchItemFailures`.
 */
export function startConsumers(settings: ConsumerSettings, sqs: SQSClient, worker: QueueWorker) {
  const inFlight = new Set<Promise<unknown>>();
  let stopping = false;

  const handleMessageBatch = async (messages: Message[]): Promise<Message[]> => {
    const event: SQSEvent = {
      Records: messages.map((message) => toSqsRecord(message, settings.queueArn, settings.region)),
    };
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

  const consumers = Array.from({ length: Math.max(1, settings.consumers) }, () => {
    const consumer = Consumer.create({
      queueUrl: settings.queueUrl,
      sqs,
      batchSize: 10,
      waitTimeSeconds: 20,
      messageSystemAttributeNames: ['All'],
      handleMessageBatch,
    });
    consumer.on('error', (err) => {
      if (!stopping) logger.warn({ err }, 'batch queue error');
    });
    consumer.on('processing_error', (err) => logger.warn({ err }, 'batch worker error'));
    consumer.start();
    return consumer;
  });

  return {
    /** Stops polling; subjects being screened finish first. */
    async stop(): Promise<void> {
      stopping = true;
      for (const consumer of consumers) consumer.stop({ abort: true });
      await Promise.allSettled([...inFlight]);
    },
  };
}
