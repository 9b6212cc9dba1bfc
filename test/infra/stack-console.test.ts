import { rmSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_REWRITE } from '../../infra/cdk/constructs/console-site.ts';
import { CONSOLE_CONTENT_SECURITY_POLICY } from '../../lib/api-docs/console-files.ts';
import { allResourcesOf, type Resource, resourcesOf, synthDeployedStack } from '../support/cdk-stack.ts';

/** The console on AWS: S3 behind the same distribution, read only by it, under the same policy. */
let root: string;
beforeAll(() => {
  root = synthDeployedStack().root;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Behaviour = Record<string, unknown> & { PathPattern: string; TargetOriginId: string };
const distributionConfig = () =>
  resourcesOf('AWS::CloudFront::Distribution')[0][1].Properties.DistributionConfig as {
    CacheBehaviors: Behaviour[];
    Origins: { Id: string; S3OriginConfig?: unknown; OriginAccessControlId?: unknown; DomainName: unknown }[];
  };

describe('the console site', () => {
  it('serves /console* from a private bucket through Origin Access Control, GET and HEAD only, compressed', () => {
    const config = distributionConfig();
    const behaviour = config.CacheBehaviors.find((b) => b.PathPattern === '/console*')!;
    expect(behaviour).toMatchObject({
      AllowedMethods: ['GET', 'HEAD'],
      Compress: true,
      ViewerProtocolPolicy: 'redirect-to-https',
    });
    const origin = config.Origins.find((o) => o.Id === behaviour.TargetOriginId)!;
    expect(origin.S3OriginConfig).toBeDefined();
    expect(origin.OriginAccessControlId).toBeDefined();
    const [[bucketId, bucket]] = resourcesOf('AWS::S3::Bucket').filter(([id]) =>
      id.startsWith('ConsoleBucket'),
    );
    expect(JSON.stringify(origin.DomainName)).toContain(bucketId);
    expect(bucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LoggingConfiguration: { LogFilePrefix: 's3-console/' },
    });
    const controls = resourcesOf('AWS::CloudFront::OriginAccessControl').map(
      ([, c]) =>
        (c.Properties.OriginAccessControlConfig as { OriginAccessControlOriginType: string })
          .OriginAccessControlOriginType,
    );
    expect(controls).toContain('s3');

    // Only the distribution may read: the bucket policy's one Allow is CloudFront's, for this distribution.
    const [, policy] = resourcesOf('AWS::S3::BucketPolicy').find(([id]) =>
      id.startsWith('ConsoleBucketPolicy'),
    )!;
    const allows = (
      policy.Properties.PolicyDocument as {
        Statement: { Effect: string; Principal: unknown; Condition: unknown }[];
      }
    ).Statement.filter((s) => s.Effect === 'Allow');
    expect(allows).toHaveLength(1);
    expect(allows[0].Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
    expect(JSON.stringify(allows[0].Condition)).toContain('distribution/');
  });

  it('answers with the same Content-Security-Policy as the local server', () => {
    const [[policyId, policy]] = resourcesOf('AWS::CloudFront::ResponseHeadersPolicy');
    const headers = (
      policy.Properties.ResponseHeadersPolicyConfig as {
        SecurityHeadersConfig: Record<string, Record<string, unknown>>;
      }
    ).SecurityHeadersConfig;
    expect(headers.ContentSecurityPolicy).toEqual({
      ContentSecurityPolicy: CONSOLE_CONTENT_SECURITY_POLICY,
      Override: true,
    });
    expect(headers.FrameOptions).toMatchObject({ FrameOption: 'DENY' });
    const behaviour = distributionConfig().CacheBehaviors.find((b) => b.PathPattern === '/console*')!;
    expect(JSON.stringify(behaviour.ResponseHeadersPolicyId)).toContain(policyId);
  });

  it('sends every console page to index.html and every asset to itself (the viewer-request function)', () => {
    const [[functionId, fn]] = resourcesOf('AWS::CloudFront::Function');
    expect(fn.Properties.FunctionCode).toBe(CONSOLE_REWRITE);
    const behaviour = distributionConfig().CacheBehaviors.find((b) => b.PathPattern === '/console*')!;
    expect(JSON.stringify(behaviour.FunctionAssociations)).toContain(functionId);
    const rewrite = (uri: string) =>
      (
        runInNewContext(`${CONSOLE_REWRITE}; handler({ request: { uri: ${JSON.stringify(uri)} } })`) as {
          uri: string;
        }
      ).uri;
    expect(rewrite('/console')).toBe('/console/index.html');
    expect(rewrite('/console/')).toBe('/console/index.html');
    expect(rewrite('/console/screens/SCR-20261125-000001')).toBe('/console/index.html');
    expect(rewrite('/console/assets/index-abc.js')).toBe('/console/assets/index-abc.js');
  });

  it('uploads the built console under console/ and invalidates it on each deploy', () => {
    const [[, deployment]] = allResourcesOf('Custom::CDKBucketDeployment') as [string, Resource][];
    expect(deployment.Properties).toMatchObject({
      DestinationBucketKeyPrefix: 'console/',
      DistributionPaths: ['/console', '/console/*'],
    });
  });
});
