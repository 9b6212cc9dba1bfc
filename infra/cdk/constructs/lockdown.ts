import { ArnFormat, Aws, CfnRule, Fn, RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Key } from 'aws-cdk-lib/aws-kms';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnLoggingConfiguration, CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { ORIGIN_VERIFY_HEADER } from '../../../lib/http/origin-verify.ts';
import { API_KEY_HEADER } from '../../../lib/tenancy/api-keys.ts';
import {
  SIZED_FOR,
  stageThrottle,
  type TenantMix,
  WAF_WINDOW_SECONDS,
  wafRequestsPerKey,
} from '../../../lib/tenancy/capacity.ts';

/**
 * How tightly the deployed stack is closed. Every field has a default that deploys on a fresh
 * account; `infra/cdk/app.ts` reads the optional ones from CDK context (docs/operations.md#locked-down).
 */
export interface LockdownSettings {
  /**
   * `customer-managed` (default): one KMS key of the stack's own (rotated yearly, kept if the
   * stack is deleted) encrypts the table, queues, log groups, snapshot bucket and origin secret,
   * so the customer can audit and revoke its use. `aws-managed`: AWS-managed keys, no key to pay for.
   */
  encryption: 'aws-managed' | 'customer-managed';
  /**
   * How many tenants of each plan the shared limits are sized for (lib/tenancy/capacity.ts): the
   * HTTP API stage's throttle and each stream function's reserved executions are those tenants'
   * plans added up.
   */
  sizedFor: TenantMix;
  /**
   * Requests one client IP may make in five minutes WITHOUT an API key (health, the reference,
   * the console's files) before the WAF blocks it. Requests with a key are limited per key and
   * per IP to what the largest plan admits in five minutes (capacity.ts `wafRequestsPerKey`).
   */
  wafUnkeyedRateLimit: number;
  /**
   * An existing CLOUDFRONT-scope web ACL (such ACLs live in us-east-1). Without one the stack
   * creates its own (webAclFor), so it must then be deployed in us-east-1: synth refuses another
   * region, and an environment-agnostic template carries a rule CloudFormation checks on deploy.
   */
  webAclArn?: string;
  /**
   * A custom domain for the HTTP API (its ACM certificate in the stack's region, TLS 1.2 at
   * least). With it the default execute-api endpoint is disabled and CloudFront reaches the API
   * through the domain. Either way the API refuses a request without CloudFront's origin secret.
   */
  apiDomain?: { domainName: string; certificateArn: string };
  /**
   * A custom domain for the CloudFront distribution (its ACM certificate in us-east-1). Viewers
   * then need TLS 1.2 at least (TLSv1.2_2021); without it CloudFront's default certificate is used.
   */
  publicDomain?: { domainName: string; certificateArn: string };
  /** Concurrent executions reserved for the queue worker; the queue source never exceeds it. */
  workerConcurrency: number;
}

export const DEFAULT_LOCKDOWN: LockdownSettings = {
  encryption: 'customer-managed',
  sizedFor: SIZED_FOR,
  wafUnkeyedRateLimit: 2_000,
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
  key.addAlias('alias/individual-screening-service/data');
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

/** Requests to these paths may carry bodies past 8 KB: a batch of up to 500 subjects. */
export const LARGE_BODY_PATH_PREFIX = '/batch/';

/** The label the Common rule set puts on a request whose body is larger than 8 KB. */
const BODY_SIZE_LABEL = 'awswaf:managed:aws:core-rule-set:SizeRestrictions_Body';

const visibility = (metricName: string) => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: true,
});

const managedGroup = (
  name: string,
  priority: number,
  ruleActionOverrides?: CfnWebACL.RuleActionOverrideProperty[],
): CfnWebACL.RuleProperty => ({
  name,
  priority,
  overrideAction: { none: {} },
  statement: {
    managedRuleGroupStatement: {
      vendorName: 'AWS',
      name,
      ...(ruleActionOverrides ? { ruleActionOverrides } : {}),
    },
  },
  visibilityConfig: visibility(`screening-${name}`),
});

/** The HTTP API stage's throttle: the sized-for tenants' request rates added up (capacity.ts). */
export function stageThrottleOf(settings: LockdownSettings): { rateLimit: number; burstLimit: number } {
  return stageThrottle(settings.sizedFor);
}

/** A request that carries no API key (the header absent or empty). */
const WITHOUT_API_KEY: CfnWebACL.StatementProperty = {
  notStatement: {
    statement: {
      sizeConstraintStatement: {
        fieldToMatch: { singleHeader: { Name: API_KEY_HEADER } },
        comparisonOperator: 'GT',
        size: 0,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    },
  },
};

/**
 * The web ACL for the CloudFront distribution: the one given, or a new one with
 * - the rate rules, over five minutes: an API key past what the largest plan admits in that time
 *   is blocked (the service answers 429 long before, so only a key that keeps sending past its
 *   429s meets it); a client IP past that many (a tenant's servers may share one address), or
 *   past `wafUnkeyedRateLimit` requests without a key, is blocked;
 * - AWS's IP reputation list, known bad inputs and common rule set. The common set's
 *   SizeRestrictions_BODY blocks any body past 8 KB, and a batch of 500 subjects is far larger
 *   (the service's own limit is 1 MB, lib/http/body-limit.ts): that rule only counts (and labels),
 *   and the next rule blocks a labelled request unless its path is a batch route's;
 * - its log: every request the ACL blocked or counted, to a log group named `aws-waf-logs-…`
 *   (WAF requires the prefix), encrypted with the data key when there is one, the API key redacted.
 * A CLOUDFRONT-scope ACL must live in us-east-1: a stack in another region without `webAclArn` is
 * refused at synth, and an environment-agnostic one gets a template rule that refuses the deploy.
 */
export function webAclFor(scope: Construct, settings: LockdownSettings, key?: IKey): string {
  if (settings.webAclArn) return settings.webAclArn;
  const stack = Stack.of(scope);
  const region = stack.region;
  if (!Token.isUnresolved(region) && region !== 'us-east-1') {
    throw new Error(
      `A CloudFront web ACL must be created in us-east-1; this stack is in ${region}. Deploy in us-east-1, or pass -c webAclArn=<a CLOUDFRONT-scope web ACL>: the distribution never goes without one.`,
    );
  }
  if (Token.isUnresolved(region)) {
    new CfnRule(scope, 'WebAclRegion', {
      assertions: [
        {
          assert: Fn.conditionEquals(Aws.REGION, 'us-east-1'),
          assertDescription:
            'The stack creates a CloudFront web ACL, which must live in us-east-1: deploy there, or synthesise with -c webAclArn=<a CLOUDFRONT-scope web ACL>.',
        },
      ],
    });
  }
  const acl = new CfnWebACL(scope, 'WebAcl', {
    scope: 'CLOUDFRONT',
    defaultAction: { allow: {} },
    visibilityConfig: visibility('screening-web-acl'),
    rules: [
      {
        name: 'rate-per-key',
        priority: 0,
        action: { block: {} },
        statement: {
          rateBasedStatement: {
            limit: wafRequestsPerKey(),
            evaluationWindowSec: WAF_WINDOW_SECONDS,
            aggregateKeyType: 'CUSTOM_KEYS',
            // WAF counts each distinct key apart; a request without the header is not counted here.
            customKeys: [
              { header: { name: API_KEY_HEADER, textTransformations: [{ priority: 0, type: 'NONE' }] } },
            ],
          },
        },
        visibilityConfig: visibility('screening-rate-per-key'),
      },
      {
        name: 'rate-per-ip',
        priority: 1,
        action: { block: {} },
        statement: {
          rateBasedStatement: {
            limit: wafRequestsPerKey(),
            evaluationWindowSec: WAF_WINDOW_SECONDS,
            aggregateKeyType: 'IP',
          },
        },
        visibilityConfig: visibility('screening-rate-per-ip'),
      },
      {
        name: 'rate-per-ip-without-key',
        priority: 2,
        action: { block: {} },
        statement: {
          rateBasedStatement: {
            limit: settings.wafUnkeyedRateLimit,
            evaluationWindowSec: WAF_WINDOW_SECONDS,
            aggregateKeyType: 'IP',
            scopeDownStatement: WITHOUT_API_KEY,
          },
        },
        visibilityConfig: visibility('screening-rate-per-ip-without-key'),
      },
      managedGroup('AWSManagedRulesAmazonIpReputationList', 3),
      managedGroup('AWSManagedRulesKnownBadInputsRuleSet', 4),
      managedGroup('AWSManagedRulesCommonRuleSet', 5, [
        { name: 'SizeRestrictions_BODY', actionToUse: { count: {} } },
      ]),
      {
        name: 'large-body-outside-batch',
        priority: 6,
        action: { block: {} },
        statement: {
          andStatement: {
            statements: [
              { labelMatchStatement: { scope: 'LABEL', key: BODY_SIZE_LABEL } },
              {
                notStatement: {
                  statement: {
                    byteMatchStatement: {
                      fieldToMatch: { uriPath: {} },
                      positionalConstraint: 'STARTS_WITH',
                      searchString: LARGE_BODY_PATH_PREFIX,
                      textTransformations: [{ priority: 0, type: 'NONE' }],
                    },
                  },
                },
              },
            ],
          },
        },
        visibilityConfig: visibility('screening-large-body-outside-batch'),
      },
    ],
  });

  const logGroupName = `aws-waf-logs-${stack.stackName}`;
  const logs = new LogGroup(scope, 'WebAclLogs', {
    logGroupName,
    retention: RetentionDays.ONE_MONTH,
    encryptionKey: key,
  });
  const logging = new CfnLoggingConfiguration(scope, 'WebAclLogging', {
    resourceArn: acl.attrArn,
    // WAF wants the log group's ARN without the `:*` that CDK's logGroupArn ends with.
    logDestinationConfigs: [
      stack.formatArn({
        service: 'logs',
        resource: 'log-group',
        resourceName: logs.logGroupName,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      }),
    ],
    // The API key identifies a tenant's user; the origin secret is never sent by viewers, but
    // a request forging it must not leave the guess in the log either.
    redactedFields: [
      { singleHeader: { Name: API_KEY_HEADER } },
      { singleHeader: { Name: ORIGIN_VERIFY_HEADER } },
    ],
  });
  logging.node.addDependency(logs);
  return acl.attrArn;
}
