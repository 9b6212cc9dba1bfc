import { rmSync } from 'node:fs';
import { type App, type Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LOCKDOWN, type LockdownSettings } from '../../infra/cdk/constructs/lockdown.ts';
import { pathPatternFor } from '../../infra/cdk/constructs/public-endpoint.ts';
import { TABLE_ACTIONS } from '../../infra/cdk/constructs/table-access.ts';
import { BATCH_WORKER_ENTRY, UNROUTED_REQUEST_ENTRY } from '../../infra/cdk/stack.ts';
import { type RouteDefinition, routes, scheduledJobs, webhookDelivery } from '../../lib/contract/routes.ts';
import { SIZED_FOR } from '../../lib/tenancy/capacity.ts';
import { PLAN_IDS, PLANS } from '../../lib/tenancy/plans.ts';
import { mostInAnyWindow, rateLimitOf } from '../../lib/tenancy/request-rate.ts';

import {
  actionsOf,
  buildStack,
  deployedRoutes,
  fixtureRoot,
  functionFor,
  type Resource,
  resourcesOf,
  statementsOf,
  synthDeployedStack,
} from '../support/cdk-stack.ts';

/** The CDK stack at the edge: CloudFront, the lockdown settings, and cdk-nag's AwsSolutions rules. */

let root: string;
let template: Template;
let resources: Record<string, Resource>;
let fixture: string;
beforeAll(() => {
  const synthesised = synthDeployedStack();
  fixture = synthesised.root;
  template = synthesised.template;
  resources = synthesised.resources;
  root = fixture;
});
afterAll(() => rmSync(fixture, { recursive: true, force: true }));

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

    // Beside them only the console's files (test/infra/stack-console.test.ts).
    expect(config.CacheBehaviors.map((b) => b.PathPattern).sort()).toEqual(
      [...streamRoutes.map((r) => pathPatternFor(r.path)), '/console*'].sort(),
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
        .concat(
          BATCH_WORKER_ENTRY,
          UNROUTED_REQUEST_ENTRY,
          webhookDelivery.entry,
          ...scheduledJobs.map((job) => job.entry),
        ),
    );
    try {
      expect(() => buildStack(clash, clashRoot)).toThrow(/would hide the HTTP route GET \/batch\/stream/);
    } finally {
      rmSync(clashRoot, { recursive: true, force: true });
    }
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
    expect(origins.filter((o) => o.OriginAccessControlId && !o.S3OriginConfig)).toHaveLength(
      streamRoutes.length,
    );
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
        // The tenants it is sized for (3 Enterprise, 5 Professional, 10 Growth, 20 Starter), each
        // at its plan's steady rate, 0.9 × requests_per_second, and with its whole burst at once.
        ThrottlingRateLimit: 855,
        ThrottlingBurstLimit: 950,
      },
    });
    const logs = stage.Properties.AccessLogSettings as { DestinationArn: unknown; Format: string };
    expect(JSON.stringify(logs.DestinationArn)).toContain('ApiAccessLogs');
    expect(logs.Format).toContain('$context.requestId');
    expect(logs.Format).not.toMatch(/api-key|x-api-key|body/i);
  });

  it('sizes the stage throttle from the plans: the sized-for tenants at their limits fit, and one Enterprise tenant is a small share', () => {
    const [stage] = only('AWS::ApiGatewayV2::Stage', resources);
    const { ThrottlingRateLimit: rate, ThrottlingBurstLimit: burst } = stage.Properties
      .DefaultRouteSettings as {
      ThrottlingRateLimit: number;
      ThrottlingBurstLimit: number;
    };
    let steady = 0;
    let bursts = 0;
    for (const id of PLAN_IDS) {
      const limit = rateLimitOf(PLANS[id]);
      steady += (SIZED_FOR[id] * (mostInAnyWindow(limit, 100) - limit.burst)) / 100;
      bursts += SIZED_FOR[id] * limit.burst;
    }
    expect(rate).toBeGreaterThanOrEqual(steady);
    expect(burst).toBeGreaterThanOrEqual(bursts);
    const enterprise = rateLimitOf(PLANS.enterprise);
    expect(burst).toBeGreaterThan(SIZED_FOR.enterprise * enterprise.burst);
    expect(rate).toBeGreaterThan(SIZED_FOR.enterprise * PLANS.enterprise.requests_per_second);
  });

  it('reserves for each stream function every stream its tenants may hold open on it, and the worker its own, within the account', () => {
    // A batch route: the batch plans' open streams (10 Growth × 3, 5 Professional × 5, 3
    // Enterprise × 8); an export or a batch's events: every plan's (20 Starter × 2 more).
    const expected: Record<string, number> = {
      'POST /batch/stream': 79,
      'POST /batch/clients/stream': 79,
      'GET /audit/export': 119,
      'GET /screens/export': 119,
      'GET /batch/{batch_id}/events': 119,
    };
    let reserved = 0;
    for (const route of streamRoutes) {
      const executions = functionFor(route)[1].Properties.ReservedConcurrentExecutions;
      expect(executions, route.id).toBe(expected[`${route.method} ${route.path}`]);
      // More than three Enterprise tenants with every stream open (the issue: 3 × 8 filled 20).
      expect(executions, route.id).toBeGreaterThan(3 * PLANS.enterprise.open_streams);
    }
    for (const [, fn] of resourcesOf('AWS::Lambda::Function'))
      reserved += Number(fn.Properties.ReservedConcurrentExecutions ?? 0);
    // AWS's default account quota is 1,000 concurrent executions, 100 of which must stay unreserved.
    expect(reserved + 100).toBeLessThanOrEqual(1_000);
  });

  it('reserves concurrency for the worker, and caps the queue source at it', () => {
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
    // What the largest plan admits in five minutes: a burst of 100 and 90 a second after it.
    const perKey = mostInAnyWindow(rateLimitOf(PLANS.enterprise), 300);
    expect(perKey).toBe(27_097);
    expect(rules.slice(0, 3)).toMatchObject([
      {
        Name: 'rate-per-key',
        Action: { Block: {} },
        Statement: {
          RateBasedStatement: {
            Limit: perKey,
            EvaluationWindowSec: 300,
            AggregateKeyType: 'CUSTOM_KEYS',
            CustomKeys: [
              { Header: { Name: 'x-api-key', TextTransformations: [{ Priority: 0, Type: 'NONE' }] } },
            ],
          },
        },
      },
      {
        Name: 'rate-per-ip',
        Action: { Block: {} },
        Statement: {
          RateBasedStatement: { Limit: perKey, EvaluationWindowSec: 300, AggregateKeyType: 'IP' },
        },
      },
      {
        Name: 'rate-per-ip-without-key',
        Action: { Block: {} },
        Statement: {
          RateBasedStatement: {
            Limit: DEFAULT_LOCKDOWN.wafUnkeyedRateLimit,
            AggregateKeyType: 'IP',
            ScopeDownStatement: {
              NotStatement: {
                Statement: {
                  SizeConstraintStatement: {
                    FieldToMatch: { SingleHeader: { Name: 'x-api-key' } },
                    ComparisonOperator: 'GT',
                    Size: 0,
                  },
                },
              },
            },
          },
        },
      },
    ]);
    // No plan's own rate is blocked by the WAF before the service's 429.
    for (const id of PLAN_IDS)
      expect(mostInAnyWindow(rateLimitOf(PLANS[id]), 300)).toBeLessThanOrEqual(perKey);
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
      ([, b]) => b.Properties.VersioningConfiguration && !b.Properties.ObjectLockEnabled,
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

    // One function per entry file (GET and HEAD /health share theirs).
    const checkers = [
      ...new Map(
        deployedRoutes.filter((r) => r.kind === 'http').map((r) => [r.entry, functionFor(r)]),
      ).values(),
    ];
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
    // The stream URLs are closed by Origin Access Control instead; nothing else reads the secret
    // but the function that rotates it.
    const readers = resourcesOf('AWS::Lambda::Function').filter(([, fn]) =>
      actionsOf(fn).includes('secretsmanager:GetSecretValue'),
    );
    expect(readers).toHaveLength(checkers.length + 1);
  });

  it('rotates the origin secret every 30 days with a function that may change only this distribution and this secret', () => {
    const [[secretId]] = resourcesOf('AWS::SecretsManager::Secret');
    const [[distributionId]] = resourcesOf('AWS::CloudFront::Distribution');
    const [[, schedule]] = resourcesOf('AWS::SecretsManager::RotationSchedule');
    expect(schedule.Properties.SecretId).toEqual({ Ref: secretId });
    expect(schedule.Properties.RotationRules).toMatchObject({ ScheduleExpression: 'rate(30 days)' });
    const rotatorId = (schedule.Properties.RotationLambdaARN as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
    const rotator = resources[rotatorId] as Resource;
    expect(rotator.Properties.Description).toMatch(/Rotates CloudFront's origin secret/);
    const env = (rotator.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(env.DISTRIBUTION_ID).toEqual({ Ref: distributionId });
    const statements = statementsOf(rotator);
    const cloudFront = statements.filter((s) => String(s.Action).includes('cloudfront:'));
    expect(cloudFront).toHaveLength(1);
    expect([cloudFront[0].Action].flat().sort()).toEqual([
      'cloudfront:GetDistributionConfig',
      'cloudfront:UpdateDistribution',
    ]);
    expect(JSON.stringify((cloudFront[0] as { Resource?: unknown }).Resource)).toContain(distributionId);
    const secretActions = statements.filter((s) => String(s.Action).includes('secretsmanager:'));
    // Each on this secret, but GetRandomPassword, which names no resource.
    for (const statement of secretActions) {
      const on = JSON.stringify((statement as { Resource?: unknown }).Resource);
      if (on === '"*"') expect(statement.Action).toBe('secretsmanager:GetRandomPassword');
      else expect(on).toContain(secretId);
    }
    expect(secretActions.flatMap((s) => [s.Action].flat())).toEqual(
      expect.arrayContaining(['secretsmanager:PutSecretValue', 'secretsmanager:UpdateSecretVersionStage']),
    );
    expect(statements.some((s) => String(s.Action).includes('dynamodb:'))).toBe(false);
  });

  it('TLS 1.2 at least wherever a certificate is given', () => {
    const locked = build({
      lockdown: {
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
    // The webhook secrets' key is its own (infra/cdk/constructs/webhooks.ts); the data key is the one.
    const keys = Object.entries(resources).filter(
      ([id, r]) => r.Type === 'AWS::KMS::Key' && !id.startsWith('WebhooksSecretsKey'),
    );
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
    // The batch queue and the webhook delivery queue, each with its dead-letter queue, and the
    // audit chain writer's dead-letter queue.
    expect(queues).toHaveLength(5);
    for (const queue of queues) expect(usesKey(queue.Properties.KmsMasterKeyId)).toBe(true);
    const groups = only('AWS::Logs::LogGroup', resources);
    expect(groups.length).toBeGreaterThan(deployedRoutes.length);
    for (const group of groups) expect(usesKey(group.Properties.KmsKeyId)).toBe(true);
    const [, snapshots] = resourcesOf('AWS::S3::Bucket').find(
      ([, b]) => b.Properties.VersioningConfiguration && !b.Properties.ObjectLockEnabled,
    )!;
    expect(JSON.stringify(snapshots.Properties.BucketEncryption)).toContain('aws:kms');
    expect(usesKey(snapshots.Properties.BucketEncryption)).toBe(true);
    expect(usesKey(only('AWS::SecretsManager::Secret', resources)[0].Properties.KmsKeyId)).toBe(true);
    // Functions that touch the table can use the key; the fallback function, which touches no data, cannot.
    const kmsUsers = Object.values(resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .filter((p) => JSON.stringify(p.Properties.PolicyDocument).includes('kms:Decrypt'));
    expect(kmsUsers.length).toBeGreaterThan(deployedRoutes.length / 2);

    // Opting out (-c encryption=aws-managed) leaves no data key to pay for; the webhook secrets'
    // key stays (the service seals them whatever the data's encryption).
    expect(
      only('AWS::KMS::Key', build({ lockdown: { encryption: 'aws-managed' } })).map(
        (k) => k.Properties.Description,
      ),
    ).toEqual(['Individual Screening Service: seals webhook signing secrets (data keys)']);
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

  it('finds nothing unacknowledged when synthesised for a region, with or without an account (as `npm run synth` is)', () => {
    // The CDK CLI resolves a region (us-east-1 with no AWS configuration), so the app's stack is
    // never environment-agnostic there, and every ARN CDK writes names that region.
    expect(nagFindings(buildStack(deployedRoutes, root, { region: 'us-east-1', account: null }))).toBe('');
    expect(nagFindings(buildStack(deployedRoutes, root, { region: 'us-east-1' }))).toBe('');
    const given = 'arn:aws:wafv2:us-east-1:111122223333:global/webacl/shared/abc';
    expect(
      nagFindings(buildStack(deployedRoutes, root, { region: 'eu-west-2', lockdown: { webAclArn: given } })),
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
