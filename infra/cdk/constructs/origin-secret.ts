import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import {
  type IFunction,
  ParamsAndSecretsLayerVersion,
  ParamsAndSecretsVersions,
} from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ORIGIN_SECRET_ENV } from '../../../lib/http/origin-verify.ts';

/**
 * The secret CloudFront adds to every request it forwards to the HTTP API (header
 * `x-origin-verify`, lib/http/origin-verify.ts): a request without it reached the API around
 * CloudFront and its WAF, and the pipeline refuses it with 403 before anything else.
 */
export class OriginSecret extends Construct {
  readonly secret: Secret;

  constructor(scope: Construct, id: string, props: { encryptionKey?: IKey }) {
    super(scope, id);
    this.secret = new Secret(this, 'Secret', {
      description: 'Individual Screening Service: the header value CloudFront sends to the HTTP API',
      // Header-safe characters only; 48 of them is ~285 bits, far past guessing.
      generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
      encryptionKey: props.encryptionKey,
      // Nothing outlives the stack that depends on it: a new deployment gets a new value.
      removalPolicy: RemovalPolicy.DESTROY,
    });
  }

  /**
   * The distribution's header value: a CloudFormation dynamic reference to the current version,
   * resolved when the stack deploys, so the value is in no template, asset or log. Between deploys
   * the rotation function (origin-secret-rotation.ts) sets the header itself; a later deploy that
   * updates the distribution resolves the same current value.
   */
  headerValue(): string {
    return this.secret.secretValue.unsafeUnwrap();
  }

  /**
   * Lets a function check the header: it may read the secret (and decrypt it), knows its ARN, and
   * reads it through the AWS Parameters and Secrets Lambda Extension, which caches it for five minutes.
   */
  grantCheck(fn: IFunction & { addEnvironment(key: string, value: string): unknown }): void {
    this.secret.grantRead(fn);
    fn.addEnvironment(ORIGIN_SECRET_ENV, this.secret.secretArn);
  }
}

/** The extension layer every function that checks the header runs with (ServiceFunction). */
export const ORIGIN_SECRET_EXTENSION = ParamsAndSecretsLayerVersion.fromVersion(
  ParamsAndSecretsVersions.V1_0_103,
  { cacheEnabled: true, secretsManagerTtl: Duration.minutes(5) },
);
