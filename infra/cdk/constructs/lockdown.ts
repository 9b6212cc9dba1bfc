import { Annotations, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';

/**
 * How tightly the deployed stack is closed. Every field has a default that deploys on a fresh
 * account; `infra/cdk/app.ts` reads the optional ones from CDK context (docs/operations.md#locked-down).
 */
export interface LockdownSettings {
  /**
   * `aws-managed` (default): the table, queues, log groups and bucket use AWS-managed keys.
   * `customer-managed`: one KMS key of the stack's own (rotated yearly, kept if the stack is
   * deleted) encrypts all of them, so the customer can audit and revoke its use.
   */
  encryption: 'aws-managed' | 'customer-managed';
  /** The HTTP API stage's steady request rate and burst, for all tenants together. */
  throttle: { rateLimit: number; burstLimit: number };
  /** Requests one client IP may make in five minutes before the WAF blocks it. */
  wafRateLimit: number;
  /**
   * An existing CLOUDFRONT-scope web ACL (such ACLs live in us-east-1). Without one, a stack in
   * us-east-1 creates its own with the rate rule; elsewhere synth warns that none is attached.
   */
  webAclArn?: string;
  /**
   * A custom domain for the HTTP API (its ACM certificate in the stack's region). With it the
   * default execute-api endpoint is disabled and CloudFront reaches the API through the domain
   * only; without it the execute-api endpoint must stay on (CloudFront's origin is that host).
   */
  apiDomain?: { domainName: string; certificateArn: string };
  /** Concurrent executions reserved for (and capping) each streaming function. */
  streamConcurrency: number;
  /** Concurrent executions reserved for the queue worker; the queue source never exceeds it. */
  workerConcurrency: number;
}

export const DEFAULT_LOCKDOWN: LockdownSettings = {
  encryption: 'aws-managed',
  throttle: { rateLimit: 200, burstLimit: 400 },
  wafRateLimit: 2_000,
  streamConcurrency: 20,
  workerConcurrency: 20,
};

/** The stack's customer-managed key, usable by CloudWatch Logs for the stack's log groups. */
export function dataKey(scope: Construct): Key {
  const stack = Stack.of(scope);
  const key = new Key(scope, 'DataKey', {
    description: 'Individual Screening Service: table, queues, log groups and snapshot bucket',
    enableKeyRotation: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  // CloudWatch Logs encrypts a log group with the key only if the key policy lets it, and only for
  // this account's log groups in this region.
  key.addToResourcePolicy(
    new PolicyStatement({
      principals: [new ServicePrincipal(`logs.${stack.region}.amazonaws.com`)],
      actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
      resources: ['*'],
      conditions: {
        ArnLike: {
          'kms:EncryptionContext:aws:logs:arn': `arn:${stack.partition}:logs:${stack.region}:${stack.account}:log-group:*`,
        },
      },
    }),
  );
  return key;
}

/**
 * The web ACL for the CloudFront distribution: the one given, or (in us-east-1, where
 * CLOUDFRONT-scope ACLs must live) a new one whose rate rule blocks a client IP past
 * `wafRateLimit` requests in five minutes. Undefined, with a synth warning, otherwise.
 */
export function webAclFor(scope: Construct, settings: LockdownSettings): string | undefined {
  if (settings.webAclArn) return settings.webAclArn;
  const region = Stack.of(scope).region;
  if (Token.isUnresolved(region) || region !== 'us-east-1') {
    Annotations.of(scope).addWarningV2(
      'screening:no-web-acl',
      'No WAF web ACL on the distribution: deploy in us-east-1, or pass -c webAclArn=<a CLOUDFRONT-scope web ACL>',
    );
    return undefined;
  }
  const acl = new CfnWebACL(scope, 'WebAcl', {
    scope: 'CLOUDFRONT',
    defaultAction: { allow: {} },
    visibilityConfig: {
      cloudWatchMetricsEnabled: true,
      metricName: 'screening-web-acl',
      sampledRequestsEnabled: true,
    },
    rules: [
      {
        name: 'rate-per-ip',
        priority: 0,
        action: { block: {} },
        statement: { rateBasedStatement: { limit: settings.wafRateLimit, aggregateKeyType: 'IP' } },
        visibilityConfig: {
          cloudWatchMetricsEnabled: true,
          metricName: 'screening-rate-per-ip',
          sampledRequestsEnabled: true,
        },
      },
    ],
  });
  return acl.attrArn;
}
