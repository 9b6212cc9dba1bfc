import { Duration, Stack } from 'aws-cdk-lib';
import type { IDistribution } from 'aws-cdk-lib/aws-cloudfront';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { OriginSecret } from './origin-secret.ts';
import { ServiceFunction, type ServiceFunctionSettings } from './service-function.ts';

/** The rotation function's entry (lib/jobs/rotate-origin-secret.ts holds the steps). */
export const ORIGIN_SECRET_ROTATION_ENTRY = 'functions/rotation/origin-secret.ts';

/** How often Secrets Manager rotates the origin secret. */
export const ORIGIN_SECRET_ROTATION_DAYS = 30;

/**
 * Rotates the origin secret on a schedule: Secrets Manager calls the function for each of its
 * four steps, and the function stages a new value, puts it on the distribution's origin header,
 * checks it is there and makes it current. The HTTP API's functions accept the pending, current
 * and previous values meanwhile (lib/http/origin-verify.ts), so no request is refused while
 * CloudFront's edges switch. The function may read and update this one distribution, and the
 * secret (granted by the rotation schedule); it touches no table, queue or bucket.
 */
export class OriginSecretRotation extends Construct {
  readonly function: ServiceFunction;

  constructor(
    scope: Construct,
    id: string,
    props: { settings: ServiceFunctionSettings; secret: OriginSecret; distribution: IDistribution },
  ) {
    super(scope, id);
    this.function = new ServiceFunction(this, 'Rotate', {
      ...props.settings,
      entry: ORIGIN_SECRET_ROTATION_ENTRY,
      description: "Rotates CloudFront's origin secret: a new value on the distribution, then current",
      timeout: Duration.minutes(1),
      environment: { DISTRIBUTION_ID: props.distribution.distributionId },
    });
    const { function: fn } = this.function;
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['cloudfront:GetDistributionConfig', 'cloudfront:UpdateDistribution'],
        resources: [
          Stack.of(this).formatArn({
            service: 'cloudfront',
            region: '',
            resource: 'distribution',
            resourceName: props.distribution.distributionId,
          }),
        ],
      }),
    );
    props.secret.secret.addRotationSchedule('Schedule', {
      rotationLambda: fn,
      automaticallyAfter: Duration.days(ORIGIN_SECRET_ROTATION_DAYS),
    });
  }
}
