import * as v from 'valibot';
import { keys } from '../store/schema.ts';
import { parseItem, type Table } from '../store/table.ts';
import { sendWriteIf, type TableWrite, trySendWrite } from '../store/write.ts';

/**
 * The idempotency-key item (lib/store/schema.ts): the first request sent with an Idempotency-Key,
 * per tenant and route, and once it succeeded its response (the pipeline: ./idempotency.ts).
 */

/** How long a key is remembered. */
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 3600;

/** A first request running longer than this is presumed dead (its function timed out). */
const IN_PROGRESS_LEASE_MS = 15 * 60_000;

/** A key as the client sent it, scoped to its tenant and route. */
export interface IdempotencyKeyRef {
  tenantId: string;
  route: string;
  key: string;
}

export const IdempotencyRecordSchema = v.object({
  entity: v.literal('idempotency-key'),
  /** The first request's body (lib/http/idempotency.ts `bodyFingerprint`). */
  fingerprint: v.string(),
  /** `gone`: what the response held was deleted since; only its fingerprint and the 410's detail remain. */
  state: v.picklist(['in-progress', 'done', 'gone']),
  /** The first request's own claim: only it may forget the key when it fails. */
  token: v.string(),
  /** While in progress: when the first request is presumed dead (epoch ms). */
  lease_until: v.optional(v.number()),
  created_at: v.string(),
  expires_at: v.number(),
  /** The first response, stored as the use case returned it (JSON). */
  result: v.optional(v.unknown()),
  gone_detail: v.optional(v.string()),
});
export type IdempotencyRecord = v.InferOutput<typeof IdempotencyRecordSchema>;

const keyOf = (ref: IdempotencyKeyRef) => keys.idempotencyKey(ref.tenantId, ref.route, ref.key);

/** The idempotency-key writes, as values (lib/store/write.ts). */
export const idempotencyWrites = {
  /** The first request takes the key: free, forgotten after 24 h (TTL deletes lazily), or held by a first request that died. */
  claim(ref: IdempotencyKeyRef, fingerprint: string, token: string, at: Date): TableWrite {
    return {
      Put: {
        Item: {
          ...keyOf(ref),
          entity: 'idempotency-key',
          fingerprint,
          state: 'in-progress',
          token,
          lease_until: at.getTime() + IN_PROGRESS_LEASE_MS,
          created_at: at.toISOString(),
          expires_at: Math.floor(at.getTime() / 1000) + IDEMPOTENCY_RETENTION_SECONDS,
        },
        ConditionExpression:
          'attribute_not_exists(pk) OR expires_at < :nowSeconds OR (#state = :inProgress AND lease_until < :nowMs)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':nowSeconds': Math.floor(at.getTime() / 1000),
          ':nowMs': at.getTime(),
          ':inProgress': 'in-progress',
        },
      },
      what: 'idempotency key',
    };
  },

  /** The first request's response, replayed to every repeat. */
  storeResult(ref: IdempotencyKeyRef, token: string, result: unknown): TableWrite {
    return {
      Update: {
        Key: keyOf(ref),
        UpdateExpression: 'SET #state = :done, #result = :result REMOVE lease_until',
        // Only while this request still holds the key: a first request that outlived its lease
        // must not overwrite the record of the request that took the key over, nor (its key
        // forgotten or expired meanwhile) create a record with no fingerprint or expiry.
        ConditionExpression: '#token = :token',
        ExpressionAttributeNames: { '#state': 'state', '#result': 'result', '#token': 'token' },
        ExpressionAttributeValues: { ':done': 'done', ':result': result, ':token': token },
      },
      what: 'idempotency key',
    };
  },

  /** A failed first request forgets the key, if it still holds it (its own token). */
  forget(ref: IdempotencyKeyRef, token: string): TableWrite {
    return {
      Delete: {
        Key: keyOf(ref),
        ConditionExpression: '#token = :token',
        ExpressionAttributeNames: { '#token': 'token' },
        ExpressionAttributeValues: { ':token': token },
      },
      what: 'idempotency key',
    };
  },

  /** Drops a stored response whose content was deleted: the record keeps its fingerprint, answered 410 with `detail`. */
  markGone(ref: IdempotencyKeyRef, detail: string): TableWrite {
    return {
      Update: {
        Key: keyOf(ref),
        UpdateExpression: 'SET #state = :gone, gone_detail = :detail REMOVE #result',
        ConditionExpression: '#state = :done',
        ExpressionAttributeNames: { '#state': 'state', '#result': 'result' },
        ExpressionAttributeValues: { ':gone': 'gone', ':done': 'done', ':detail': detail },
      },
      what: 'idempotency key',
    };
  },
};

/**
 * Takes the key for a first request with one conditional write, so concurrent repeats cannot
 * both run it. Refused: the record of the request that holds it (undefined when it was forgotten
 * meanwhile).
 */
export async function claimIdempotencyKey(
  table: Table,
  ref: IdempotencyKeyRef,
  fingerprint: string,
  token: string,
  at: Date,
): Promise<{ claimed: true } | { claimed: false; first: IdempotencyRecord | undefined }> {
  const outcome = await trySendWrite(table, idempotencyWrites.claim(ref, fingerprint, token, at));
  if (outcome.written) return { claimed: true };
  return {
    claimed: false,
    first: outcome.found ? parseItem(IdempotencyRecordSchema, outcome.found) : undefined,
  };
}

/** Stores the first request's response (JSON), replayed to every repeat. */
/**
 * Stores the first request's response for its repeats; false when the request no longer holds
 * the key (another request took it over after the lease, or it was forgotten or expired): the
 * response then stands for this request alone, and the key's record is left as it is.
 */
export function storeIdempotentResult(
  table: Table,
  ref: IdempotencyKeyRef,
  token: string,
  result: unknown,
): Promise<boolean> {
  return sendWriteIf(table, idempotencyWrites.storeResult(ref, token, result));
}

/** Forgets the key of a failed first request, unless another request holds it now (false then). */
export function forgetIdempotencyKey(table: Table, ref: IdempotencyKeyRef, token: string): Promise<boolean> {
  return sendWriteIf(table, idempotencyWrites.forget(ref, token));
}

/**
 * Drops a stored result whose content was deleted: the key's record keeps its fingerprint (the
 * same body is still this request, answered 410; another body is still 422) but no longer the
 * copy, so deleted personal data does not wait for the record's expiry in it. False when the
 * record no longer holds a result.
 */
export function markIdempotentResultGone(
  table: Table,
  ref: IdempotencyKeyRef,
  detail: string,
): Promise<boolean> {
  return sendWriteIf(table, idempotencyWrites.markGone(ref, detail));
}
