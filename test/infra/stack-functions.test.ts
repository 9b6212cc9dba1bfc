import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceFunction } from '../../infra/cdk/constructs/service-function.ts';
import { FAIR_USE_ATTRIBUTES } from '../../infra/cdk/constructs/table-access.ts';
import { routeById, routes, scheduledJobs } from '../../lib/contract/routes.ts';
import { INDEXES } from '../../lib/store/schema.ts';

import {
  actionsOf,
  deployedEntries,
  deployedRoutes,
  functionFor,
  isFairUseStatement,
  type Resource,
  repoRoot,
  resourcesOf,
  routeFunctionCount,
  type Statement,
  statementsOf,
  synthDeployedStack,
} from '../support/cdk-stack.ts';

/** The CDK stack: the HTTP API and its routes, the table, the functions, their IAM grants, and the reference page's bundled files. */

let template: Template;
let resources: Record<string, Resource>;
let fixture: string;
beforeAll(() => {
  const synthesised = synthDeployedStack();
  fixture = synthesised.root;
  template = synthesised.template;
  resources = synthesised.resources;
});
afterAll(() => rmSync(fixture, { recursive: true, force: true }));

describe('HTTP API', () => {
  const httpRoutes = deployedRoutes.filter((r) => r.kind === 'http');

  it('has a route for every http manifest entry, each integrated with the function of its entry file', () => {
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
    expect(integrationTargets.size).toBe(new Set(httpRoutes.map((route) => route.entry)).size);
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
    const missing = deployedEntries(routes).filter((entry) => !existsSync(path.join(repoRoot, entry)));
    expect(missing).toEqual([]);
  });
});

describe('table', () => {
  it('is the single on-demand table with pk/sk, every GSI of lib/store/schema.ts (ten), TTL, PITR and retained on delete', () => {
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
        // One sparse index per access pattern, named after it (lib/store/schema.ts).
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
    // one per route (routes of one entry file share it) and scheduled job, plus the batch worker, the unrouted-request fallback, the
    // list sync, the origin secret's rotation, the webhook delivery and the audit chain writer
    expect(functions).toHaveLength(routeFunctionCount + scheduledJobs.length + 6);
    for (const [, fn] of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(fn.Properties.Handler).toBe('index.handler');
      const env = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      // No source map is bundled (docs/operations.md#deploy), so none is enabled.
      expect(env.NODE_OPTIONS).toBeUndefined();
      expect(env).toMatchObject({
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
    expect(groups).toHaveLength(routeFunctionCount + scheduledJobs.length + 6);
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

  it('lets only queue senders send to a queue (the batch queue, or the webhook delivery queue for a replay)', () => {
    for (const route of deployedRoutes) {
      const sends = actionsOf(functionFor(route)[1]).includes('sqs:SendMessage');
      expect(sends, route.id).toBe(route.sendsToQueue === true || route.sendsWebhooks === true);
    }
  });

  it('lets only the routes that seal a webhook secret generate a data key with the webhook key', () => {
    for (const route of deployedRoutes) {
      const seals = actionsOf(functionFor(route)[1]).includes('kms:GenerateDataKey');
      if (route.sealsWebhookSecrets) expect(seals, route.id).toBe(true);
    }
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

  // Lean bundles keep `npm run synth` short and cold starts small (docs/operations.md#deploy).
  it('bundles a function that never screens without a source map, the AWS SDK or the watchlist code, and it answers', () => {
    const outdir = mkdtempSync(path.join(tmpdir(), 'screening-bundle-'));
    try {
      const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
      const stack = new Stack(app, 'LeanBundle');
      const health = routeById('health');
      new ServiceFunction(stack, 'Health', {
        projectRoot: repoRoot,
        tableName: 'unused',
        logLevel: 'silent',
        serviceVersion: '1.5.0',
        entry: health.entry,
      });
      const assembly = app.synth();
      const template = assembly.getStackByName('LeanBundle').template as {
        Resources: Record<string, Resource & { Metadata?: Record<string, string> }>;
      };
      const [fn] = Object.values(template.Resources).filter((r) => r.Type === 'AWS::Lambda::Function');
      const packageDir = path.join(assembly.directory, fn.Metadata!['aws:asset:path']);
      // The bundle and, beside it, the romanisation dictionaries it loads only for a name written in
      // Han or an Indic script (infra/cdk/function-bundles.ts); no source map.
      expect(readdirSync(packageDir).sort()).toEqual(['index.mjs', 'pinyin-pro.cjs', 'sanscript.cjs']);
      const code = readFileSync(path.join(packageDir, 'index.mjs'), 'utf8');
      // 2.2 MB with the watchlist code and every language's country names; about 0.22 MB now.
      expect(code.length).toBeLessThan(2_200_000 / 3);
      // The SDK is imported from the runtime, not bundled: its clients' own code is absent.
      expect(code).toMatch(/from\s*"@aws-sdk\/client-dynamodb"/);
      expect(code).not.toContain('DynamoDBServiceException');
      // lib/sync/sync-lists.ts and the list parsers stay out of a function that never screens.
      expect(code).not.toContain('stored watchlist snapshot unreadable');
      expect(code).not.toContain('SheetJS');

      mkdirSync(path.join(outdir, 'node_modules'));
      symlinkSync(path.join(repoRoot, 'node_modules/@aws-sdk'), path.join(outdir, 'node_modules/@aws-sdk'));
      const run = spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const { handler } = await import(${JSON.stringify(pathToFileURL(path.join(packageDir, 'index.mjs')).href)});
           const res = await handler({ version: '2.0', routeKey: 'GET /health', rawPath: '/health', headers: {},
             isBase64Encoded: false, requestContext: { http: { method: 'GET', path: '/health' }, requestId: 'bundle-test' } }, {});
           process.stdout.write(JSON.stringify({ status: res.statusCode, body: JSON.parse(res.body) }));`,
        ],
        {
          encoding: 'utf8',
          env: {
            PATH: process.env.PATH,
            TABLE_NAME: 'unused',
            AWS_REGION: 'eu-west-2',
            LOG_LEVEL: 'silent',
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          },
        },
      );
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toMatchObject({ status: 200, body: { status: 'ok' } });
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
