import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Bucket, type CfnBucket, type IBucket, ObjectLockRetention } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEFAULT_SNAPSHOT_RETENTION_DAYS } from '../../../lib/common/config.ts';
import { recordBucketProps } from './record-bucket.ts';
import { ServiceFunction, type ServiceFunctionSettings } from './service-function.ts';
import { grantTableAccess } from './table-access.ts';

/** The chain writer's entry (lib/audit/chain-writer.ts through its stream handler). */
/** The anchors' keys (lib/audit/anchor-store.ts): `anchors/<tenant>/<inverted seq>.json`. */
const ANCHOR_OBJECTS = 'anchors/*';

export const AUDIT_CHAIN_ENTRY = 'functions/table-stream/audit-chain.ts';

export interface AuditChainProps {
  settings: ServiceFunctionSettings;
  /** The table; its stream must be on (ScreeningTable turns it on, keys only). */
  table: Table;
  accessLogBucket: IBucket;
  /** The least number of days an anchor is locked for (a tenant's longer retention wins). */
  anchorRetentionDays?: number;
}

/**
 * The audit trail's chain writer and its anchors (lib/audit/chain-writer.ts, anchor-store.ts):
 * - a function on the table's DynamoDB Stream, filtered to the INSERT of waiting audit entries
 *   (`sk` starting `AUDITQ#`), so it runs only when an audited action happened. One batch per
 *   shard at a time (parallelization factor 1), and a tenant's items share a partition, so one
 *   tenant's entries are linked by one run at a time; the writer's conditions make a second run
 *   (a retry) safe anyway. A batch that keeps failing goes to a dead-letter queue after 10 tries;
 *   its entries stay waiting in the table, and the tenant's next action links them.
 * - an S3 bucket with Object Lock in COMPLIANCE mode for the published heads: each anchor is put
 *   with its own retention date (the tenant's retention, at least `anchorRetentionDays`), and the
 *   bucket's default retention is that floor, so no anchor is ever unlocked. In compliance mode
 *   no one, the account's root user included, can shorten it or delete the object before then.
 *   Only the chain writer may put; the audit export and the ops CLI read.
 */
export class AuditChain extends Construct {
  readonly bucket: Bucket;
  readonly writer: ServiceFunction;
  readonly deadLetters: Queue;

  constructor(scope: Construct, id: string, props: AuditChainProps) {
    super(scope, id);
    const floor = props.anchorRetentionDays ?? DEFAULT_SNAPSHOT_RETENTION_DAYS;
    this.bucket = new Bucket(this, 'Anchors', {
      objectLockEnabled: true,
      objectLockDefaultRetention: ObjectLockRetention.compliance(Duration.days(floor)),
      versioned: true,
      ...recordBucketProps(props.settings.encryptionKey, props.accessLogBucket, 's3/audit-anchors/'),
    });

    this.writer = new ServiceFunction(this, 'Writer', {
      ...props.settings,
      entry: AUDIT_CHAIN_ENTRY,
      description: 'Links waiting audit entries into each tenant’s hash chain and anchors its head',
      timeout: Duration.minutes(1),
      environment: {
        AUDIT_ANCHOR_BUCKET: this.bucket.bucketName,
        AUDIT_ANCHOR_RETENTION_DAYS: String(floor),
      },
    });
    grantTableAccess(props.table, this.writer.function, 'read-write');
    // Put an anchor and set its retention date as it is put; nothing can delete one.
    this.writer.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:PutObject', 's3:PutObjectRetention'],
        resources: [this.bucket.arnForObjects(ANCHOR_OBJECTS)],
      }),
    );
    props.settings.encryptionKey?.grantEncryptDecrypt(this.writer.function);
    this.grantAnchorRead(this.writer.function, false);

    this.deadLetters = new Queue(this, 'DeadLetters', {
      ...(props.settings.encryptionKey
        ? { encryption: QueueEncryption.KMS, encryptionMasterKey: props.settings.encryptionKey }
        : { encryption: QueueEncryption.SQS_MANAGED }),
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the dead-letter destination of the chain writer’s stream event source (the batches that failed 10 times); their entries stay waiting in the table',
    });
    this.writer.function.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        retryAttempts: 10,
        bisectBatchOnError: true,
        parallelizationFactor: 1,
        onFailure: new SqsDlq(this.deadLetters),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: { Keys: { sk: { S: FilterRule.beginsWith('AUDITQ#') } } },
          }),
        ],
      }),
    );
  }

  /** Lets a function read the anchors (the audit export, the ops CLI's role), and names the bucket to it. */
  grantAnchorRead(fn: IFunction, setEnvironment = true): void {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [this.bucket.arnForObjects(ANCHOR_OBJECTS)],
      }),
    );
    // Listing finds a tenant's newest anchor (the first key under its prefix).
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [ANCHOR_OBJECTS] } },
      }),
    );
    this.bucket.encryptionKey?.grantDecrypt(fn);
    const bucketId = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnBucket);
    Validations.of(fn.role ?? fn).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${ANCHOR_OBJECTS}]`,
      reason:
        'The anchors, one object per published head under anchors/<tenant>/ (lib/audit/anchor-store.ts): the function reads (or the writer puts) those objects and nothing else of the bucket',
    });
    if (setEnvironment && 'addEnvironment' in fn)
      (fn as unknown as { addEnvironment(k: string, v: string): void }).addEnvironment(
        'AUDIT_ANCHOR_BUCKET',
        this.bucket.bucketName,
      );
  }
}
