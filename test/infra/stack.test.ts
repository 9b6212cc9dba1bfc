import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_SYNC_ENTRY } from '../../infra/constructs/list-sync.ts';
import { pathPatternFor } from '../../infra/constructs/public-endpoint.ts';
import { BATCH_WORKER_ENTRY, ScreeningServiceStack, UNROUTED_REQUEST_ENTRY } from '../../infra/stack.ts';
import { type RouteDefinition, routes, scheduledJobs } from '../../lib/routes.ts';
import { INDEXES } from '../../lib/store/table.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const deployedRoutes: readonly RouteDefinition[] = routes;

type Resource = { Type: string; Properties: Record<string, unknown> };
type Statement = { Effect: string; Action: string | string[] };

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

function buildStack(routeList: readonly RouteDefinition[], root: string): ScreeningServiceStack {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  return new ScreeningServiceStack(app, 'Test', {
    routes: routeList,
    projectRoot: root,
    serviceVersion: '1.5.0',
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
function actionsOf(fn: Resource): string[] {
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return resourcesOf('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
    .filter((s) => s.Effect === 'Allow')
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
  it('is the single on-demand table with pk/sk, two GSIs, TTL, PITR and retained on delete', () => {
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
    const groups = resourcesOf('AWS::Logs::LogGroup');
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

  it('lets only queue senders send to the batch queue', () => {
    for (const route of deployedRoutes) {
      const sends = actionsOf(functionFor(route)[1]).includes('sqs:SendMessage');
      expect(sends, route.id).toBe(route.kind === 'stream' || route.sendsToQueue === true);
    }
  });
});

describe('batch pipeline', () => {
  const streamRoutes = deployedRoutes.filter((r) => r.kind === 'stream');

  it('serves each stream route from a response-streaming Function URL that passes X-API-Key through', () => {
    const urls = resourcesOf('AWS::Lambda::Url');
    expect(urls).toHaveLength(streamRoutes.length);
    for (const route of streamRoutes) {
      const [functionId, fn] = functionFor(route);
      const url = urls.find(([, u]) => JSON.stringify(u.Properties.TargetFunctionArn).includes(functionId));
      expect(url?.[1].Properties).toMatchObject({ AuthType: 'NONE', InvokeMode: 'RESPONSE_STREAM' });
      expect((fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables).toHaveProperty(
        'BATCH_QUEUE_URL',
      );
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
  const bucketId = () => {
    const buckets = resourcesOf('AWS::S3::Bucket');
    expect(buckets).toHaveLength(1);
    return buckets[0][0];
  };

  it('keeps snapshots in a versioned, encrypted, private bucket that refuses plain HTTP and outlives the stack', () => {
    const [id, bucket] = resourcesOf('AWS::S3::Bucket')[0];
    expect(bucket.Properties).toMatchObject({
      VersioningConfiguration: { Status: 'Enabled' },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    expect((resources[id] as unknown as { DeletionPolicy: string }).DeletionPolicy).toBe('Retain');
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

  it('lets the sync write only the snapshot object, the status rows and its list-change rescreen runs', () => {
    const [, fn] = syncFunction();
    const statements = statementsOf(fn).filter((s) => s.Effect === 'Allow');
    const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(actions.filter((a) => a.startsWith('s3:')).sort()).toEqual([
      's3:GetObject',
      's3:ListBucket',
      's3:PutObject',
    ]);
    const put = statements.find((s) => s.Action === 's3:PutObject');
    expect(JSON.stringify(put?.Resource)).toContain('/watchlists/watchlists.json');
    // Every table statement is confined to named partitions (IAM dynamodb:LeadingKeys).
    const tableGrants = statements
      .filter((s) => JSON.stringify(s.Action).includes('dynamodb:'))
      .map((s) => ({ actions: [s.Action].flat().sort(), condition: s.Condition }));
    expect(tableGrants).toEqual([
      {
        actions: ['dynamodb:UpdateItem'],
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

  it('lets every function that screens read the snapshot, and no other function touch the bucket', () => {
    const [syncId] = syncFunction();
    for (const [id, fn] of resourcesOf('AWS::Lambda::Function')) {
      if (id === syncId) continue;
      const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      const screens = env.WATCHLIST_SNAPSHOT !== undefined;
      const s3 = actionsOf(fn).filter((a) => a.startsWith('s3:'));
      expect(s3.sort(), String(fn.Properties.Description)).toEqual(
        screens ? ['s3:GetObject', 's3:ListBucket'] : [],
      );
      expect(env.WATCHLIST_BUCKET, String(fn.Properties.Description)).toEqual(
        screens ? { Ref: bucketId() } : undefined,
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
        job.everyMinutes === 60 ? 'rate(1 hour)' : `rate(${job.everyMinutes} minutes)`,
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
