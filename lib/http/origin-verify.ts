import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type OriginSecretSource, originSecretSource } from '../common/config.ts';
import { ForbiddenError } from '../common/errors.ts';

/**
 * The header CloudFront adds to every request it forwards to the HTTP API (infra/cdk/constructs/
 * public-endpoint.ts). Its value is a Secrets Manager secret only CloudFront and the functions
 * know, so a request sent to the execute-api endpoint directly (around CloudFront and its WAF)
 * lacks it and is refused before anything else runs.
 */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';

/**
 * The variable naming the secret (its ARN), set by the stack on every HTTP API function and read
 * in lib/common/config.ts. Unset (`npm start`, tests), the check is off: there is no CloudFront
 * to come through locally.
 */
export const ORIGIN_SECRET_ENV = 'ORIGIN_SECRET_ID';

/**
 * A rotation (docs/operations.md#locked-down) makes a new value AWSCURRENT first and puts it on
 * the distribution after, and CloudFront's edges take minutes to switch: the previous value (and
 * a pending one, for a rotation function that stages it) stays accepted, so no request is refused.
 */
const ACCEPTED_STAGES = ['AWSCURRENT', 'AWSPENDING', 'AWSPREVIOUS'] as const;

/** How long the accepted values are kept in the process before they are read again. */
const CACHE_MS = 5 * 60_000;
/** A value that matches none is re-read at most this often (a rotation may have just finished). */
const REFRESH_ON_MISMATCH_MS = 10_000;

/** The source with a secret configured (the check is on). */
type Configured = OriginSecretSource & { secretId: string };

interface Accepted {
  secretId: string;
  digests: Buffer[];
  readAt: number;
}
let accepted: Accepted | undefined;

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Reads one stage of the secret from the AWS Parameters and Secrets Lambda Extension (a layer the
 * stack adds; it serves Secrets Manager's GetSecretValue on localhost with its own cache), so the
 * functions need no Secrets Manager client in their bundle. Undefined when the stage does not exist.
 */
async function readStage(source: Configured, stage: string): Promise<string | undefined> {
  const url = `http://localhost:${source.extensionPort}/secretsmanager/get?secretId=${encodeURIComponent(source.secretId)}&versionStage=${stage}`;
  const response = await fetch(url, { headers: { 'X-Aws-Parameters-Secrets-Token': source.sessionToken } });
  if (!response.ok) {
    await response.body?.cancel();
    if (stage === 'AWSCURRENT') {
      // Without the current value nothing can be let through; the status says why, never the value.
      throw new Error(`origin secret unavailable: the secrets extension answered ${response.status}`);
    }
    return undefined;
  }
  const { SecretString } = (await response.json()) as { SecretString?: string };
  return SecretString;
}

async function acceptedDigests(source: Configured, refresh: boolean): Promise<Buffer[]> {
  const { secretId } = source;
  const now = Date.now();
  const fresh = accepted?.secretId === secretId && now - accepted.readAt < CACHE_MS;
  const recent = accepted?.secretId === secretId && now - accepted.readAt < REFRESH_ON_MISMATCH_MS;
  if (accepted && fresh && (!refresh || recent)) return accepted.digests;
  const values = await Promise.all(ACCEPTED_STAGES.map((stage) => readStage(source, stage)));
  const digests = values.filter((value): value is string => Boolean(value)).map(digest);
  accepted = { secretId, digests, readAt: now };
  return digests;
}

/** Compares every accepted value in constant time (SHA-256 first, so lengths never differ). */
function matchesAny(given: Buffer, digests: readonly Buffer[]): boolean {
  let match = false;
  for (const expected of digests) match = timingSafeEqual(given, expected) || match;
  return match;
}

/**
 * Refuses, with 403, a request that did not come through CloudFront: the first check of the
 * pipeline, before the body is read or the API key looked up. Neither the header's value nor the
 * secret is ever logged.
 */
export function originVerify(): MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: async ({ event }) => {
      const source = originSecretSource();
      if (!source.secretId) return;
      const configured = { ...source, secretId: source.secretId };
      const given = digest(event.headers?.[ORIGIN_VERIFY_HEADER] ?? '');
      if (matchesAny(given, await acceptedDigests(configured, false))) return;
      if (matchesAny(given, await acceptedDigests(configured, true))) return;
      throw new ForbiddenError(
        'This endpoint answers requests through the service’s CloudFront URL only (the ApiUrl of the deployment); call that URL instead.',
      );
    },
  };
}
