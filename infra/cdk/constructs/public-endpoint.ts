import { Duration, Fn, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  type BehaviorOptions,
  CachePolicy,
  Distribution,
  FunctionUrlOriginAccessControl,
  type IOrigin,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  SecurityPolicyProtocol,
  Signing,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { FunctionUrlOrigin, HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { RouteDefinition } from '../../../lib/contract/routes.ts';
import { ORIGIN_VERIFY_HEADER } from '../../../lib/http/origin-verify.ts';
import type { StreamEndpoint } from './batch-pipeline.ts';
import type { OriginSecret } from './origin-secret.ts';

export interface PublicEndpointProps {
  httpApi: HttpApi;
  streamEndpoints: readonly StreamEndpoint[];
  /** Every manifest route of kind `http`; used to refuse a stream path pattern that would hide one. */
  httpRoutes: readonly RouteDefinition[];
  /** The API's custom domain, when it has one (its execute-api endpoint is then disabled). */
  apiDomainName?: string;
  /** The WAF web ACL in front of the distribution (lockdown.ts webAclFor). */
  webAclId: string;
  /** The value CloudFront sends the HTTP API in `x-origin-verify`; the API refuses requests without it. */
  originSecret: OriginSecret;
  /** Where CloudFront writes its access logs (prefix `cloudfront/`). */
  logBucket: IBucket;
  /** The distribution's own domain and its us-east-1 certificate; viewers then need TLS 1.2. */
  publicDomain?: { domainName: string; certificateArn: string };
}

/** `/screens/{id}` → `/screens/*`: a manifest path as a CloudFront path pattern. */
export function pathPatternFor(path: string): string {
  return path.replace(/\{[^}]+\}/g, '*');
}

/**
 * The one base URL tenants call. HTTP APIs cannot stream, so streaming routes go to their
 * Function URLs and everything else to the HTTP API; nothing is cached (every response is
 * tenant-specific) and every viewer header except Host reaches the origin, X-API-Key included.
 */
export class PublicEndpoint extends Construct {
  readonly distribution: Distribution;

  constructor(scope: Construct, id: string, props: PublicEndpointProps) {
    super(scope, id);

    const behaviour = (origin: IOrigin): BehaviorOptions => ({
      origin,
      viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      // Compression would hold back server-sent events until a block fills.
      compress: false,
    });

    // apiEndpoint is `https://<id>.execute-api.<region>.amazonaws.com`; the origin wants the host.
    const apiDomain = props.apiDomainName ?? Fn.select(2, Fn.split('/', props.httpApi.apiEndpoint));
    const apiOrigin = new HttpOrigin(apiDomain, {
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
      customHeaders: { [ORIGIN_VERIFY_HEADER]: props.originSecret.headerValue() },
    });

    const additionalBehaviors: Record<string, BehaviorOptions> = {};
    // One Origin Access Control signs for every stream Function URL (its settings are the same for
    // each): one resource, not one per stream route, in a stack near CloudFormation's 500.
    const streamAccessControl = new FunctionUrlOriginAccessControl(this, 'StreamOriginAccessControl', {
      signing: Signing.SIGV4_ALWAYS,
    });
    for (const { route, url } of props.streamEndpoints) {
      const pattern = pathPatternFor(route.path);
      const hidden = props.httpRoutes.find((httpRoute) => matchesPattern(pattern, httpRoute.path));
      if (hidden) {
        throw new Error(
          `CloudFront sends ${pattern} to the stream route ${route.id}, which would hide the HTTP route ${hidden.method} ${hidden.path}`,
        );
      }
      if (additionalBehaviors[pattern]) {
        throw new Error(`Two stream routes share the CloudFront path pattern ${pattern}`);
      }
      // The stream sends a heartbeat every 15 s, well inside the read timeout.
      // Origin Access Control signs every request to the IAM-authenticated Function URL, so the
      // URL answers CloudFront only.
      additionalBehaviors[pattern] = behaviour(
        FunctionUrlOrigin.withOriginAccessControl(url, {
          readTimeout: Duration.seconds(60),
          originAccessControl: streamAccessControl,
        }),
      );
    }

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Individual Screening Service: one base URL for the HTTP API and the batch streams',
      defaultBehavior: behaviour(apiOrigin),
      additionalBehaviors,
      webAclId: props.webAclId,
      enableLogging: true,
      logBucket: props.logBucket,
      logFilePrefix: 'cloudfront/',
      ...(props.publicDomain
        ? {
            // Only the distribution's own certificate takes a TLS floor; the default one cannot.
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
            domainNames: [props.publicDomain.domainName],
            certificate: Certificate.fromCertificateArn(
              this,
              'Certificate',
              props.publicDomain.certificateArn,
            ),
          }
        : {}),
    });
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason:
        'Tenants screen customers from any country; who may call is decided by API keys and the WAF (rate, reputation, managed rules), not by geography',
    });
    if (!props.publicDomain) {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR4',
        reason:
          'Without -c domain the distribution has only the default *.cloudfront.net certificate, whose TLS floor CloudFront does not let anyone set; with a domain it requires TLSv1.2_2021',
      });
    }
  }
}

/** CloudFront matches path patterns against the path only; `{param}` segments match anything. */
function matchesPattern(pattern: string, path: string): boolean {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`).test(pathPatternFor(path));
}
