import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SNAPSHOT_RETENTION_DAYS } from '../../lib/common/config.ts';
import { routes } from '../../lib/contract/routes.ts';
import {
  actionsOf,
  functionFor,
  type Resource,
  resourcesOf,
  statementsOf,
  synthDeployedStack,
} from '../support/cdk-stack.ts';

/** The CDK stack: the audit chain writer on the table's stream, and its Object Lock anchors. */

let fixture: string;
beforeAll(() => {
  fixture = synthDeployedStack().root;
});
afterAll(() => rmSync(fixture, { recursive: true, force: true }));

const writer = (): [string, Resource] => {
  const matches = resourcesOf('AWS::Lambda::Function').filter(([, r]) =>
    String(r.Properties.Description).startsWith('Links waiting audit entries'),
  );
  expect(matches).toHaveLength(1);
  return matches[0];
};
const anchorBucket = (): [string, Resource] => {
  const buckets = resourcesOf('AWS::S3::Bucket').filter(([, b]) => b.Properties.ObjectLockEnabled);
  expect(buckets).toHaveLength(1);
  return buckets[0];
};
const mentions = (value: unknown, id: string) => JSON.stringify(value).includes(id);

describe('audit chain', () => {
  it('anchors heads in a bucket under Object Lock in compliance mode, private, kept after the stack', () => {
    const [, bucket] = anchorBucket();
    expect(bucket.Properties).toMatchObject({
      ObjectLockEnabled: true,
      ObjectLockConfiguration: {
        ObjectLockEnabled: 'Enabled',
        Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: DEFAULT_SNAPSHOT_RETENTION_DAYS } },
      },
      VersioningConfiguration: { Status: 'Enabled' },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    expect(bucket.DeletionPolicy).toBe('Retain');
  });

  it('runs the writer on the table stream (keys only), for inserted waiting entries only', () => {
    const [tableId, table] = resourcesOf('AWS::DynamoDB::Table')[0];
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: 'KEYS_ONLY' });
    const [writerId] = writer();
    const mappings = resourcesOf('AWS::Lambda::EventSourceMapping').filter(([, m]) =>
      mentions(m.Properties.FunctionName, writerId),
    );
    expect(mappings).toHaveLength(1);
    const mapping = mappings[0][1].Properties;
    expect(mentions(mapping.EventSourceArn, tableId)).toBe(true);
    expect(mapping).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      ParallelizationFactor: 1,
      MaximumRetryAttempts: 10,
    });
    const pattern = JSON.parse(
      (mapping.FilterCriteria as { Filters: { Pattern: string }[] }).Filters[0].Pattern,
    );
    expect(pattern).toEqual({
      eventName: ['INSERT'],
      dynamodb: { Keys: { sk: { S: [{ prefix: 'AUDITQ#' }] } } },
    });
  });

  it('lets the writer alone put anchors and set their retention; the audit export reads them', () => {
    const [bucketId] = anchorBucket();
    const [writerId, writerFn] = writer();
    const putters = resourcesOf('AWS::Lambda::Function').filter(([, fn]) =>
      statementsOf(fn).some(
        (s) =>
          mentions(s.Resource, bucketId) &&
          (Array.isArray(s.Action) ? s.Action : [s.Action]).some((a) => String(a).startsWith('s3:PutObject')),
      ),
    );
    expect(putters.map(([id]) => id)).toEqual([writerId]);
    expect(actionsOf(writerFn)).toContain('s3:PutObjectRetention');
    expect(writerFn.Properties.Environment).toMatchObject({
      Variables: { AUDIT_ANCHOR_RETENTION_DAYS: String(DEFAULT_SNAPSHOT_RETENTION_DAYS) },
    });

    const exportRoute = routes.find((route) => route.path === '/audit/export');
    if (!exportRoute) throw new Error('no /audit/export route');
    const [, exportFn] = functionFor(exportRoute);
    expect(mentions(exportFn.Properties.Environment, bucketId)).toBe(true);
    const exportActions = statementsOf(exportFn)
      .filter((s) => mentions(s.Resource, bucketId))
      .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(exportActions).toContain('s3:GetObject');
    expect(
      exportActions.some((a) => String(a).startsWith('s3:Put') || String(a).startsWith('s3:Delete')),
    ).toBe(false);
  });
});
