import * as v from 'valibot';
import { keys } from '../store/schema.ts';
import type { Table } from '../store/table.ts';
import { trySendWrite, type UpdateWrite } from '../store/write.ts';
import type { RateLimit } from './request-rate.ts';

/**
 * The fair-use counters (lib/tenancy/limits.ts holds the rules): a tenant's request rate and
 * open-stream slots. Neither is read before it is written: each is a conditional write, whose
 * refusal (with the item it found) is the answer.
 */

/**
 * A tenant's request rate (pk TENANT#<tid>, sk RATE): the theoretical arrival time of its next
 * request, epoch microseconds (lib/tenancy/request-rate.ts).
 */
const RequestRateItemSchema = v.object({
  tat: v.number(),
});
export type RequestRateItem = v.InferOutput<typeof RequestRateItemSchema>;

/**
 * One of a tenant's open-stream slots (pk TENANT#<tid>, sk STREAMSLOT#<n>): free without a
 * `stream_id`, or once its lease has passed.
 */
const StreamSlotItemSchema = v.object({
  stream_id: v.optional(v.string()),
  stream_route: v.optional(v.string()),
  /** Epoch milliseconds. */
  lease_until: v.optional(v.number()),
});
export type StreamSlotItem = v.InferOutput<typeof StreamSlotItemSchema>;

/** The fair-use counters' writes, as values (lib/store/write.ts). */
export const fairUseWrites = {
  /**
   * Admits a request of a tenant whose bucket is full (its TAT not after `now`): the TAT becomes
   * now + T. Refused when the TAT is after now.
   */
  admitIdle(tenantId: string, now: number, limit: RateLimit): UpdateWrite {
    return {
      Update: {
        Key: keys.requestRate(tenantId),
        UpdateExpression: 'SET entity = :entity, tat = :next',
        ConditionExpression: 'attribute_not_exists(tat) OR tat <= :now',
        ExpressionAttributeValues: {
          ':entity': 'request-rate',
          ':next': now + limit.intervalMicros,
          ':now': now,
        },
      },
      what: 'request rate',
    };
  },

  /**
   * Admits a request of a tenant whose TAT is after `now` by at most τ: the TAT moves on by T.
   * Refused otherwise (the bucket is empty, or full again).
   */
  admitBusy(tenantId: string, now: number, limit: RateLimit): UpdateWrite {
    return {
      Update: {
        Key: keys.requestRate(tenantId),
        UpdateExpression: 'SET tat = tat + :interval',
        ConditionExpression: 'tat > :now AND tat <= :latest',
        ExpressionAttributeValues: {
          ':interval': limit.intervalMicros,
          ':now': now,
          ':latest': now + limit.toleranceMicros,
        },
      },
      what: 'request rate',
    };
  },

  /** Takes stream slot `slot` for `streamId` until `leaseUntil`: refused while a live stream holds it. */
  takeStreamSlot(
    tenantId: string,
    slot: number,
    stream: { streamId: string; route: string; leaseUntil: number },
    now: number,
  ): UpdateWrite {
    return {
      Update: {
        Key: keys.streamSlot(tenantId, slot),
        UpdateExpression:
          'SET entity = :entity, stream_id = :stream, stream_route = :route, lease_until = :until',
        ConditionExpression: 'attribute_not_exists(stream_id) OR lease_until < :now',
        ExpressionAttributeValues: {
          ':entity': 'stream-slot',
          ':stream': stream.streamId,
          ':route': stream.route,
          ':until': stream.leaseUntil,
          ':now': now,
        },
      },
      what: 'stream slot',
    };
  },

  /** Frees stream slot `slot`, only while it is still `streamId`'s. */
  releaseStreamSlot(tenantId: string, slot: number, streamId: string): UpdateWrite {
    return {
      Update: {
        Key: keys.streamSlot(tenantId, slot),
        UpdateExpression: 'REMOVE stream_id, stream_route, lease_until',
        ConditionExpression: 'stream_id = :stream',
        ExpressionAttributeValues: { ':stream': streamId },
      },
      what: 'stream slot',
    };
  },
};

/**
 * Sends one of the request rate's admissions ({@link fairUseWrites.admitIdle} or `admitBusy`):
 * admitted, or refused with the TAT it found (undefined: none). It asks for no values back: a
 * read-only route may write the counters, with `ReturnValues` NONE (infra/cdk/constructs/table-access.ts).
 */
export async function admitRequest(
  table: Table,
  write: UpdateWrite,
): Promise<{ admitted: true } | { admitted: false; tat: number | undefined }> {
  const outcome = await trySendWrite(table, write);
  if (outcome.written) return { admitted: true };
  const found = outcome.found ? v.parse(RequestRateItemSchema, outcome.found) : undefined;
  return { admitted: false, tat: found?.tat };
}

/** Takes one stream slot ({@link fairUseWrites.takeStreamSlot}); false while a live stream holds it. */
export async function takeStreamSlotItem(
  table: Table,
  tenantId: string,
  slot: number,
  stream: { streamId: string; route: string; leaseUntil: number },
  now: number,
): Promise<boolean> {
  return (await trySendWrite(table, fairUseWrites.takeStreamSlot(tenantId, slot, stream, now))).written;
}

/** Frees a stream slot while it is still this stream's; nothing when another holds it by now. */
export async function releaseStreamSlotItem(
  table: Table,
  tenantId: string,
  slot: number,
  streamId: string,
): Promise<void> {
  await trySendWrite(table, fairUseWrites.releaseStreamSlot(tenantId, slot, streamId));
}
