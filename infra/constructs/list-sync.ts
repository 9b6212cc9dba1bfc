import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunctionResource } from 'aws-cdk-lib/aws-lambda';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { listSyncKeys } from '../../lib/sync/list-status.ts';
import { SNAPSHOT_OBJECT_KEY } from '../../lib/sync/snapshot-store.ts';
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
}

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

  constructor(scope: Construct, id: string, props: ListSyncProps) {
    super(scope, id);

    this.bucket = new Bucket(this, 'Snapshots', {
      // Every published snapshot stays retrievable for a year: which list data a past screen was
      // made against is part of the compliance record.
      versioned: true,
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(365) }],
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: RemovalPolicy.RETAIN,
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
      environment: { WATCHLIST_BUCKET: this.bucket.bucketName },
    });
    this.grantSnapshotRead(this.function.function, false);
    this.function.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [this.bucket.arnForObjects(SNAPSHOT_OBJECT_KEY)],
      }),
    );
    // Only the status rows: one conditional UpdateItem per list, in the LISTS partition alone.
    this.function.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [props.table.tableArn],
        conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [listSyncKeys.partition] } },
      }),
    );

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
    if (setEnvironment) fn.addEnvironment('WATCHLIST_BUCKET', this.bucket.bucketName);
  }
}
