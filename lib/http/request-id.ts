import { randomUUID } from 'node:crypto';

/**
 * A caller-supplied request id is kept when it is 1 to 128 characters of letters, digits and
 * `. _ : -`: enough for UUIDs, ULIDs, W3C trace ids and most gateways' ids, and nothing that could
 * forge a log line or a header (no spaces, quotes, control characters). Anything else is replaced.
 */
const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The id of a request: the caller's `X-Request-Id` when well-formed, else `generated` (API
 * Gateway's own request id when there is one), else a fresh UUID.
 */
export function requestIdFor(
  headers: Record<string, string | string[] | undefined> | undefined,
  generated?: string,
): string {
  const supplied = headers?.['x-request-id'];
  if (typeof supplied === 'string' && WELL_FORMED_REQUEST_ID.test(supplied)) return supplied;
  return generated ?? randomUUID();
}
