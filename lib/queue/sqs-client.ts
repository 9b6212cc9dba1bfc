import { SQSClient } from '@aws-sdk/client-sqs';
import { sqsClientConfig } from './batch-queue.ts';

/** An SQS client for the local runtime's queues and consumers (infra/local): fauxqs at `endpoint`. */
export function createSqsClient(config: { endpoint?: string; region?: string }): SQSClient {
  return new SQSClient(sqsClientConfig(config));
}
