import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type FunctionUrl, FunctionUrlAuthType, InvokeMode } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { BATCH_MAX_RECEIVE_COUNT } from '../../../lib/batch/worker.ts';
import { batchWorker, type RouteDefinition } from '../../../lib/contract/routes.ts';
import { streamConcurrency, type TenantMix } from '../../../lib/tenancy/capacity.ts';
import { constructIdFor, ServiceFunction, type ServiceFunctionSettings } from './service-function.ts';
import { grantFairUseCounting, grantTableAccess } from './table-access.ts';

export interface BatchPipelineProps {
  settings: ServiceFunctionSettings;
  table: ITable;
  /** Manifest routes of kind `stream`; each gets its own function and response-streaming URL. */
  streamRoutes: readonly RouteDefinition[];
  /** Entry of the queue worker, relative to the project root. */
  workerEntry: string;
  /**
   * The tenants the stream functions are sized for (LockdownSettings `sizedFor`): each reserves
   * every stream those tenants' plans may hold open on its route (lib/tenancy/capacity.ts).
   */
  sizedFor: TenantMix;
  /** Reserved concurrency of the worker (LockdownSettings). */
  workerConcurrency: number;
}

/** A streaming route as deployed: the manifest entry, its function and its Function URL. */
export interface StreamEndpoint {
  route: RouteDefinition;
  handler: ServiceFunction;
  url: FunctionUrl;
}

/** Up to 10 messages of up to 10 subjects each (a rescreen run's messages) must finish well inside this. */
const WORKER_TIMEOUT = Duration.seconds(60);

/**
 * The batch path: streaming handlers fan a batch out as one SQS message per subject, a worker
 * screens each subject and records progress in the table, which the stream reports back as SSE.
 */
export class BatchPipeline extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly deadLetterAlarm: Alarm;
  readonly worker: ServiceFunction;
  readonly streamEndpoints: readonly StreamEndpoint[];

  constructor(scope: Construct, id: string, props: BatchPipelineProps) {
    super(scope, id);

    const key = props.settings.encryptionKey;
    const encryption = key
      ? { encryption: QueueEncryption.KMS, encryptionMasterKey: key }
      : { encryption: QueueEncryption.SQS_MANAGED };
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      ...encryption,
      enforceSSL: true,
    });
    this.queue = new Queue(this, 'Queue', {
      // AWS's guidance for Lambda consumers: six times the function timeout, so a message is not
      // handed to a second worker while the first is still retrying it.
      visibilityTimeout: Duration.seconds(WORKER_TIMEOUT.toSeconds() * 6),
      ...encryption,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: BATCH_MAX_RECEIVE_COUNT },
    });

    // A subject in the DLQ is a customer whose screen never completed: someone must look at once.
    this.deadLetterAlarm = new Alarm(this, 'DeadLetterAlarm', {
      alarmDescription: 'Batch subjects failed screening three times and were moved to the dead-letter queue',
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    this.worker = new ServiceFunction(this, 'Worker', {
      ...props.settings,
      entry: props.workerEntry,
      description: 'Screens one batch subject per SQS message and records batch progress',
      needsWatchlists: true,
      timeout: WORKER_TIMEOUT,
      // A large batch must not take every concurrent execution of the account from the API.
      reservedConcurrency: props.workerConcurrency,
    });
    grantTableAccess(props.table, this.worker.function, 'read-write');
    this.worker.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: batchWorker.batchSize,
        reportBatchItemFailures: true,
        // Polled no faster than the reserved executions can take, so messages are not throttled
        // back to the queue (and counted as receives towards the dead-letter queue).
        maxConcurrency: props.workerConcurrency,
      }),
    );

    this.streamEndpoints = props.streamRoutes.map((route) => {
      const handler = new ServiceFunction(this, constructIdFor(route.id), {
        ...props.settings,
        entry: route.entry,
        description: `${route.method} ${route.path}: ${route.summary}`,
        needsWatchlists: route.needsWatchlists,
        bundledFiles: route.bundledFiles,
        // Streams progress until the last subject of up to 500 completes, or an export until its
        // last record (100,000 audit entries take seconds: docs/operations.md, Export); Function URLs allow 15 min.
        timeout: Duration.minutes(10),
        // Only the routes that queue work know the queue and may send to it (not the exports).
        environment: route.sendsToQueue ? { BATCH_QUEUE_URL: this.queue.queueUrl } : {},
        // Every stream the tenants it is sized for may hold open at once on this route: no tenant,
        // nor all of them at their plans' limits, is throttled by Lambda (docs/operations.md).
        reservedConcurrency: streamConcurrency(route.planFeature, props.sizedFor),
      });
      grantTableAccess(props.table, handler.function, route.tableAccess);
      grantFairUseCounting(props.table, handler.function, route.tableAccess);
      if (route.sendsToQueue) this.queue.grantSendMessages(handler.function);
      const url = handler.function.addFunctionUrl({
        // Only CloudFront may call it (IAM auth, signed by the distribution's Origin Access
        // Control: public-endpoint.ts); the handler then authenticates X-API-Key itself.
        authType: FunctionUrlAuthType.AWS_IAM,
        invokeMode: InvokeMode.RESPONSE_STREAM,
      });
      return { route, handler, url };
    });
  }
}
