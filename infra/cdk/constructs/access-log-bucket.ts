import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

/** Days CloudFront and S3 access logs are kept: a quarter covers any incident investigation. */
export const ACCESS_LOG_DAYS = 90;

/**
 * The bucket CloudFront's access logs (prefix `cloudfront/`) and the snapshot bucket's S3 server
 * access logs (prefix `s3/`) are written to. Encrypted with S3-managed keys, not the stack's KMS
 * key: S3 server access logging delivers only to SSE-S3 buckets. It holds request metadata (caller
 * IP, path, status), no bodies and no API keys (query strings carry none).
 */
export class AccessLogBucket extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      // CloudFront's standard logs are delivered with an ACL grant, which needs ACLs enabled.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(ACCESS_LOG_DAYS) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
