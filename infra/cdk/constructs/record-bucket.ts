import { RemovalPolicy } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, BucketEncryption, type BucketProps, type IBucket } from 'aws-cdk-lib/aws-s3';

/**
 * What every bucket of the compliance record shares (the list snapshots, the audit anchors): the
 * data key when the stack has one (else S3-managed keys), no public access, TLS only, every
 * request in the access log under `logPrefix`, and kept when the stack is deleted.
 */
export function recordBucketProps(
  encryptionKey: IKey | undefined,
  accessLogBucket: IBucket,
  logPrefix: string,
): BucketProps {
  return {
    ...(encryptionKey
      ? { encryption: BucketEncryption.KMS, encryptionKey, bucketKeyEnabled: true }
      : { encryption: BucketEncryption.S3_MANAGED }),
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    serverAccessLogsBucket: accessLogBucket,
    serverAccessLogsPrefix: logPrefix,
    removalPolicy: RemovalPolicy.RETAIN,
  };
}
