import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_SYNC_ENTRY } from '../../infra/cdk/constructs/list-sync.ts';
import { DEFAULT_LOCKDOWN, type LockdownSettings } from '../../infra/cdk/constructs/lockdown.ts';
import { pathPatternFor } from '../../infra/cdk/constructs/public-endpoint.ts';
import { ServiceFunction } from '../../infra/cdk/constructs/service-function.ts';
import { FAIR_USE_ATTRIBUTES, TABLE_ACTIONS } from '../../infra/cdk/constructs/table-access.ts';
import { BATCH_WORKER_ENTRY, ScreeningServiceStack, UNROUTED_REQUEST_ENTRY } from '../../infra/cdk/stack.ts';
import { DEFAULT_SNAPSHOT_RETENTION_DAYS } from '../../lib/common/config.ts';
import { type RouteDefinition, routeById, routes, scheduledJobs } from '../../lib/contract/routes.ts';
import { INDEXES } from '../../lib/store/table.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const deployedRoutes: readonly RouteDefinition[] = routes;

type Resource = { Type: string; Properties: Record<string, unknown> };
type Statement = {
  Effect: string;
  Action: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
};

/** The fair-use counters' narrow UpdateItem (infra/cdk/constructs/table-access.ts grantFairUseCounting). */
const isFairUseStatement = (s: Statement) =>
  s.Condition?.['ForAllValues:StringEquals']?.['dynamodb:Attributes'] !== undefined;

/** A throwaway project root holding a lock file and an entry per route: bundling is skipped. */
function fixtureRoot(entries: readonly string[]): string {
  const root = mkdtempSync(path.join(tmpdir(), 'screening-infra-'));
  writeFileSync(path.join(root, 'package-lock.json'), '{}');
  for (const entry of entries) {
    mkdirSync(path.dirname(path.join(root, entry)), { recursive: true });
    writeFileSync(path.join(root, entry), 'export const handler = async () => ({});\n');
  }
  return root;
}

function buildStack(
  routeList: readonly RouteDefinition[],
  root: string,
  options: { lockdown?: Partial<LockdownSettings>; region?: string } = {},
): ScreeningServiceStack {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return new ScreeningServiceStack(app, 'Test', {
    routes: routeList,
    projectRoot: root,
    serviceVersion: '1.5.0',
    lockdown: options.lockdown,
    ...(options.region ? { env: { account: '111122223333', region: options.region } } : {}),
  });
}

let root: string;
let template: Template;
let resources: Record<string, Resource>;

function resourcesOf(type: string): [string, Resource][] {
  return Object.entries(resources).filter(([, r]) => r.Type === type);
}

/** The Lambda function whose description starts with the route's method and path. */
function functionFor(route: RouteDefinition): [string, Resource] {
  const matches = resourcesOf('AWS::Lambda::Function').filter(([, r]) =>
    String(r.Properties.Description).startsWith(`${route.method} ${route.path}:`),
  );
  expect(matches, `${route.method} ${route.path}`).toHaveLength(1);
  return matches[0];
}

/** Every action granted to the function's role by the stack's IAM policies. */
function statementsOf(fn: Resource): Statement[] {
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return resourcesOf('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
    .filter((s) => s.Effect === 'Allow');
}

/** The actions a function is granted, less the fair-use counters' narrow write (tested apart). */
function actionsOf(fn: Resource): string[] {
  return statementsOf(fn)
    .filter((s) => !isFairUseStatement(s))
    .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
}

beforeAll(() => {
  root = fixtureRoot([
    ...deployedRoutes.map((r) => r.entry),
    ...scheduledJobs.map((job) => job.entry),
    BATCH_WORKER_ENTRY,
    UNROUTED_REQUEST_ENTRY,
    LIST_SYNC_ENTRY,
  ]);
  template = Template.fromStack(buildStack(deployedRoutes, root));
  resources = template.toJSON().Resources as Record<string, Resource>;
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('HTTP API', () => {
  const httpRoutes = deployedRoutes.filter((r) => r.kind === 'http');

  it('has a route for every http manifest entry, each integrated with its own function', () => {
    const integrationTargets = new Set<string>();
    for (const route of httpRoutes) {
      const routeResources = resourcesOf('AWS::ApiGatewayV2::Route').filter(
        ([, r]) => r.Properties.RouteKey === `${route.method} ${route.path}`,
      );
      expect(routeResources, `${route.method} ${route.path}`).toHaveLength(1);
      const target = routeResources[0][1].Properties.Target as {
        'Fn::Join': [string, [string, { Ref: string }]];
      };
      const integration = resources[target['Fn::Join'][1][1].Ref];
      expect(integration.Properties.PayloadFormatVersion).toBe('2.0');
      const [functionId] = functionFor(route);
      expect(integration.Properties.IntegrationUri).toEqual({ 'Fn::GetAtt': [functionId, 'Arn'] });
      integrationTargets.add(functionId);
    }
    expect(integrationTargets.size).toBe(httpRoutes.length);
    // plus `$default`
    expect(resourcesOf('AWS::ApiGatewayV2::Route')).toHaveLength(httpRoutes.length + 1);
  });

  it('sends requests no route takes to the fallback function, which touches no data', () => {
    const [, route] = resourcesOf('AWS::ApiGatewayV2::Route').find(
      ([, r]) => r.Properties.RouteKey === '$default',
    )!;
    const target = route.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] };
    const integration = resources[target['Fn::Join'][1][1].Ref];
    const [functionId, fn] = resourcesOf('AWS::Lambda::Function').find(([, r]) =>
      String(r.Properties.Description).startsWith('Answers 404 or 405'),
    )!;
    expect(integration.Properties.IntegrationUri).toEqual({ 'Fn::GetAtt': [functionId, 'Arn'] });
    expect(actionsOf(fn).filter((a) => a.startsWith('dynamodb:') || a.startsWith('sqs:'))).toEqual([]);
  });

  it('every entry file the manifest and the stack name exists in the repository', () => {
    const missing = [
      ...routes.map((r) => r.entry),
      ...scheduledJobs.map((job) => job.entry),
      BATCH_WORKER_ENTRY,
      UNROUTED_REQUEST_ENTRY,
      LIST_SYNC_ENTRY,
    ].filter((entry) => !existsSync(path.join(repoRoot, entry)));
    expect(missing).toEqual([]);
  });
});

describe('table', () => {
  it('is the single on-demand table with pk/sk, every GSI of lib/store/table.ts (nine), TTL, PITR and retained on delete', () => {
    expect(resourcesOf('AWS::DynamoDB::Table')).toHaveLength(1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
        // One sparse index per access pattern, named after it (lib/store/table.ts).
        GlobalSecondaryIndexes: Object.values(INDEXES).map((index) =>
          Match.objectLike({
            IndexName: index.name,
            KeySchema: [
              { AttributeName: index.partitionKey, KeyType: 'HASH' },
              { AttributeName: index.sortKey, KeyType: 'RANGE' },
            ],
          }),
        ),
      }),
    });
    const attributes = resourcesOf('AWS::DynamoDB::Table')[0][1].Properties.AttributeDefinitions;
    expect(attributes).toEqual(
      ['pk', 'sk', ...Object.values(INDEXES).flatMap((index) => [index.partitionKey, index.sortKey])].map(
        (name) => expect.objectContaining({ AttributeName: name, AttributeType: 'S' }),
      ),
    );
  });
});

describe('functions', () => {
  it('all run nodejs22.x on arm64 with active tracing and the service environment', () => {
    const functions = resourcesOf('AWS::Lambda::Function');
    // one per route and scheduled job, plus the batch worker, the unrouted-request fallback and
    // the list sync
    expect(functions).toHaveLength(deployedRoutes.length + scheduledJobs.length + 3);
    for (const [, fn] of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(fn.Properties.Handler).toBe('index.handler');
      const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(env).toMatchObject({
        NODE_OPTIONS: '--enable-source-maps',
        LOG_LEVEL: 'info',
        SERVICE_VERSION: '1.5.0',
        TABLE_NAME: { Ref: expect.stringMatching(/^ScreeningTable/) },
      });
    }
  });

  it('each logs to its own log group kept for one month', () => {
    // Every function's group, beside the API's access logs and the WAF's log.
    const groups = resourcesOf('AWS::Logs::LogGroup').filter(
      ([id]) => !id.startsWith('ApiAccessLogs') && !id.startsWith('WebAclLogs'),
    );
    expect(groups).toHaveLength(deployedRoutes.length + scheduledJobs.length + 3);
    for (const [, group] of groups) expect(group.Properties.RetentionInDays).toBe(30);
    const referenced = new Set(
      resourcesOf('AWS::Lambda::Function').map(
        ([, fn]) => (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref,
      ),
    );
    expect(referenced.size).toBe(groups.length);
  });

  it('sizes memory by whether the function holds the watchlist index', () => {
    for (const [, fn] of resourcesOf('AWS::Lambda::Function')) {
      const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      const screens = String(fn.Properties.Description).startsWith('Screens one batch subject');
      const route = deployedRoutes.find((r) =>
        String(fn.Properties.Description).startsWith(`${r.method} ${r.path}:`),
      );
      const syncs = String(fn.Properties.Description).startsWith('Daily list sync');
      const needsWatchlists = screens || syncs || route?.needsWatchlists === true;
      expect(fn.Properties.MemorySize).toBe(syncs ? 3008 : needsWatchlists ? 1024 : 256);
      expect(env.WATCHLIST_SNAPSHOT).toBe(needsWatchlists ? '/var/task/watchlists.json' : undefined);
    }
  });
});

describe('IAM', () => {
  it('grants no wildcard action anywhere', () => {
    const actions = resourcesOf('AWS::IAM::Policy')
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
      .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.filter((a) => a === '*' || a.endsWith(':*'))).toEqual([]);
  });

  it('gives each route exactly the table access the manifest declares', () => {
    const writes = [
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:BatchWriteItem',
    ];
    for (const route of deployedRoutes) {
      const dynamo = actionsOf(functionFor(route)[1]).filter((a) => a.startsWith('dynamodb:'));
      if (route.tableAccess === 'none') expect(dynamo, route.id).toEqual([]);
      if (route.tableAccess !== 'none') expect(dynamo, route.id).toContain('dynamodb:GetItem');
      if (route.tableAccess === 'read')
        expect(
          dynamo.filter((a) => writes.includes(a)),
          route.id,
        ).toEqual([]);
      if (route.tableAccess === 'read-write')
        expect(dynamo, route.id).toEqual(expect.arrayContaining(writes));
    }
  });

  it('lets a read-only authenticated route write only the fair-use counters: UpdateItem on their attributes', () => {
    for (const route of deployedRoutes) {
      const fairUse = statementsOf(functionFor(route)[1]).filter(isFairUseStatement);
      if (route.auth !== 'api-key' || route.tableAccess !== 'read') {
        expect(fairUse, route.id).toEqual([]);
        continue;
      }
      expect(fairUse, route.id).toHaveLength(1);
      expect(fairUse[0].Action).toBe('dynamodb:UpdateItem');
      expect(fairUse[0].Condition?.['ForAllValues:StringEquals']['dynamodb:Attributes']).toEqual([
        ...FAIR_USE_ATTRIBUTES,
      ]);
    }
  });

  it('lets only queue senders send to the batch queue', () => {
    for (const route of deployedRoutes) {
      const sends = actionsOf(functionFor(route)[1]).includes('sqs:SendMessage');
      expect(sends, route.id).toBe(route.sendsToQueue === true);
    }
  });
});

describe('batch pipeline', () => {
  const streamRoutes = deployedRoutes.filter((r) => r.kind === 'stream');

  it('serves each stream route from an IAM-authenticated response-streaming Function URL', () => {
    const urls = resourcesOf('AWS::Lambda::Url');
    expect(urls).toHaveLength(streamRoutes.length);
    for (const route of streamRoutes) {
      const [functionId, fn] = functionFor(route);
      const url = urls.find(([, u]) => JSON.stringify(u.Properties.TargetFunctionArn).includes(functionId));
      expect(url?.[1].Properties).toMatchObject({ AuthType: 'AWS_IAM', InvokeMode: 'RESPONSE_STREAM' });
      const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      if (route.sendsToQueue) expect(variables, route.id).toHaveProperty('BATCH_QUEUE_URL');
      else expect(variables, route.id).not.toHaveProperty('BATCH_QUEUE_URL');
    }
  });

  it('has a queue whose visibility covers six worker timeouts and a DLQ after three receives', () => {
    const [, worker] = resourcesOf('AWS::Lambda::Function').find(([, r]) =>
      String(r.Properties.Description).startsWith('Screens one batch subject'),
    )!;
    const queues = resourcesOf('AWS::SQS::Queue');
    expect(queues).toHaveLength(2);
    const main = queues.find(([, q]) => q.Properties.RedrivePolicy)!;
    const [dlqId] = queues.find(([, q]) => !q.Properties.RedrivePolicy)!;
    expect(main[1].Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
      maxReceiveCount: 3,
    });
    expect(main[1].Properties.VisibilityTimeout).toBeGreaterThanOrEqual(
      6 * (worker.Properties.Timeout as number),
    );
  });

  it('feeds the worker 10 messages at a time and retries only the failed ones', () => {
    const [workerId] = resourcesOf('AWS::Lambda::Function').find(([, r]) =>
      String(r.Properties.Description).startsWith('Screens one batch subject'),
    )!;
    const [queueId] = resourcesOf('AWS::SQS::Queue').find(([, q]) => q.Properties.RedrivePolicy)!;
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: workerId },
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('alarms as soon as a message reaches the dead-letter queue', () => {
    const [dlqId] = resourcesOf('AWS::SQS::Queue').find(([, q]) => !q.Properties.RedrivePolicy)!;
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    });
  });
});

describe('CloudFront', () => {
  const streamRoutes = deployedRoutes.filter((r) => r.kind === 'stream');
  const uncached = {
    ViewerProtocolPolicy: 'https-only',
    AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
    // managed CachingDisabled and AllViewerExceptHostHeader policies
    CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
    OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
  };

  it('sends the default behaviour to the HTTP API and each stream path to its Function URL', () => {
    const [, distribution] = resourcesOf('AWS::CloudFront::Distribution')[0];
    const config = distribution.Properties.DistributionConfig as {
      DefaultCacheBehavior: Record<string, unknown>;
      CacheBehaviors: Record<string, unknown>[];
      Origins: { Id: string; DomainName: unknown; CustomOriginConfig: Record<string, unknown> }[];
    };
    expect(config.DefaultCacheBehavior).toMatchObject(uncached);
    const apiOrigin = config.Origins.find((o) => o.Id === config.DefaultCacheBehavior.TargetOriginId)!;
    expect(JSON.stringify(apiOrigin.DomainName)).toContain('HttpApi');
    expect(apiOrigin.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');

    expect(config.CacheBehaviors.map((b) => b.PathPattern).sort()).toEqual(
      streamRoutes.map((r) => pathPatternFor(r.path)).sort(),
    );
    for (const route of streamRoutes) {
      const behaviour = config.CacheBehaviors.find((b) => b.PathPattern === pathPatternFor(route.path))!;
      expect(behaviour).toMatchObject(uncached);
      const origin = config.Origins.find((o) => o.Id === behaviour.TargetOriginId)!;
      const [functionId] = functionFor(route);
      const [urlId] = resourcesOf('AWS::Lambda::Url').find(([, u]) =>
        JSON.stringify(u.Properties.TargetFunctionArn).includes(functionId),
      )!;
      expect(JSON.stringify(origin.DomainName)).toContain(urlId);
    }
  });

  it('streams both exports from their Function URLs, past API Gateway’s 10 MB and 30 s: /audit/export and /screens/export', () => {
    const [, distribution] = resourcesOf('AWS::CloudFront::Distribution')[0];
    const config = distribution.Properties.DistributionConfig as {
      CacheBehaviors: { PathPattern: string; TargetOriginId: string; Compress?: boolean }[];
      Origins: { Id: string; DomainName: unknown }[];
    };
    for (const path of ['/audit/export', '/screens/export']) {
      const route = deployedRoutes.find((r) => r.path === path && r.method === 'GET')!;
      expect(route.kind, path).toBe('stream');
      const behaviour = config.CacheBehaviors.find((b) => b.PathPattern === path)!;
      expect(behaviour, path).toMatchObject({ ...uncached, Compress: false });
      const [functionId, fn] = functionFor(route);
      const [urlId, url] = resourcesOf('AWS::Lambda::Url').find(([, u]) =>
        JSON.stringify(u.Properties.TargetFunctionArn).includes(functionId),
      )!;
      expect(url.Properties).toMatchObject({ AuthType: 'AWS_IAM', InvokeMode: 'RESPONSE_STREAM' });
      const origin = config.Origins.find((o) => o.Id === behaviour.TargetOriginId)!;
      expect(JSON.stringify(origin.DomainName)).toContain(urlId);
      expect(fn.Properties.Timeout).toBe(600);
      // It reads the tenant's partition and appends the export's own audit entries; it queues nothing.
      const actions = actionsOf(fn);
      expect(actions).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:PutItem']));
      expect(actions).not.toContain('sqs:SendMessage');
    }
    // Neither hides an HTTP route: GET /screens/{screen_id} and GET /audit stay on the HTTP API.
    expect(config.CacheBehaviors.map((b) => b.PathPattern)).not.toContain('/screens/*');
    expect(config.CacheBehaviors.map((b) => b.PathPattern)).not.toContain('/audit');
  });

  it('outputs the CloudFront base URL, the HTTP API URL, the table and the queue', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(Object.keys(outputs)).toEqual(
      expect.arrayContaining(['ApiUrl', 'HttpApiUrl', 'TableName', 'BatchQueueUrl']),
    );
    expect(JSON.stringify(outputs.ApiUrl.Value)).toContain('DomainName');
  });

  it('refuses a stream path that would hide an HTTP route on the same path', () => {
    const clash: RouteDefinition[] = [
      { ...routes.find((r) => r.path === '/batch/stream')! },
      { ...routes[0], id: 'batch-status', method: 'GET', path: '/batch/stream', entry: routes[0].entry },
    ];
    const clashRoot = fixtureRoot(
      clash
        .map((r) => r.entry)
        .concat(BATCH_WORKER_ENTRY, UNROUTED_REQUEST_ENTRY, ...scheduledJobs.map((job) => job.entry)),
    );
    try {
      expect(() => buildStack(clash, clashRoot)).toThrow(/would hide the HTTP route GET \/batch\/stream/);
    } finally {
      rmSync(clashRoot, { recursive: true, force: true });
    }
  });
});

describe('list sync', () => {
  type PolicyStatementJson = {
    Effect: string;
    Action: string | string[];
    Resource: unknown;
    Condition?: unknown;
  };
  const syncFunction = () => {
    const matches = resourcesOf('AWS::Lambda::Function').filter(([, r]) =>
      String(r.Properties.Description).startsWith('Daily list sync'),
    );
    expect(matches).toHaveLength(1);
    return matches[0];
  };
  const statementsOf = (fn: Resource): PolicyStatementJson[] => {
    const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    return resourcesOf('AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: PolicyStatementJson[] }).Statement);
  };
  /** The snapshot bucket (the other one holds access logs). */
  const bucketId = () => {
    const buckets = resourcesOf('AWS::S3::Bucket').filter(([, b]) => b.Properties.VersioningConfiguration);
    expect(buckets).toHaveLength(1);
    return buckets[0][0];
  };

  it('keeps snapshots in a versioned, encrypted, private bucket that refuses plain HTTP and outlives the stack', () => {
    const id = bucketId();
    const bucket = resources[id];
    expect(bucket.Properties).toMatchObject({
      VersioningConfiguration: { Status: 'Enabled' },
      // The stack's customer-managed key (checked in "locked down").
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          { ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms' }, BucketKeyEnabled: true },
        ],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    expect((resources[id] as unknown as { DeletionPolicy: string }).DeletionPolicy).toBe('Retain');
    // A replaced snapshot version expires after the retention period (five years), not before:
    // every screen younger than that can be replayed on the lists it was matched against.
    expect(bucket.Properties.LifecycleConfiguration).toEqual({
      Rules: [
        {
          NoncurrentVersionExpiration: { NoncurrentDays: DEFAULT_SNAPSHOT_RETENTION_DAYS },
          Status: 'Enabled',
        },
      ],
    });
    expect(DEFAULT_SNAPSHOT_RETENTION_DAYS).toBe(1827);
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: id },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('runs the sync function once a day from an EventBridge rule', () => {
    const [fnId, fn] = syncFunction();
    expect(fn.Properties.Timeout).toBe(900);
    expect(
      (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables.WATCHLIST_BUCKET,
    ).toEqual({
      Ref: bucketId(),
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(30 5 * * ? *)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({ Arn: { 'Fn::GetAtt': [fnId, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 2 } }),
      ],
    });
  });

  it('lets the sync write only the snapshot object, the held files, the status rows and its list-change rescreen runs', () => {
    const [, fn] = syncFunction();
    const statements = statementsOf(fn).filter((s) => s.Effect === 'Allow');
    const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(actions.filter((a) => a.startsWith('s3:')).sort()).toEqual([
      's3:DeleteObject',
      's3:GetObject',
      's3:ListBucket',
      's3:PutObject',
      's3:PutObject',
    ]);
    const put = statements.find((s) => s.Action === 's3:PutObject');
    expect(JSON.stringify(put?.Resource)).toContain('/watchlists/watchlists.json');
    // A list refused by the sanity checks is held for review under its own prefix, nowhere else.
    const held = statements.find((s) => JSON.stringify(s.Action).includes('s3:DeleteObject'));
    expect(JSON.stringify(held?.Resource)).toContain('/watchlists/held/*');
    expect(held?.Action).toEqual(['s3:PutObject', 's3:DeleteObject']);
    // Every table statement is confined to named partitions (IAM dynamodb:LeadingKeys).
    const tableGrants = statements
      .filter((s) => JSON.stringify(s.Action).includes('dynamodb:'))
      .map((s) => ({ actions: [s.Action].flat().sort(), condition: s.Condition }));
    expect(tableGrants).toEqual([
      {
        // The status rows, and each list's baseline read at the start of a run.
        actions: ['dynamodb:Query', 'dynamodb:UpdateItem'],
        condition: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['LISTS'] } },
      },
      {
        actions: ['dynamodb:Query'],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['NAMEKEY#*'] } },
      },
      {
        actions: [
          'dynamodb:BatchGetItem',
          'dynamodb:BatchWriteItem',
          'dynamodb:DeleteItem',
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
        ],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['TENANT#*', 'OPENBATCHES'] } },
      },
      {
        actions: ['dynamodb:Query'],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['TENANT#*'] } },
      },
    ]);
    // The list-change runs go to the batch queue, which the sync may send to and nothing more.
    const queueId = resourcesOf('AWS::SQS::Queue').find(([id]) =>
      JSON.stringify((fn.Properties.Environment as { Variables: unknown }).Variables).includes(id),
    )?.[0];
    expect(queueId).toBeDefined();
    expect(actions.filter((a) => a.startsWith('sqs:')).sort()).toEqual([
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:SendMessage',
    ]);
  });

  it('lets every function that screens or starts a rescreen run read the snapshot, replay read its earlier versions, and no other function touch the bucket', () => {
    const [syncId] = syncFunction();
    const historyReaders = deployedRoutes.filter((route) => route.readsSnapshotHistory);
    expect(historyReaders.map((route) => route.id)).toEqual(['screen-replay']);
    // A rescreen run names the newest published snapshot when it starts (lib/monitoring/run-lists.ts).
    const versionReaders = [...(routes as readonly RouteDefinition[]), ...scheduledJobs].filter(
      (fn) => fn.readsSnapshotVersion,
    );
    expect(versionReaders.map((fn) => fn.id).sort()).toEqual(['auto-rescreen', 'rescreen-trigger']);
    const readsVersion = (description: string) =>
      versionReaders.some((fn) =>
        'method' in fn ? description.startsWith(`${fn.method} ${fn.path}:`) : description === fn.summary,
      );
    for (const [id, fn] of resourcesOf('AWS::Lambda::Function')) {
      if (id === syncId) continue;
      const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      const description = String(fn.Properties.Description);
      const reads = env.WATCHLIST_SNAPSHOT !== undefined || readsVersion(description);
      const history = historyReaders.some((route) =>
        description.startsWith(`${route.method} ${route.path}:`),
      );
      const s3 = actionsOf(fn).filter((a) => a.startsWith('s3:'));
      expect(s3.sort(), description).toEqual(
        history
          ? ['s3:GetObject', 's3:GetObjectVersion', 's3:ListBucket']
          : reads
            ? ['s3:GetObject', 's3:ListBucket']
            : [],
      );
      // It names the retention rule the bucket applies when a version is gone.
      expect(env.SNAPSHOT_RETENTION_DAYS, description).toBe(
        history ? String(DEFAULT_SNAPSHOT_RETENTION_DAYS) : undefined,
      );
      expect(env.WATCHLIST_BUCKET, String(fn.Properties.Description)).toEqual(
        reads ? { Ref: bucketId() } : undefined,
      );
    }
  });
});

describe('scheduled jobs', () => {
  it('each manifest job has its function, an EventBridge rule at its rate targeting it, and its grants', () => {
    expect(scheduledJobs.map((job) => job.id)).toContain('auto-rescreen');
    for (const job of scheduledJobs) {
      const [functionId, fn] = resourcesOf('AWS::Lambda::Function').find(
        ([, r]) => r.Properties.Description === job.summary,
      )!;
      const rules = resourcesOf('AWS::Events::Rule').filter(([, r]) =>
        (r.Properties.Targets as { Arn: unknown }[]).some(
          (target) => JSON.stringify(target.Arn) === JSON.stringify({ 'Fn::GetAtt': [functionId, 'Arn'] }),
        ),
      );
      expect(rules, job.id).toHaveLength(1);
      expect(rules[0][1].Properties.ScheduleExpression).toBe(
        job.everyMinutes === 60
          ? 'rate(1 hour)'
          : job.everyMinutes === 24 * 60
            ? 'rate(1 day)'
            : `rate(${job.everyMinutes} minutes)`,
      );
      const actions = actionsOf(fn);
      expect(actions).toContain('dynamodb:UpdateItem');
      if (job.sendsToQueue) expect(actions).toContain('sqs:SendMessage');
      else expect(actions.filter((a) => a.startsWith('sqs:'))).toEqual([]);
      const permissions = resourcesOf('AWS::Lambda::Permission').filter(
        ([, r]) =>
          r.Properties.Principal === 'events.amazonaws.com' &&
          JSON.stringify(r.Properties.FunctionName) === JSON.stringify({ 'Fn::GetAtt': [functionId, 'Arn'] }),
      );
      expect(permissions, job.id).toHaveLength(1);
    }
  });
});

describe('the retention purge', () => {
  it('runs daily from its own rule, may read and delete screens and write its audit entry, and sends nothing to the queue', () => {
    const purge = scheduledJobs.find((job) => job.id === 'retention-purge')!;
    const [functionId, fn] = resourcesOf('AWS::Lambda::Function').find(
      ([, r]) => r.Properties.Description === purge.summary,
    )!;
    const [rule] = resourcesOf('AWS::Events::Rule').filter(([, r]) =>
      (r.Properties.Targets as { Arn: unknown }[]).some(
        (target) => JSON.stringify(target.Arn) === JSON.stringify({ 'Fn::GetAtt': [functionId, 'Arn'] }),
      ),
    );
    expect(rule[1].Properties.ScheduleExpression).toBe('rate(1 day)');
    const actions = actionsOf(fn);
    for (const needed of [
      'dynamodb:Query',
      'dynamodb:GetItem',
      'dynamodb:DeleteItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ])
      expect(actions).toContain(needed);
    expect(actions.filter((a) => a.startsWith('sqs:') || a.startsWith('s3:'))).toEqual([]);
  });
});

describe('locked down', () => {
  const streamRoutes = deployedRoutes.filter((r) => r.kind === 'stream');
  const only = (type: string, from: Record<string, Resource>) =>
    Object.values(from).filter((r) => r.Type === type);
  const build = (options: Parameters<typeof buildStack>[2]) =>
    Template.fromStack(buildStack(deployedRoutes, root, options)).toJSON().Resources as Record<
      string,
      Resource
    >;

  it('lets only CloudFront call the stream Function URLs: IAM auth signed by Origin Access Control', () => {
    const [control] = only('AWS::CloudFront::OriginAccessControl', resources);
    expect(control.Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 'lambda',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    const [, distribution] = resourcesOf('AWS::CloudFront::Distribution')[0];
    const origins = (distribution.Properties.DistributionConfig as { Origins: Record<string, unknown>[] })
      .Origins;
    expect(origins.filter((o) => o.OriginAccessControlId)).toHaveLength(streamRoutes.length);
    for (const route of streamRoutes) {
      const [functionId] = functionFor(route);
      const [urlId] = resourcesOf('AWS::Lambda::Url').find(([, u]) =>
        JSON.stringify(u.Properties.TargetFunctionArn).includes(functionId),
      )!;
      const invokers = resourcesOf('AWS::Lambda::Permission').filter(
        ([, p]) =>
          JSON.stringify(p.Properties.FunctionName).includes(urlId) &&
          p.Properties.Action === 'lambda:InvokeFunctionUrl',
      );
      expect(
        invokers.map(([, p]) => p.Properties.Principal),
        route.id,
      ).toEqual(['cloudfront.amazonaws.com']);
      expect(JSON.stringify(invokers[0][1].Properties.SourceArn), route.id).toContain('distribution/');
    }
    // Nobody else may call a Function URL.
    const urlInvokers = resourcesOf('AWS::Lambda::Permission').filter(
      ([, p]) => p.Properties.Action === 'lambda:InvokeFunctionUrl',
    );
    expect(urlInvokers.every(([, p]) => p.Properties.Principal === 'cloudfront.amazonaws.com')).toBe(true);
  });

  it('throttles the API stage and writes its access logs, without keys or bodies', () => {
    const [stage] = only('AWS::ApiGatewayV2::Stage', resources);
    expect(stage.Properties).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: {
        ThrottlingRateLimit: DEFAULT_LOCKDOWN.throttle.rateLimit,
        ThrottlingBurstLimit: DEFAULT_LOCKDOWN.throttle.burstLimit,
      },
    });
    const logs = stage.Properties.AccessLogSettings as { DestinationArn: unknown; Format: string };
    expect(JSON.stringify(logs.DestinationArn)).toContain('ApiAccessLogs');
    expect(logs.Format).toContain('$context.requestId');
    expect(logs.Format).not.toMatch(/api-key|x-api-key|body/i);
  });

  it('reserves concurrency for the stream functions and the worker, and caps the queue source at it', () => {
    for (const route of streamRoutes)
      expect(functionFor(route)[1].Properties.ReservedConcurrentExecutions, route.id).toBe(
        DEFAULT_LOCKDOWN.streamConcurrency,
      );
    const [, worker] = resourcesOf('AWS::Lambda::Function').find(([, r]) =>
      String(r.Properties.Description).startsWith('Screens one batch subject'),
    )!;
    expect(worker.Properties.ReservedConcurrentExecutions).toBe(DEFAULT_LOCKDOWN.workerConcurrency);
    const [mapping] = only('AWS::Lambda::EventSourceMapping', resources);
    expect(mapping.Properties.ScalingConfig).toEqual({
      MaximumConcurrency: DEFAULT_LOCKDOWN.workerConcurrency,
    });
  });

  it('grants no function Scan, and writes (Put, Update, Delete, BatchWrite) only to writers', () => {
    const writes = [
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:BatchWriteItem',
    ];
    for (const [, fn] of resourcesOf('AWS::Lambda::Function')) {
      const dynamo = actionsOf(fn).filter((a) => a.startsWith('dynamodb:'));
      expect(dynamo, String(fn.Properties.Description)).not.toContain('dynamodb:Scan');
      expect(dynamo, String(fn.Properties.Description)).not.toContain('dynamodb:DescribeTable');
    }
    for (const route of deployedRoutes.filter((r) => r.tableAccess === 'read')) {
      const dynamo = actionsOf(functionFor(route)[1]).filter((a) => a.startsWith('dynamodb:'));
      expect(new Set(dynamo), route.id).toEqual(new Set(TABLE_ACTIONS.read));
      expect(
        dynamo.filter((a) => writes.includes(a)),
        route.id,
      ).toEqual([]);
    }
  });

  it('keeps the execute-api endpoint on only without a custom domain; with one, CloudFront goes through it', () => {
    const [api] = only('AWS::ApiGatewayV2::Api', resources);
    expect(api.Properties.DisableExecuteApiEndpoint).toBeFalsy();

    const domainName = 'api.screening.example.com';
    const locked = build({
      lockdown: {
        apiDomain: { domainName, certificateArn: 'arn:aws:acm:eu-west-2:111122223333:certificate/abc' },
      },
    });
    expect(only('AWS::ApiGatewayV2::Api', locked)[0].Properties.DisableExecuteApiEndpoint).toBe(true);
    expect(only('AWS::ApiGatewayV2::DomainName', locked)[0].Properties.DomainName).toBe(domainName);
    expect(only('AWS::ApiGatewayV2::ApiMapping', locked)).toHaveLength(1);
    const config = only('AWS::CloudFront::Distribution', locked)[0].Properties.DistributionConfig as {
      DefaultCacheBehavior: { TargetOriginId: string };
      Origins: { Id: string; DomainName: unknown }[];
    };
    const apiOrigin = config.Origins.find((o) => o.Id === config.DefaultCacheBehavior.TargetOriginId)!;
    expect(apiOrigin.DomainName).toBe(domainName);
  });

  it('puts a WAF web ACL in front of the distribution in every default template, or the web ACL it is given', () => {
    const attached = (d: Record<string, Resource>) =>
      (only('AWS::CloudFront::Distribution', d)[0].Properties.DistributionConfig as { WebACLId?: unknown })
        .WebACLId;
    // Environment-agnostic (`npm run synth` with no account): its own ACL, and a template rule
    // that refuses a deploy outside us-east-1, where CLOUDFRONT-scope ACLs must live.
    const [aclId] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::WAFv2::WebACL')!;
    expect(attached(resources)).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    const rules = template.toJSON().Rules as Record<string, { Assertions: { Assert: unknown }[] }>;
    expect(JSON.stringify(Object.values(rules).map((r) => r.Assertions))).toContain('"us-east-1"');

    const east = build({ region: 'us-east-1' });
    expect(only('AWS::WAFv2::WebACL', east)).toHaveLength(1);
    expect(JSON.stringify(attached(east))).toContain('WebAcl');

    const given = 'arn:aws:wafv2:us-east-1:111122223333:global/webacl/screening/0123';
    const elsewhere = build({ region: 'eu-west-2', lockdown: { webAclArn: given } });
    expect(only('AWS::WAFv2::WebACL', elsewhere)).toEqual([]);
    expect(attached(elsewhere)).toBe(given);
    // Another region without an ACL to attach: refused, never a distribution without a WAF.
    expect(() => build({ region: 'eu-west-2' })).toThrow(/web ACL must be created in us-east-1/);
  });

  it('blocks by rate, IP reputation, known bad inputs and the common rules, letting only batch bodies past 8 KB', () => {
    const [acl] = only('AWS::WAFv2::WebACL', resources);
    expect(acl.Properties.Scope).toBe('CLOUDFRONT');
    type Rule = {
      Name: string;
      Priority: number;
      Action?: unknown;
      OverrideAction?: unknown;
      Statement: Record<string, unknown>;
    };
    const rules = acl.Properties.Rules as Rule[];
    expect(rules[0]).toMatchObject({
      Action: { Block: {} },
      Statement: { RateBasedStatement: { Limit: DEFAULT_LOCKDOWN.wafRateLimit, AggregateKeyType: 'IP' } },
    });
    const managed = (name: string) =>
      rules.find(
        (r) => (r.Statement.ManagedRuleGroupStatement as { Name?: string } | undefined)?.Name === name,
      );
    for (const name of [
      'AWSManagedRulesAmazonIpReputationList',
      'AWSManagedRulesKnownBadInputsRuleSet',
      'AWSManagedRulesCommonRuleSet',
    ]) {
      // The group's own actions apply (block), not a blanket count.
      expect(managed(name), name).toMatchObject({
        OverrideAction: { None: {} },
        Statement: { ManagedRuleGroupStatement: { VendorName: 'AWS' } },
      });
    }
    // A batch of 500 subjects is far past 8 KB: the common set's body-size rule only counts...
    const common = managed('AWSManagedRulesCommonRuleSet')!;
    expect(
      (common.Statement.ManagedRuleGroupStatement as { RuleActionOverrides: unknown }).RuleActionOverrides,
    ).toEqual([{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }]);
    // ...and a later rule blocks what it labelled, except on the batch routes.
    const largeBody = rules.find((r) => r.Name === 'large-body-outside-batch')!;
    expect(largeBody.Priority).toBeGreaterThan(common.Priority);
    expect(largeBody).toMatchObject({
      Action: { Block: {} },
      Statement: {
        AndStatement: {
          Statements: [
            {
              LabelMatchStatement: {
                Scope: 'LABEL',
                Key: 'awswaf:managed:aws:core-rule-set:SizeRestrictions_Body',
              },
            },
            {
              NotStatement: {
                Statement: {
                  ByteMatchStatement: {
                    FieldToMatch: { UriPath: {} },
                    PositionalConstraint: 'STARTS_WITH',
                    SearchString: '/batch/',
                  },
                },
              },
            },
          ],
        },
      },
    });
    // Every route that takes a large body is under that prefix (the exports are GETs: no body).
    for (const route of streamRoutes.filter((r) => r.method !== 'GET'))
      expect(route.path.startsWith('/batch/'), route.id).toBe(true);
    expect(new Set(rules.map((r) => r.Priority)).size).toBe(rules.length);
  });

  it('logs the WAF to an encrypted aws-waf-logs- log group, the API key redacted', () => {
    const [logging] = only('AWS::WAFv2::LoggingConfiguration', resources);
    const [aclId] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::WAFv2::WebACL')!;
    expect(logging.Properties.ResourceArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    const [groupId, group] = Object.entries(resources).find(([id]) => id.startsWith('WebAclLogs'))!;
    expect(JSON.stringify(group.Properties.LogGroupName)).toContain('aws-waf-logs-');
    expect(JSON.stringify(group.Properties.KmsKeyId)).toContain('DataKey');
    const destination = JSON.stringify(logging.Properties.LogDestinationConfigs);
    expect(destination).toContain(groupId);
    expect(destination).not.toContain(':*');
    expect(logging.Properties.RedactedFields).toEqual(
      expect.arrayContaining([{ SingleHeader: { Name: 'x-api-key' } }]),
    );
  });

  it('writes CloudFront access logs to an encrypted, private log bucket that expires them', () => {
    const [, distribution] = resourcesOf('AWS::CloudFront::Distribution')[0];
    const logging = (
      distribution.Properties.DistributionConfig as { Logging: { Bucket: unknown; Prefix: string } }
    ).Logging;
    expect(logging.Prefix).toBe('cloudfront/');
    const [logBucketId, logBucket] = resourcesOf('AWS::S3::Bucket').find(
      ([, b]) => !b.Properties.VersioningConfiguration,
    )!;
    expect(JSON.stringify(logging.Bucket)).toContain(logBucketId);
    expect(logBucket.Properties).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, RestrictPublicBuckets: true },
      LifecycleConfiguration: { Rules: [{ ExpirationInDays: 90, Status: 'Enabled' }] },
    });
    // The snapshot bucket's own access logs go there too.
    const [, snapshots] = resourcesOf('AWS::S3::Bucket').find(
      ([, b]) => b.Properties.VersioningConfiguration,
    )!;
    expect(JSON.stringify(snapshots.Properties.LoggingConfiguration)).toContain(logBucketId);
  });

  it('makes CloudFront send the origin secret to the HTTP API, and every HTTP function check it', () => {
    const [secretId, secret] = Object.entries(resources).find(
      ([, r]) => r.Type === 'AWS::SecretsManager::Secret',
    )!;
    expect(JSON.stringify(secret.Properties.KmsKeyId)).toContain('DataKey');
    const [, distribution] = resourcesOf('AWS::CloudFront::Distribution')[0];
    const config = distribution.Properties.DistributionConfig as {
      DefaultCacheBehavior: { TargetOriginId: string };
      Origins: {
        Id: string;
        OriginCustomHeaders?: { HeaderName: string; HeaderValue: unknown }[];
        CustomOriginConfig?: { OriginSSLProtocols: string[] };
      }[];
    };
    const apiOrigin = config.Origins.find((o) => o.Id === config.DefaultCacheBehavior.TargetOriginId)!;
    expect(apiOrigin.CustomOriginConfig?.OriginSSLProtocols).toEqual(['TLSv1.2']);
    const [header] = apiOrigin.OriginCustomHeaders!;
    expect(header.HeaderName).toBe('x-origin-verify');
    // A dynamic reference, resolved by CloudFormation at deploy: the value is in no template.
    const value = JSON.stringify(header.HeaderValue);
    expect(value).toContain('{{resolve:secretsmanager:');
    expect(value).toContain(secretId);

    const checkers = [...deployedRoutes.filter((r) => r.kind === 'http').map(functionFor)];
    checkers.push(
      resourcesOf('AWS::Lambda::Function').find(([, r]) =>
        String(r.Properties.Description).startsWith('Answers 404 or 405'),
      )!,
    );
    for (const [, fn] of checkers) {
      const description = String(fn.Properties.Description);
      const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(env.ORIGIN_SECRET_ID, description).toEqual({ Ref: secretId });
      expect(JSON.stringify(fn.Properties.Layers), description).toMatch(/paramsandsecrets/i);
      expect(actionsOf(fn), description).toContain('secretsmanager:GetSecretValue');
    }
    // The stream URLs are closed by Origin Access Control instead; nothing else reads the secret.
    const readers = resourcesOf('AWS::Lambda::Function').filter(([, fn]) =>
      actionsOf(fn).includes('secretsmanager:GetSecretValue'),
    );
    expect(readers).toHaveLength(checkers.length);
  });

  it('sends a rotated origin secret version when told, and TLS 1.2 at least wherever a certificate is given', () => {
    const version = '0b5f3f1e-1111-2222-3333-444455556666';
    const locked = build({
      lockdown: {
        originSecretVersion: version,
        apiDomain: {
          domainName: 'api.screening.example.com',
          certificateArn: 'arn:aws:acm:eu-west-2:111122223333:certificate/abc',
        },
        publicDomain: {
          domainName: 'screening.example.com',
          certificateArn: 'arn:aws:acm:us-east-1:111122223333:certificate/def',
        },
      },
    });
    const config = only('AWS::CloudFront::Distribution', locked)[0].Properties.DistributionConfig as {
      Aliases: string[];
      ViewerCertificate: Record<string, unknown>;
      Origins: { OriginCustomHeaders?: { HeaderValue: unknown }[] }[];
    };
    const header = config.Origins.find((o) => o.OriginCustomHeaders)!.OriginCustomHeaders![0];
    expect(JSON.stringify(header.HeaderValue)).toContain(`::${version}}}`);
    expect(config.Aliases).toEqual(['screening.example.com']);
    expect(config.ViewerCertificate).toMatchObject({
      AcmCertificateArn: 'arn:aws:acm:us-east-1:111122223333:certificate/def',
      MinimumProtocolVersion: 'TLSv1.2_2021',
      SslSupportMethod: 'sni-only',
    });
    const [domain] = only('AWS::ApiGatewayV2::DomainName', locked);
    expect(domain.Properties.DomainNameConfigurations).toEqual([
      expect.objectContaining({ SecurityPolicy: 'TLS_1_2', EndpointType: 'REGIONAL' }),
    ]);
  });

  it('encrypts the table, queues, log groups, buckets of data and the origin secret with one rotated customer-managed key by default', () => {
    const keys = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::KMS::Key');
    expect(keys).toHaveLength(1);
    const [keyId, key] = keys[0];
    expect(key.Properties.EnableKeyRotation).toBe(true);
    const usesKey = (value: unknown) => JSON.stringify(value).includes(keyId);
    // CloudWatch Logs may use it, for this account's log groups only.
    const statements = (key.Properties.KeyPolicy as { Statement: Record<string, unknown>[] }).Statement;
    const logs = statements.find((st) => JSON.stringify(st.Principal).includes('logs.'))!;
    expect(JSON.stringify(logs.Condition)).toContain('kms:EncryptionContext:aws:logs:arn');

    const [table] = only('AWS::DynamoDB::Table', resources);
    expect(table.Properties.SSESpecification).toMatchObject({ SSEEnabled: true, SSEType: 'KMS' });
    expect(usesKey(table.Properties.SSESpecification)).toBe(true);
    const queues = only('AWS::SQS::Queue', resources);
    expect(queues).toHaveLength(2);
    for (const queue of queues) expect(usesKey(queue.Properties.KmsMasterKeyId)).toBe(true);
    const groups = only('AWS::Logs::LogGroup', resources);
    expect(groups.length).toBeGreaterThan(deployedRoutes.length);
    for (const group of groups) expect(usesKey(group.Properties.KmsKeyId)).toBe(true);
    const [, snapshots] = resourcesOf('AWS::S3::Bucket').find(
      ([, b]) => b.Properties.VersioningConfiguration,
    )!;
    expect(JSON.stringify(snapshots.Properties.BucketEncryption)).toContain('aws:kms');
    expect(usesKey(snapshots.Properties.BucketEncryption)).toBe(true);
    expect(usesKey(only('AWS::SecretsManager::Secret', resources)[0].Properties.KmsKeyId)).toBe(true);
    // Functions that touch the table can use the key; the fallback function, which touches no data, cannot.
    const kmsUsers = Object.values(resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .filter((p) => JSON.stringify(p.Properties.PolicyDocument).includes('kms:Decrypt'));
    expect(kmsUsers.length).toBeGreaterThan(deployedRoutes.length / 2);

    // Opting out (-c encryption=aws-managed) leaves no key to pay for.
    expect(only('AWS::KMS::Key', build({ lockdown: { encryption: 'aws-managed' } }))).toEqual([]);
  });
});

describe('cdk-nag (AwsSolutions)', () => {
  /** Synthesises with the AwsSolutions pack as `npm run synth` does; the error lists any finding left. */
  const nagFindings = (stack: Stack): string => {
    Validations.of(stack.node.root as App).addPlugins(new AwsSolutionsChecks(stack.node.root as App));
    try {
      (stack.node.root as App).synth();
      return '';
    } catch (error) {
      return (error as Error).message;
    }
  };
  const nagApp = (lockdown?: Partial<LockdownSettings>) => buildStack(deployedRoutes, root, { lockdown });

  it('finds nothing unacknowledged in the default stack, nor with every option set', () => {
    expect(nagFindings(nagApp())).toBe('');
    expect(
      nagFindings(
        nagApp({
          encryption: 'aws-managed',
          apiDomain: {
            domainName: 'api.screening.example.com',
            certificateArn: 'arn:aws:acm:eu-west-2:111122223333:certificate/abc',
          },
          publicDomain: {
            domainName: 'screening.example.com',
            certificateArn: 'arn:aws:acm:us-east-1:111122223333:certificate/def',
          },
        }),
      ),
    ).toBe('');
  });

  it('fails on a finding nobody acknowledged', () => {
    const stack = nagApp();
    // A bucket that allows plain HTTP and logs nothing: AwsSolutions-S1 and -S10.
    new Bucket(stack, 'Careless', { encryption: BucketEncryption.S3_MANAGED });
    const findings = nagFindings(stack);
    expect(findings).toContain('AwsSolutions-S10');
    expect(findings).toContain('Careless');
  });
});

describe('reference page', () => {
  const assetRoute = routeById('reference-asset');
  const files = assetRoute.bundledFiles!;
  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

  it('tells only the asset function where its bundled Swagger UI files are', () => {
    for (const [, fn] of resourcesOf('AWS::Lambda::Function')) {
      const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      const serves = String(fn.Properties.Description).startsWith(`GET ${assetRoute.path}:`);
      expect(env[files.variable], String(fn.Properties.Description)).toBe(
        serves ? `/var/task/${files.into}` : undefined,
      );
    }
  });

  // The template tests above skip bundling; this one bundles the asset function for real
  // (esbuild, as `cdk deploy` does) and runs the bundled handler against its own package.
  it('bundles every Swagger UI file the asset function serves, and the bundled handler serves each byte for byte', () => {
    const outdir = mkdtempSync(path.join(tmpdir(), 'screening-bundle-'));
    try {
      // Asset metadata names the package's folder in the assembly, as the CDK CLI records it.
      const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
      const stack = new Stack(app, 'ReferenceBundle');
      new ServiceFunction(stack, 'ReferenceAsset', {
        projectRoot: repoRoot,
        tableName: 'unused',
        logLevel: 'silent',
        serviceVersion: '1.5.0',
        entry: assetRoute.entry,
        bundledFiles: assetRoute.bundledFiles,
      });
      const assembly = app.synth();
      const template = assembly.getStackByName('ReferenceBundle').template as {
        Resources: Record<string, Resource & { Metadata?: Record<string, string> }>;
      };
      const [fn] = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
      const packageDir = path.join(assembly.directory, fn.Metadata!['aws:asset:path']);
      const filesDir = String(
        (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables[files.variable],
      );
      expect(filesDir.startsWith('/var/task/')).toBe(true);

      for (const file of files.files) {
        const packaged = path.join(packageDir, filesDir.slice('/var/task/'.length), file);
        expect(existsSync(packaged), file).toBe(true);
      }

      // The bundled handler, in a process of its own, with the folder its environment names and,
      // as the nodejs22.x runtime provides, the AWS SDK (the only package left out of the bundle).
      mkdirSync(path.join(outdir, 'node_modules'));
      symlinkSync(path.join(repoRoot, 'node_modules/@aws-sdk'), path.join(outdir, 'node_modules/@aws-sdk'));
      const run = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const { handler } = await import(${JSON.stringify(pathToFileURL(path.join(packageDir, 'index.mjs')).href)});
           const out = {};
           for (const name of ${JSON.stringify([...files.files, 'reference-page.js', 'package.json'])}) {
             const res = await handler({ version: '2.0', routeKey: 'GET /docs/{asset}', rawPath: '/docs/' + name,
               headers: {}, pathParameters: { asset: name }, isBase64Encoded: false,
               requestContext: { http: { method: 'GET', path: '/docs/' + name }, requestId: 'bundle-test' } }, {});
             const body = Buffer.from(res.body, res.isBase64Encoded ? 'base64' : 'utf8');
             out[name] = { status: res.statusCode, type: res.headers['content-type'],
               sha256: (await import('node:crypto')).createHash('sha256').update(body).digest('hex') };
           }
           process.stdout.write(JSON.stringify(out));`,
        ],
        {
          encoding: 'utf8',
          env: {
            PATH: process.env.PATH,
            TABLE_NAME: 'unused',
            AWS_REGION: 'eu-west-2',
            LOG_LEVEL: 'silent',
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
            [files.variable]: path.join(packageDir, filesDir.slice('/var/task/'.length)),
          },
        },
      );
      expect(run.stderr).toBe('');
      const served = JSON.parse(run.stdout) as Record<
        string,
        { status: number; type: string; sha256: string }
      >;
      for (const file of files.files) {
        const source = readFileSync(path.join(repoRoot, files.from, file));
        expect(served[file], file).toMatchObject({ status: 200, sha256: sha256(source) });
      }
      expect(served['reference-page.js']).toMatchObject({
        status: 200,
        type: 'text/javascript; charset=utf-8',
      });
      expect(served['package.json'].status).toBe(404);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
