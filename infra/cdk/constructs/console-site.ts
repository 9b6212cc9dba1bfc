import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultStackSynthesizer, Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  type Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  ResponseHeadersPolicy,
  Function as ViewerFunction,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct, type IConstruct } from 'constructs';
import { CONSOLE_CONTENT_SECURITY_POLICY, CONSOLE_PATH } from '../../../lib/api-docs/console-files.ts';

export interface ConsoleSiteProps {
  /** The service's one distribution: the console is served from the API's own origin. */
  distribution: Distribution;
  /** The built console (dist/console, `npm run build:console`). */
  sourceDirectory: string;
  /** Where the bucket's S3 server access logs go (prefix `s3-console/`). */
  logBucket: IBucket;
}

/**
 * The console's viewer-request function: a path under /console that is not a built asset is a page
 * of the single-page app, so CloudFront fetches index.html for it (a reload of
 * /console/screens/SCR-… works). The same rule as the local server (lib/api-docs/console-files.ts).
 */
export const CONSOLE_REWRITE = `function handler(event) {
  var request = event.request;
  if (request.uri.indexOf('${CONSOLE_PATH}/assets/') !== 0) request.uri = '${CONSOLE_PATH}/index.html';
  return request;
}`;

/**
 * The console on AWS: its files in a private S3 bucket that only this distribution can read
 * (Origin Access Control), served under /console with the same Content-Security-Policy as
 * locally. Hashed assets cache for a year at the edge; index.html is invalidated on each deploy.
 */
export class ConsoleSite extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);
    if (!existsSync(join(props.sourceDirectory, 'index.html')))
      throw new Error(
        `No built console in ${props.sourceDirectory}: run \`npm run build:console\` before synth or deploy`,
      );
    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      serverAccessLogsBucket: props.logBucket,
      serverAccessLogsPrefix: 's3-console/',
      // Build output only: a deploy puts it back.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const headers = new ResponseHeadersPolicy(this, 'Headers', {
      comment: 'The console: every asset from this origin, no inline script, no framing',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: CONSOLE_CONTENT_SECURITY_POLICY, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
      },
    });
    const rewrite = new ViewerFunction(this, 'SpaPaths', {
      comment: 'Console pages are index.html; only /console/assets/* are files',
      code: FunctionCode.fromInline(CONSOLE_REWRITE),
      runtime: FunctionRuntime.JS_2_0,
    });
    props.distribution.addBehavior(`${CONSOLE_PATH}*`, S3BucketOrigin.withOriginAccessControl(this.bucket), {
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      compress: true,
      responseHeadersPolicy: headers,
      functionAssociations: [{ function: rewrite, eventType: FunctionEventType.VIEWER_REQUEST }],
    });

    const deployment = new BucketDeployment(this, 'Files', {
      sources: [Source.asset(props.sourceDirectory)],
      destinationBucket: this.bucket,
      destinationKeyPrefix: `${CONSOLE_PATH.slice(1)}/`,
      distribution: props.distribution,
      distributionPaths: [CONSOLE_PATH, `${CONSOLE_PATH}/*`],
      memoryLimit: 256,
    });
    acknowledgeDeploymentHandler(deployment.handlerRole, Stack.of(this), this.bucket);
  }
}

/**
 * The CDK asset bucket's objects as cdk-nag names them: each part the stack knows (the CDK CLI always
 * resolves a region; an account with credentials; the partition from the region) is written out, and
 * only an unknown one stays a pseudo parameter. An acknowledgement naming `<AWS::Region>` alone would
 * not match the finding of `npm run synth`, which synthesises for a region.
 */
function assetBucketObjects(stack: Stack): string {
  const known = (value: string, pseudo: string) => (Token.isUnresolved(value) ? `<AWS::${pseudo}>` : value);
  const qualifier: unknown = stack.node.tryGetContext('@aws-cdk/core:bootstrapQualifier');
  const bucket = `cdk-${typeof qualifier === 'string' ? qualifier : DefaultStackSynthesizer.DEFAULT_QUALIFIER}-assets-${known(stack.account, 'AccountId')}-${known(stack.region, 'Region')}`;
  return `arn:${known(stack.partition, 'Partition')}:s3:::${bucket}/*`;
}

/**
 * CDK's own BucketDeployment provider (one per stack, it runs only during a deploy): its role,
 * grants and runtime are aws-cdk-lib's, each finding acknowledged by its exact id.
 */
function acknowledgeDeploymentHandler(role: IConstruct, stack: Stack, bucket: Bucket): void {
  const bucketId = stack.getLogicalId(bucket.node.defaultChild as never);
  const handler = stack.node.children.find((child) =>
    child.node.id.startsWith('Custom::CDKBucketDeployment'),
  );
  const grants =
    'the grants CDK gives its BucketDeployment provider to copy the built console from the CDK asset bucket into the console bucket and invalidate it';
  const findings: [string, string][] = [
    [
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      "CDK's BucketDeployment provider logs with AWSLambdaBasicExecutionRole",
    ],
    ...['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*'].map(
      (action): [string, string] => [`AwsSolutions-IAM5[Action::${action}]`, grants],
    ),
    [`AwsSolutions-IAM5[Resource::${assetBucketObjects(stack)}]`, grants],
    [`AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`, grants],
    [
      'AwsSolutions-IAM5[Resource::*]',
      'cloudfront:CreateInvalidation after the copy: CDK grants it on Resource "*"',
    ],
    [
      'AwsSolutions-L1',
      "The runtime of CDK's BucketDeployment provider is chosen by aws-cdk-lib and moves with it",
    ],
  ];
  for (const scope of [role, ...(handler ? [handler] : [])])
    for (const [id, reason] of findings) Validations.of(scope).acknowledge({ id, reason });
}
