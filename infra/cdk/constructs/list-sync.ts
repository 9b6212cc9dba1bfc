import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunctionResource } from 'aws-cdk-lib/aws-lambda';
import { Bucket, type IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEFAULT_SNAPSHOT_RETENTION_DAYS } from '../../../lib/common/config.ts';
import { keys } from '../../../lib/store/schema.ts';
import { listSyncKeys } from '../../../lib/sync/list-status-table.ts';
import { HELD_PREFIX, SNAPSHOT_OBJECT_KEY } from '../../../lib/sync/snapshot-store.ts';
import { recordBucketProps } from './record-bucket.ts';
import { ServiceFunction, type ServiceFunctionSettings } from './service-function.ts';

/** The sync function's handler, relative to the project root. */
export const LIST_SYNC_ENTRY = 'functions/schedule/list-sync.ts';

/**
 * When the daily sync runs (UTC): before the European business day opens and after the US
 * publishers' previous business day, so a designation published yesterday is screened this morning.
 */
export const LIST_SYNC_SCHEDULE = { hour: '5', minute: '30' } as const;

export interface ListSyncProps {
  settings: ServiceFunctionSettings;
  table: ITable;
  /** The work queue the list-change rescreens are sent to (the batch worker screens them). */
  queue: IQueue;
  /** Days a snapshot version is kept after a newer one replaced it; default DEFAULT_SNAPSHOT_RETENTION_DAYS. */
  retentionDays?: number;
  /** Where the snapshot bucket's S3 server access logs go (prefix `s3/snapshots/`). */
  accessLogBucket: IBucket;
}

/**
 * What a list-change rescreen run writes, by partition (lib/monitoring/delta-rescreen.ts): the
 * name keys it looks up, the tenants' partitions (client, tenant plan, usage, batch records)
 * plus the open-batch markers a run writes like any rescreen run, and the head of each affected
 * tenant's audit trail (lib/audit/trail.ts), read before its `lists.synced` entry is appended.
 */
export const DELTA_RESCREEN_GRANTS = {
  nameKeys: { actions: ['dynamodb:Query'], leadingKeys: [`${keys.nameKeyPartition('')}*`] },
  runs: {
    actions: [
      'dynamodb:GetItem',
      'dynamodb:BatchGetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:BatchWriteItem',
    ],
    leadingKeys: [`${keys.tenantPartition('')}*`, keys.openBatchesPartition],
  },
  /** The `lists.synced` entry in each affected tenant's audit trail: its chain head is queried first. */
  auditTrail: { actions: ['dynamodb:Query'], leadingKeys: [`${keys.tenantPartition('')}*`] },
} as const;

/**
 * Keeps the watchlists current: a versioned bucket holding the synced snapshot, the function that
 * downloads every list from its publisher and publishes a new snapshot there, and its daily
 * schedule. Functions that screen get read access to the snapshot through `grantSnapshotRead`.
 *
 * The schedule is an EventBridge rule, like the stack's other scheduled jobs: one mechanism for
 * every schedule, and a rule's cron is enough for a fixed daily UTC time. EventBridge Scheduler's
 * extras (time zones, one-off schedules, flexible windows) buy nothing here, and a failed run is
 * retried by Lambda's own asynchronous retries; the next day's run starts from the last good data
 * anyway.
 */
export class ListSync extends Construct {
  readonly bucket: Bucket;
  readonly function: ServiceFunction;
  readonly schedule: Rule;
  /** Days a snapshot version is kept after a newer one replaced it (lib/sync/snapshot-retention.ts). */
  readonly retentionDays: number;

  constructor(scope: Construct, id: string, props: ListSyncProps) {
    super(scope, id);
    this.retentionDays = props.retentionDays ?? DEFAULT_SNAPSHOT_RETENTION_DAYS;

    this.bucket = new Bucket(this, 'Snapshots', {
      // Every published snapshot stays retrievable (by its version id, which each screen's receipt
      // records) for the retention period after it was replaced: which list data a past screen
      // was made against is part of the compliance record, and replay reads it back.
      versioned: true,
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(this.retentionDays) }],
      // Who read or replaced a snapshot (the access log) is part of the record of which lists were in force.
      ...recordBucketProps(props.settings.encryptionKey, props.accessLogBucket, 's3/snapshots/'),
    });

    this.function = new ServiceFunction(this, 'Function', {
      ...props.settings,
      entry: LIST_SYNC_ENTRY,
      description:
        'Daily list sync: downloads every watchlist from its publisher and publishes a new snapshot',
      // The bundled snapshot is the last good data of any list the bucket does not hold yet.
      needsWatchlists: true,
      // Parsing every list and indexing about 45,000 people; Lambda's CPU share grows with memory.
      memorySize: 3008,
      timeout: Duration.minutes(15),
      environment: { WATCHLIST_BUCKET: this.bucket.bucketName, BATCH_QUEUE_URL: props.queue.queueUrl },
    });
    this.grantSnapshotRead(this.function.function, false);
    this.function.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [this.bucket.arnForObjects(SNAPSHOT_OBJECT_KEY)],
      }),
    );
    // A list refused by the sanity checks is held beside the snapshot for an operator's review.
    this.function.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject', 's3:DeleteObject'],
        resources: [this.bucket.arnForObjects(`${HELD_PREFIX}*`)],
      }),
    );
    const bucketId = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as never);
    Validations.of(this.function.function.role ?? this.function.function).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${HELD_PREFIX}*]`,
      reason:
        'One held file per list under its own prefix (lib/sync/snapshot-store.ts HELD_PREFIX): the sync writes and deletes a refused list file there for review, nothing else of the bucket',
    });
    // Only the status rows: one conditional UpdateItem per list, in the LISTS partition alone, and
    // one Query of that partition (each list's baseline) at the start of a run.
    this.function.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem', 'dynamodb:Query'],
        resources: [props.table.tableArn],
        conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [listSyncKeys.partition] } },
      }),
    );

    // Delta rescreens: the clients an added or amended listing could match, found by their name
    // keys (Query in the NAMEKEY# partitions only) and rescreened by a run of their tenant.
    for (const grant of Object.values(DELTA_RESCREEN_GRANTS)) {
      this.function.function.addToRolePolicy(
        new PolicyStatement({
          actions: [...grant.actions],
          resources: [props.table.tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...grant.leadingKeys] } },
        }),
      );
    }
    props.queue.grantSendMessages(this.function.function);
    // The snapshot it writes, and the table rows above, under the customer-managed key if any.
    props.settings.encryptionKey?.grantEncryptDecrypt(this.function.function);

    this.schedule = new Rule(this, 'Schedule', {
      description: `Daily list sync at ${LIST_SYNC_SCHEDULE.hour.padStart(2, '0')}:${LIST_SYNC_SCHEDULE.minute} UTC`,
      schedule: Schedule.cron({ ...LIST_SYNC_SCHEDULE }),
      targets: [
        new LambdaFunction(this.function.function, { retryAttempts: 2, maxEventAge: Duration.hours(2) }),
      ],
    });
  }

  /**
   * Lets a function read the synced snapshot (GetObject on its key, ListBucket so that a bucket not
   * yet synced answers 404) and tells it where the bucket is.
   */
  grantSnapshotRead(fn: LambdaFunctionResource, setEnvironment = true): void {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [this.bucket.arnForObjects(SNAPSHOT_OBJECT_KEY)],
      }),
    );
    // Without ListBucket, S3 answers a missing key with 403, indistinguishable from a refusal.
    // The bucket holds nothing but the snapshot.
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }),
    );
    this.bucket.encryptionKey?.grantDecrypt(fn);
    if (setEnvironment) fn.addEnvironment('WATCHLIST_BUCKET', this.bucket.bucketName);
  }

  /**
   * Lets a function that reads the snapshot also read its earlier versions (GetObject with a
   * VersionId needs s3:GetObjectVersion), and tells it the retention rule, so a version the
   * lifecycle rule expired is explained rather than guessed at.
   */
  grantSnapshotHistoryRead(fn: LambdaFunctionResource): void {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObjectVersion'],
        resources: [this.bucket.arnForObjects(SNAPSHOT_OBJECT_KEY)],
      }),
    );
    fn.addEnvironment('SNAPSHOT_RETENTION_DAYS', String(this.retentionDays));
  }
}
