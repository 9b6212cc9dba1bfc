import { createHash } from 'node:crypto';
import { ConflictError, GoneError, InvalidRequestError, UnprocessableError } from '../common/errors.ts';
import { logger } from '../common/log.ts';
import type { Table } from '../store/table.ts';
import {
  claimIdempotencyKey,
  forgetIdempotencyKey,
  markIdempotentResultGone,
  storeIdempotentResult,
} from './idempotency-table.ts';

/**
 * `Idempotency-Key` (the IETF httpapi idempotency-key header, as Stripe and others use it): a
 * client that is not sure a request went through sends it again with the same key and gets the
 * first response, without a second screen or a second charge.
 *
 * - The key is scoped to the tenant and the route; it is remembered for 24 hours.
 * - The same key with the same body (compared as parsed JSON: spacing and key order do not
 *   matter) returns the first response. With another body: 422, nothing done.
 * - While the first request is still running, a repeat is 409 (retry it shortly). A first
 *   request that failed (any error, including 429) is forgotten, so the key can be retried.
 * - A replay never returns what has been deleted since (a screen: DELETE /screens/{id}, or the
 *   retention purge): the route names what its stored response holds (`stillHeld`), and when
 *   that is gone the repeat is 410 Gone with a `detail`, the stored copy is dropped from the key's
 *   record, and nothing runs again (no second screen, no second charge). README: "Retrying
 *   safely: `Idempotency-Key`".
 *
 * Usable by any route: wrap the use case in `idempotent` with the route id, the tenant and the
 * validated body; what the use case returns must be JSON (it is stored and replayed as is). The
 * key's record and its writes: ./idempotency-table.ts.
 */

/** Printable ASCII, 1 to 255 characters: what a UUID, a ULID or a client's own id looks like. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** The request's Idempotency-Key, undefined without one; 400 when it is malformed. */
export function idempotencyKeyOf(
  headers: Record<string, string | undefined> | undefined,
): string | undefined {
  const key = headers?.[IDEMPOTENCY_HEADER];
  if (key === undefined) return undefined;
  if (!KEY_PATTERN.test(key)) {
    throw new InvalidRequestError(
      'Idempotency-Key: must be 1 to 255 printable ASCII characters without spaces (e.g. a UUID)',
    );
  }
  return key;
}

/** JSON with object keys sorted, so two equal bodies give one fingerprint however they were written. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function bodyFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('base64url');
}

export interface IdempotencyScope {
  tenantId: string;
  /** The route the key was sent to (a key means one request on one route). */
  route: string;
  /** The Idempotency-Key header; without one the use case simply runs. */
  key: string | undefined;
  /** The validated request body. */
  body: unknown;
}

export interface IdempotencyOptions<T> {
  /**
   * Asked before a stored result is replayed: undefined while everything the result holds still
   * exists, else the `detail` of the 410 that replaces the replay (e.g. the screen it returned was
   * deleted). Routes whose response holds only ids and counts need none.
   */
  stillHeld?: (result: T) => Promise<string | undefined>;
  now?: () => Date;
}

/**
 * Runs `useCase` at most once per tenant, route and key within 24 hours, and returns its first
 * result to every repeat with the same body (`replayed: true`). One conditional write claims
 * the key before the use case runs, so concurrent repeats cannot both run it.
 */
export async function idempotent<T>(
  table: Table,
  scope: IdempotencyScope,
  useCase: () => Promise<T>,
  options: IdempotencyOptions<T> = {},
): Promise<{ result: T; replayed: boolean }> {
  const now = options.now ?? (() => new Date());
  if (scope.key === undefined) return { result: await useCase(), replayed: false };
  const ref = { tenantId: scope.tenantId, route: scope.route, key: scope.key };
  const fingerprint = bodyFingerprint(scope.body);
  const at = now();
  const token = `${at.getTime()}.${Math.random().toString(36).slice(2)}`;
  const claim = await claimIdempotencyKey(table, ref, fingerprint, token, at);
  if (!claim.claimed) {
    const first = claim.first;
    if (!first) return idempotent(table, scope, useCase, options); // forgotten meanwhile: claim again
    if (first.fingerprint !== fingerprint) {
      throw new UnprocessableError(
        'Idempotency-Key was already used with a different request body; send a new key for a new request',
      );
    }
    if (first.state === 'gone') throw new GoneError(String(first.gone_detail));
    if (first.state !== 'done') {
      throw new ConflictError(
        'A request with this Idempotency-Key is still being processed; retry it shortly',
        undefined,
        'idempotency_in_progress',
      );
    }
    const gone = await options.stillHeld?.(first.result as T);
    if (gone !== undefined) {
      // The stored copy goes: deleted personal data does not wait for the record's expiry in it.
      await markIdempotentResultGone(table, ref, gone);
      throw new GoneError(gone);
    }
    return { result: first.result as T, replayed: true };
  }

  let result: T;
  try {
    result = await useCase();
  } catch (error) {
    // A failed first request is not remembered: the client may fix the cause and retry the key.
    await forgetIdempotencyKey(table, ref, token).catch(() => undefined);
    throw error;
  }
  if (!(await storeIdempotentResult(table, ref, token, result)))
    logger.warn(
      { tenant: ref.tenantId, route: ref.route },
      'idempotency key taken over before its response was stored',
    );
  return { result, replayed: false };
}
