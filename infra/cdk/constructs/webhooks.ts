import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC } from '../../../lib/common/metrics.ts';
import { webhookDelivery } from '../../../lib/contract/routes.ts';
import { attemptsOf, RETRY_DELAYS_SECONDS } from '../../../lib/webhooks/retry.ts';
import { serviceMetric } from './observability.ts';
import { ServiceFunction, type ServiceFunctionSettings } from './service-function.ts';
import { grantTableAccess } from './table-access.ts';

export interface WebhooksProps {
  settings: ServiceFunctionSettings;
  table: ITable;
}

/** Ten deliveries at once, each bounded by the 10 s receiver timeout, finish well inside this. */
const DELIVERY_TIMEOUT = Duration.seconds(30);

/**
 * Webhook delivery (docs/webhooks.md): the key that seals endpoint secrets' data keys, the
 * delivery queue and its dead-letter queue, the delivery function (SQS event source; egress to
 * the internet, the address guard in the code keeps it off private addresses), and two alarms:
 * a delivery in the DLQ, and an endpoint marked failing (the function's embedded metric).
 */
export class Webhooks extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly secretsKey: Key;
  readonly delivery: ServiceFunction;
  readonly deadLetterAlarm: Alarm;
  readonly failingAlarm: Alarm;

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    const key = props.settings.encryptionKey;
    const encryption = key
      ? { encryption: QueueEncryption.KMS, encryptionMasterKey: key }
      : { encryption: QueueEncryption.SQS_MANAGED };
    this.secretsKey = new Key(this, 'SecretsKey', {
      description: 'Individual Screening Service: seals webhook signing secrets (data keys)',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      ...encryption,
      enforceSSL: true,
    });
    this.queue = new Queue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(DELIVERY_TIMEOUT.toSeconds() * 6),
      // The retry schedule spans 31.6 hours; SQS keeps a message 14 days at most.
      retentionPeriod: Duration.days(4),
      ...encryption,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: attemptsOf(RETRY_DELAYS_SECONDS) },
    });
    this.delivery = new ServiceFunction(this, 'Delivery', {
      ...props.settings,
      entry: webhookDelivery.entry,
      description: webhookDelivery.summary,
      timeout: DELIVERY_TIMEOUT,
      environment: this.environment(),
    });
    grantTableAccess(props.table, this.delivery.function, webhookDelivery.tableAccess);
    this.secretsKey.grantDecrypt(this.delivery.function);
    this.delivery.function.addEventSource(
      new SqsEventSource(this.queue, { batchSize: webhookDelivery.batchSize, reportBatchItemFailures: true }),
    );
    // ChangeMessageVisibility: the wait before a failed delivery's next attempt.
    this.queue.grant(this.delivery.function, 'sqs:ChangeMessageVisibility');
    this.deadLetterAlarm = new Alarm(this, 'DeadLetterAlarm', {
      alarmDescription: 'A webhook delivery failed every attempt over 31.6 hours and was dead-lettered',
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.failingAlarm = new Alarm(this, 'FailingEndpointsAlarm', {
      alarmDescription: 'A webhook endpoint was marked failing (or disabled after 72 hours failing)',
      metric: serviceMetric(METRIC.webhookEndpointsFailing),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }

  /** What a function using the webhook code reads: the queue and the secrets key. */
  environment(): Record<string, string> {
    return { WEBHOOK_QUEUE_URL: this.queue.queueUrl, WEBHOOK_KMS_KEY_ID: this.secretsKey.keyArn };
  }

  /** Least privilege: sealing needs GenerateDataKey, sending the queue's SendMessage. */
  grant(fn: IFunction, needs: { seals?: boolean; sends?: boolean }): void {
    if (needs.seals) this.secretsKey.grant(fn, 'kms:GenerateDataKey');
    if (needs.sends) this.queue.grantSendMessages(fn);
  }
}
