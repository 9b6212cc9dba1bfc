import {
  CloudFrontClient,
  GetDistributionConfigCommand,
  UpdateDistributionCommand,
} from '@aws-sdk/client-cloudfront';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { originSecretRotationTarget } from '../common/config.ts';
import { ORIGIN_VERIFY_HEADER } from '../http/origin-verify.ts';
import {
  type OriginHeaderHolder,
  type RotatingSecret,
  type RotationEvent,
  rotateOriginSecret,
} from '../jobs/rotate-origin-secret.ts';

/** Secrets Manager behind the rotation's port (lib/jobs/rotate-origin-secret.ts). */
export function secretsManagerSecret(client: SecretsManagerClient): RotatingSecret {
  return {
    async describe(secretId) {
      const description = await client.send(new DescribeSecretCommand({ SecretId: secretId }));
      return {
        rotationEnabled: description.RotationEnabled === true,
        versions: description.VersionIdsToStages ?? {},
      };
    },
    async valueOf(secretId, versionId) {
      try {
        const value = await client.send(
          new GetSecretValueCommand({ SecretId: secretId, VersionId: versionId }),
        );
        return value.SecretString;
      } catch (error) {
        if (error instanceof ResourceNotFoundException) return undefined;
        throw error;
      }
    },
    async putPending(secretId, versionId, value) {
      await client.send(
        new PutSecretValueCommand({
          SecretId: secretId,
          ClientRequestToken: versionId,
          SecretString: value,
          VersionStages: ['AWSPENDING'],
        }),
      );
    },
    async promote(secretId, toVersionId, fromVersionId) {
      await client.send(
        new UpdateSecretVersionStageCommand({
          SecretId: secretId,
          VersionStage: 'AWSCURRENT',
          MoveToVersionId: toVersionId,
          RemoveFromVersionId: fromVersionId,
        }),
      );
    },
  };
}

/**
 * A CloudFront distribution's origin custom headers behind the rotation's port: read with
 * GetDistributionConfig, written back whole with UpdateDistribution under the ETag just read
 * (a concurrent change makes it fail, and Secrets Manager retries the step).
 */
export function cloudFrontOrigins(client: CloudFrontClient, distributionId: string): OriginHeaderHolder {
  const read = () => client.send(new GetDistributionConfigCommand({ Id: distributionId }));
  const sending = (header: string, config: Awaited<ReturnType<typeof read>>['DistributionConfig']) =>
    (config?.Origins?.Items ?? []).flatMap((origin) =>
      (origin.CustomHeaders?.Items ?? []).filter((item) => item.HeaderName?.toLowerCase() === header),
    );
  return {
    async headerValues(header) {
      const { DistributionConfig } = await read();
      return sending(header, DistributionConfig).map((item) => item.HeaderValue ?? '');
    },
    async setHeader(header, value) {
      const { DistributionConfig, ETag } = await read();
      if (!DistributionConfig) throw new Error(`distribution ${distributionId} has no configuration`);
      for (const item of sending(header, DistributionConfig)) item.HeaderValue = value;
      await client.send(
        new UpdateDistributionCommand({ Id: distributionId, IfMatch: ETag, DistributionConfig }),
      );
    },
  };
}

/** The rotation function (functions/rotation/origin-secret.ts), bound to the SDK clients. */
export function originSecretRotationHandler(
  secrets = new SecretsManagerClient({}),
  cloudFront = new CloudFrontClient({}),
): (event: RotationEvent) => Promise<void> {
  return async (event) => {
    const { distributionId } = originSecretRotationTarget();
    await rotateOriginSecret(
      event,
      ORIGIN_VERIFY_HEADER,
      secretsManagerSecret(secrets),
      cloudFrontOrigins(cloudFront, distributionId),
    );
  };
}
