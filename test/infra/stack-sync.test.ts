import { rmSync } from 'node:fs';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SNAPSHOT_RETENTION_DAYS } from '../../lib/common/config.ts';
import { batchWorker, type RouteDefinition, routes, scheduledJobs } from '../../lib/contract/routes.ts';

import {
  actionsOf,
  deployedRoutes,
  type Resource,
  resourcesOf,
  synthDeployedStack,
} from '../support/cdk-stack.ts';

/** The CDK stack: the list sync (its bucket, its schedule, its grants). */

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
  /** The snapshot bucket (the others hold access logs and, under Object Lock, the audit anchors). */
  const bucketId = () => {
    const buckets = resourcesOf('AWS::S3::Bucket').filter(
      ([, b]) => b.Properties.VersioningConfiguration && !b.Properties.ObjectLockEnabled,
    );
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

  it('lets every function that screens or starts a rescreen run read the snapshot, replay and the queue worker (a proposal’s sandbox) read its earlier versions, and no other function touch the bucket', () => {
    const [syncId] = syncFunction();
    const historyReaders = deployedRoutes.filter((route) => route.readsSnapshotHistory);
    // GET /screens/{screen_id}/matches runs in the replay's function (one entry, one function).
    expect(historyReaders.map((route) => route.id)).toEqual(['screen-replay', 'screen-matches']);
    expect(new Set(historyReaders.map((route) => route.entry)).size).toBe(1);
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
      const history =
        historyReaders.some((route) => description.startsWith(`${route.method} ${route.path}:`)) ||
        (batchWorker.readsSnapshotHistory && description.startsWith('Screens one batch subject'));
      // On the snapshot bucket (the audit export and the chain writer read the audit anchors' bucket).
      const snapshotBucket = bucketId();
      const s3 = statementsOf(fn)
        .filter((statement) => JSON.stringify(statement.Resource).includes(snapshotBucket))
        .flatMap((statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]))
        .filter((a) => a.startsWith('s3:'));
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
