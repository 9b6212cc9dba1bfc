import type { SendMessageBatchRequestEntry, SQSClient, SQSClientConfig } from '@aws-sdk/client-sqs';
import { defaultRegion } from '../common/config.ts';

/**
 * The batch queue as the batch use cases see it: send one message per subject, and put a failed
 * message back on the queue after a delay. Adapters take an injected SQS client (tests, fauxqs).
 */
export interface BatchQueue {
  /**
   * Sends the bodies in SendMessageBatch calls of ten (the SQS maximum). Resolves with the
   * positions (indexes into `bodies`) that SQS did not accept; a rejected call counts all its
   * entries as failed rather than throwing, so the caller can account for every subject.
   */
  sendAll(bodies: readonly string[]): Promise<{ failed: number[] }>;
  /** Makes a received message visible again after `seconds` (a retry backoff shorter than the queue's visibility timeout). */
  retryAfter(queueUrl: string, receiptHandle: string, seconds: number): Promise<void>;
  /** The queue batches are sent to; undefined in a function that only consumes (the worker). */
  readonly queueUrl: string | undefined;
}

/** SQS allows at most ten entries per SendMessageBatch. */
const SEND_BATCH_SIZE = 10;
/** Calls in flight at once when enqueueing a large batch: fast without tripping SQS throttling. */
const SEND_CONCURRENCY = 10;

export interface BatchQueueConfig {
  queueUrl?: string;
  /** Set for fauxqs (its queue URLs name a host that is not the server's address); unset on AWS. */
  endpoint?: string;
  region?: string;
}

/** The SQS client's settings: the region, and for fauxqs its endpoint and placeholder credentials. */
export function sqsClientConfig(config: { endpoint?: string; region?: string }): SQSClientConfig {
  return {
    region: config.region ?? defaultRegion(),
    ...(config.endpoint
      ? { endpoint: config.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  };
}

type SqsSdk = typeof import('@aws-sdk/client-sqs');

/**
 * The queue over SQS. The SDK's SQS client is loaded at the first send, not with the module: a
 * function that imports this module but never sends (most of them, through the composition root)
 * does not load it at its cold start.
 */
export function createBatchQueue(config: BatchQueueConfig, client?: SQSClient): BatchQueue {
  let connected: Promise<{ sdk: SqsSdk; sqs: SQSClient }> | undefined;
  const connect = () =>
    (connected ??= import('@aws-sdk/client-sqs').then((sdk) => ({
      sdk,
      sqs: client ?? new sdk.SQSClient(sqsClientConfig(config)),
    })));
  const sendChunk = async (bodies: readonly string[], offset: number): Promise<number[]> => {
    const entries: SendMessageBatchRequestEntry[] = bodies.map((body, i) => ({
      Id: String(offset + i),
      MessageBody: body,
    }));
    try {
      const { sdk, sqs } = await connect();
      const result = await sqs.send(
        new sdk.SendMessageBatchCommand({ QueueUrl: config.queueUrl, Entries: entries }),
      );
      return (result.Failed ?? []).map((failure) => Number(failure.Id));
    } catch {
      return entries.map((entry) => Number(entry.Id));
    }
  };
  return {
    queueUrl: config.queueUrl,
    async sendAll(bodies) {
      if (!config.queueUrl) throw new Error('BATCH_QUEUE_URL is not configured');
      const chunks: number[] = [];
      for (let offset = 0; offset < bodies.length; offset += SEND_BATCH_SIZE) chunks.push(offset);
      const failed: number[] = [];
      let next = 0;
      const lane = async () => {
        while (next < chunks.length) {
          const offset = chunks[next++];
          failed.push(...(await sendChunk(bodies.slice(offset, offset + SEND_BATCH_SIZE), offset)));
        }
      };
      await Promise.all(Array.from({ length: Math.min(SEND_CONCURRENCY, chunks.length) }, lane));
      return { failed: failed.sort((a, b) => a - b) };
    },
    async retryAfter(queueUrl, receiptHandle, seconds) {
      const { sdk, sqs } = await connect();
      await sqs.send(
        new sdk.ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: receiptHandle,
          VisibilityTimeout: Math.max(0, Math.round(seconds)),
        }),
      );
    },
  };
}

/**
 * The URL of the queue an SQS event record came from, for calls back to that queue
 * (arn:aws:sqs:<region>:<account>:<name> → https://sqs.<region>.amazonaws.com/<account>/<name>).
 * Locally the configured queue URL is used instead (fauxqs names its own host).
 */
export function queueUrlFromArn(arn: string): string {
  const [, partition, , region, account, name] = arn.split(':');
  const domain = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sqs.${region}.${domain}/${account}/${name}`;
}
