import { join } from 'node:path';
import { CfnOutput, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AccessLogField, AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  DomainName,
  EndpointType,
  HttpApi,
  HttpMethod,
  LogGroupLogDestination,
  PayloadFormatVersion,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import {
  batchWorker,
  fallbackRoute,
  type RouteDefinition,
  type ScheduledJobDefinition,
  scheduledJobs,
  webhookDelivery,
} from '../../lib/contract/routes.ts';
import { AccessLogBucket } from './constructs/access-log-bucket.ts';
import { AUDIT_CHAIN_ENTRY, AuditChain } from './constructs/audit-chain.ts';
import { BatchPipeline } from './constructs/batch-pipeline.ts';
import { ConsoleSite } from './constructs/console-site.ts';
import { denyExpiry, entriesSettingExpiry } from './constructs/expiry-permission.ts';
import { LIST_SYNC_ENTRY, ListSync } from './constructs/list-sync.ts';
import {
  DEFAULT_LOCKDOWN,
  dataKey,
  type LockdownSettings,
  stageThrottleOf,
  webAclFor,
} from './constructs/lockdown.ts';
import { Observability } from './constructs/observability.ts';
import { OriginSecret } from './constructs/origin-secret.ts';
import { ORIGIN_SECRET_ROTATION_ENTRY, OriginSecretRotation } from './constructs/origin-secret-rotation.ts';
import { PublicEndpoint } from './constructs/public-endpoint.ts';
import { ScreeningTable } from './constructs/screening-table.ts';
import {
  constructIdFor,
  ServiceFunction,
  type ServiceFunctionSettings,
} from './constructs/service-function.ts';
import { grantFairUseCounting, grantTableAccess } from './constructs/table-access.ts';
import { Webhooks } from './constructs/webhooks.ts';
import { type BundleSpec, FunctionBundles } from './function-bundles.ts';

/** Entry of the SQS worker that screens batch subjects (declared in the route manifest). */
export const BATCH_WORKER_ENTRY = batchWorker.entry;

/** Entry of API Gateway's `$default` route: 404 or 405 in the service's own error format. */
export const UNROUTED_REQUEST_ENTRY = fallbackRoute.entry;

export interface ScreeningServiceStackProps extends StackProps {
  /** The route manifest (lib/contract/routes.ts); every route becomes an endpoint with its own function. */
  routes: readonly RouteDefinition[];
  /** Absolute path of the repository root: entries, package-lock.json and the snapshot live there. */
  projectRoot: string;
  /** Reported by every function as SERVICE_VERSION. */
  serviceVersion: string;
  /** @default 'info' */
  logLevel?: string;
  /** @default BATCH_WORKER_ENTRY */
  batchWorkerEntry?: string;
  /** @default UNROUTED_REQUEST_ENTRY */
  unroutedRequestEntry?: string;
  /** The manifest's scheduled jobs (lib/contract/routes.ts); each gets a function and an EventBridge rule. */
  scheduledJobs?: readonly ScheduledJobDefinition[];
  /** How tightly the stack is closed (keys, throttling, WAF, concurrency); defaults: DEFAULT_LOCKDOWN. */
  lockdown?: Partial<LockdownSettings>;
}

/** Every function the stack creates, as its bundle is built (infra/cdk/function-bundles.ts). */
export function plannedBundles(props: ScreeningServiceStackProps): BundleSpec[] {
  const specs: BundleSpec[] = [
    ...props.routes,
    { entry: props.unroutedRequestEntry ?? UNROUTED_REQUEST_ENTRY },
    { entry: props.batchWorkerEntry ?? BATCH_WORKER_ENTRY, needsWatchlists: true },
    ...(props.scheduledJobs ?? scheduledJobs),
    webhookDelivery,
    { entry: LIST_SYNC_ENTRY, needsWatchlists: true },
    { entry: ORIGIN_SECRET_ROTATION_ENTRY },
    { entry: AUDIT_CHAIN_ENTRY },
  ];
  return specs.map(({ entry, needsWatchlists }) => ({ entry, needsWatchlists }));
}

/**
 * The whole service in one stack: the single table, one Lambda per HTTP route behind an HTTP
 * API, the streaming batch routes with their queue and worker, and CloudFront in front of both.
 */
export class ScreeningServiceStack extends Stack {
  constructor(scope: Construct, id: string, props: ScreeningServiceStackProps) {
    super(scope, id, props);

    const lockdown: LockdownSettings = { ...DEFAULT_LOCKDOWN, ...props.lockdown };
    const encryptionKey = lockdown.encryption === 'customer-managed' ? dataKey(this) : undefined;
    const { table } = new ScreeningTable(this, 'Screening', encryptionKey);
    const settings: ServiceFunctionSettings = {
      projectRoot: props.projectRoot,
      tableName: table.tableName,
      logLevel: props.logLevel ?? 'info',
      serviceVersion: props.serviceVersion,
      encryptionKey,
      // Every function's bundle in one esbuild build, at the first function's (bundled synths only).
      bundles: new FunctionBundles(props.projectRoot, plannedBundles(props)),
    };

    const httpRoutes = props.routes.filter((route) => route.kind === 'http');
    const streamRoutes = props.routes.filter((route) => route.kind === 'stream');

    const batch = new BatchPipeline(this, 'Batch', {
      settings,
      table,
      streamRoutes,
      workerEntry: props.batchWorkerEntry ?? BATCH_WORKER_ENTRY,
      sizedFor: lockdown.sizedFor,
      workerConcurrency: lockdown.workerConcurrency,
    });

    const webhooks = new Webhooks(this, 'Webhooks', { settings, table });
    const webhookEnvironment = (path: string) => (path.startsWith('/webhooks') ? webhooks.environment() : {});

    // Without a `$default` route API Gateway answers unknown paths with its own body; tenants
    // must see the same `{ detail }` errors (and 405 with Allow) as everywhere else.
    // Every function behind the HTTP API refuses requests that did not come through CloudFront.
    const originSecret = new OriginSecret(this, 'OriginSecret', { encryptionKey });
    const accessLogBucket = new AccessLogBucket(this, 'AccessLogs').bucket;

    const unrouted = new ServiceFunction(this, 'UnroutedRequest', {
      ...settings,
      originSecret,
      entry: props.unroutedRequestEntry ?? UNROUTED_REQUEST_ENTRY,
      description: 'Answers 404 or 405 for requests no route takes',
    });
    const apiDomain = lockdown.apiDomain
      ? new DomainName(this, 'ApiDomain', {
          domainName: lockdown.apiDomain.domainName,
          endpointType: EndpointType.REGIONAL,
          securityPolicy: SecurityPolicy.TLS_1_2,
          certificate: Certificate.fromCertificateArn(
            this,
            'ApiCertificate',
            lockdown.apiDomain.certificateArn,
          ),
        })
      : undefined;
    const httpApi = new HttpApi(this, 'HttpApi', {
      description: 'Individual Screening Service: one Lambda per endpoint',
      defaultIntegration: new HttpLambdaIntegration('UnroutedRequestIntegration', unrouted.function, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      }),
      // The stage is added below, with its throttling and access logs.
      createDefaultStage: false,
      // With a custom domain CloudFront reaches the API through it, and the execute-api endpoint
      // is off. Without one it stays on as CloudFront's origin, and the functions refuse any
      // request lacking CloudFront's origin secret (lib/http/origin-verify.ts).
      disableExecuteApiEndpoint: apiDomain !== undefined,
    });
    Validations.of(httpApi).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Every route authenticates its caller in the function (X-API-Key, lib/tenancy/auth.ts, keys stored hashed) after the CloudFront origin check; /health and the API reference are public by design',
    });
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      encryptionKey,
    });
    httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: stageThrottleOf(lockdown),
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        // No API key, body or query string: request id, route, status, latency and caller IP.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: AccessLogField.contextRequestId(),
            ip: AccessLogField.contextIdentitySourceIp(),
            method: AccessLogField.contextHttpMethod(),
            route: AccessLogField.contextRouteKey(),
            status: AccessLogField.contextStatus(),
            latencyMs: AccessLogField.contextIntegrationLatency(),
            responseLength: AccessLogField.contextResponseLength(),
          }),
        ),
      },
      ...(apiDomain ? { domainMapping: { domainName: apiDomain } } : {}),
    });
    // Functions that read earlier snapshot versions too (replay), granted once the bucket exists.
    const snapshotHistoryReaders: ServiceFunction[] = [];
    // Routes with one entry file (GET and HEAD /health) are one function: the same code, grants and
    // environment, and four resources fewer each (function, role, policy, log group) in a stack
    // near CloudFormation's 500.
    const routeFunction = (route: RouteDefinition) => {
      const endpoint = new ServiceFunction(this, constructIdFor(route.id), {
        ...settings,
        entry: route.entry,
        description: `${route.method} ${route.path}: ${route.summary}`,
        needsWatchlists: route.needsWatchlists,
        readsSnapshotVersion: route.readsSnapshotVersion,
        bundledFiles: route.bundledFiles,
        originSecret,
        environment: {
          ...(route.sendsToQueue ? { BATCH_QUEUE_URL: batch.queue.queueUrl } : {}),
          ...webhookEnvironment(route.path),
        },
      });
      grantTableAccess(table, endpoint.function, route.tableAccess);
      webhooks.grant(endpoint.function, { seals: route.sealsWebhookSecrets, sends: route.sendsWebhooks });
      if (route.auth === 'api-key') grantFairUseCounting(table, endpoint.function, route.tableAccess);
      if (route.sendsToQueue) batch.queue.grantSendMessages(endpoint.function);
      if (route.readsSnapshotHistory) snapshotHistoryReaders.push(endpoint);
      return endpoint;
    };
    // Routes of one function share its integration too (one AWS::ApiGatewayV2::Integration each
    // function, not each route); each route still has its own invoke permission.
    const functionOfEntry = new Map<
      string,
      { endpoint: ServiceFunction; route: RouteDefinition; integration: HttpLambdaIntegration }
    >();
    for (const route of httpRoutes) {
      const shared = functionOfEntry.get(route.entry);
      if (shared && !sameWiring(shared.route, route)) {
        throw new Error(
          `Routes ${shared.route.id} and ${route.id} share ${route.entry} but declare different access; give one its own entry`,
        );
      }
      const endpoint = shared?.endpoint ?? routeFunction(route);
      const integration =
        shared?.integration ??
        new HttpLambdaIntegration(`${constructIdFor(route.id)}Integration`, endpoint.function, {
          payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
        });
      functionOfEntry.set(route.entry, { endpoint, route: shared?.route ?? route, integration });
      httpApi.addRoutes({ path: route.path, methods: [HttpMethod[route.method]], integration });
    }

    const publicEndpoint = new PublicEndpoint(this, 'PublicEndpoint', {
      httpApi,
      httpRoutes,
      streamEndpoints: batch.streamEndpoints,
      apiDomainName: lockdown.apiDomain?.domainName,
      webAclId: webAclFor(this, lockdown, encryptionKey),
      originSecret,
      logBucket: accessLogBucket,
      publicDomain: lockdown.publicDomain,
    });
    // The console (/console) from S3 through the same distribution (npm run build:console first).
    new ConsoleSite(this, 'Console', {
      distribution: publicEndpoint.distribution,
      sourceDirectory: join(props.projectRoot, 'dist/console'),
      logBucket: accessLogBucket,
    });
    new OriginSecretRotation(this, 'OriginSecretRotation', {
      settings,
      secret: originSecret,
      distribution: publicEndpoint.distribution,
    });

    // Scheduled jobs: an EventBridge rule per job rather than EventBridge Scheduler, because a
    // rule hands the function the standard "Scheduled Event" (its id and time), which the job
    // uses as the run's identity and cut-off, so a retried invocation repeats the same run.
    for (const job of props.scheduledJobs ?? scheduledJobs) {
      const scheduled = new ServiceFunction(this, constructIdFor(job.id), {
        ...settings,
        entry: job.entry,
        description: job.summary,
        needsWatchlists: job.needsWatchlists,
        readsSnapshotVersion: job.readsSnapshotVersion,
        timeout: Duration.minutes(5),
        environment: {
          ...(job.sendsToQueue ? { BATCH_QUEUE_URL: batch.queue.queueUrl } : {}),
          ...(job.sendsWebhooks ? webhooks.environment() : {}),
        },
      });
      grantTableAccess(table, scheduled.function, job.tableAccess);
      webhooks.grant(scheduled.function, { sends: job.sendsWebhooks });
      if (job.sendsToQueue) batch.queue.grantSendMessages(scheduled.function);
      new Rule(this, `${constructIdFor(job.id)}Schedule`, {
        description: `${job.summary} (every ${job.everyMinutes} minutes)`,
        schedule: Schedule.rate(Duration.minutes(job.everyMinutes)),
        targets: [
          new LambdaFunction(scheduled.function, { retryAttempts: 2, maxEventAge: Duration.hours(1) }),
        ],
      });
    }

    // The daily list sync, and every function that screens (or starts a rescreen run, which names
    // the newest version) reading the snapshot it publishes.
    // The audit trail's chain writer on the table's stream, and the Object Lock bucket it anchors
    // each tenant's chain head in; the audit export ends with the newest anchor.
    const auditChain = new AuditChain(this, 'AuditChain', { settings, table, accessLogBucket });
    for (const endpoint of batch.streamEndpoints)
      if (endpoint.route.path === '/audit/export') auditChain.grantAnchorRead(endpoint.handler.function);

    const listSync = new ListSync(this, 'ListSync', {
      settings,
      table,
      queue: batch.queue,
      accessLogBucket,
    });
    for (const construct of this.node.findAll()) {
      if (
        construct instanceof ServiceFunction &&
        construct.readsSnapshotStore &&
        construct !== listSync.function
      ) {
        listSync.grantSnapshotRead(construct.function);
      }
    }
    // The work queue's worker replays past screens for a policy proposal's sandbox.
    if (batchWorker.readsSnapshotHistory) snapshotHistoryReaders.push(batch.worker);
    for (const reader of snapshotHistoryReaders) listSync.grantSnapshotHistoryRead(reader.function);

    // Only the functions that write an expiring kind may set the TTL attribute; every other one
    // is denied it, whatever else it is granted (docs/operations.md#the-ttl-attribute).
    const settingExpiry = entriesSettingExpiry([
      ...props.routes,
      batchWorker,
      ...(props.scheduledJobs ?? scheduledJobs),
    ]);
    for (const construct of this.node.findAll()) {
      if (construct instanceof ServiceFunction && !settingExpiry.has(construct.entry)) {
        denyExpiry(table, construct.function);
      }
    }
    // Last, so its dashboard's alarm panel finds every alarm of the stack.
    const observability = new Observability(this, 'Observability', {
      httpApi,
      deadLetterQueues: [
        { label: 'batch subjects', queue: batch.deadLetterQueue },
        { label: 'webhook deliveries', queue: webhooks.deadLetterQueue },
      ],
    });
    new CfnOutput(this, 'DashboardName', { value: observability.dashboard.dashboardName });
    new CfnOutput(this, 'ApiUrl', {
      description: 'The base URL tenants call (CloudFront: HTTP API and batch streams)',
      value: `https://${lockdown.publicDomain?.domainName ?? publicEndpoint.distribution.distributionDomainName}`,
    });
    new CfnOutput(this, 'HttpApiUrl', {
      description: 'The HTTP API behind CloudFront (it refuses requests that do not come through CloudFront)',
      value: lockdown.apiDomain ? `https://${lockdown.apiDomain.domainName}` : httpApi.apiEndpoint,
    });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'BatchQueueUrl', { value: batch.queue.queueUrl });
    new CfnOutput(this, 'WebhookQueueUrl', { value: webhooks.queue.queueUrl });
    new CfnOutput(this, 'WatchlistBucket', { value: listSync.bucket.bucketName });
  }
}

/** Whether two routes of one entry file declare the same access, so one function serves both. */
function sameWiring(a: RouteDefinition, b: RouteDefinition): boolean {
  const wiring = (route: RouteDefinition) =>
    JSON.stringify([
      route.auth,
      route.tableAccess,
      route.needsWatchlists,
      route.readsSnapshotHistory,
      route.readsSnapshotVersion,
      route.sendsToQueue,
      route.sealsWebhookSecrets,
      route.sendsWebhooks,
      route.bundledFiles,
      route.path.startsWith('/webhooks'),
    ]);
  return wiring(a) === wiring(b);
}
