import type { SQSRecord } from 'aws-lambda';

/** An SQS event record as Lambda's event source builds it, for the `receiveCount`-th delivery. */
export function sqsRecord(
  messageId: string,
  body: string,
  receiveCount = 1,
  receiptHandle = `receipt-${messageId}`,
): SQSRecord {
  return {
    messageId,
    receiptHandle,
    body,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: '0',
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: '0',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:screening-batch',
    awsRegion: 'us-east-1',
  };
}
