import * as v from 'valibot';
import type { TooManyRequestsError } from '../common/errors.ts';
import { keys } from '../store/schema.ts';
import type { Table } from '../store/table.ts';
import { sendWrite, trySendWrite, type UpdateWrite } from '../store/write.ts';

/**
 * The fair-use counters (lib/tenancy/limits.ts holds the rules): a tenant's request windows and
 * open-stream slots. Neither is ever read: each is one conditional write, whose refusal is the
 * answer.
 */

/**
 * A tenant's requests in one fixed window (pk TENANT#<tid>, sk RATE#<window start, epoch s>),
 * deleted by DynamoDB's TTL (`expires_at`) after its window.
 */
const RequestWindowItemSchema = v.object({
  requests: v.number(),
  expires_at: v.number(),
});
export type RequestWindowItem = v.InferOutput<typeof RequestWindowItemSchema>;

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
   * Counts one request in the window from `window.start` to `window.end` (epoch seconds): ADD requests 1 while `requests` is below `limit`. Refused: `refused()`.
   */
  countRequest(
    tenantId: string,
    window: { start: number; end: number },
    limit: number,
    refused: () => TooManyRequestsError,
  ): UpdateWrite {
    return {
      Update: {
        Key: keys.requestWindow(tenantId, window.start),
        UpdateExpression: 'SET entity = :entity, expires_at = :expires ADD requests :one',
        ConditionExpression: 'attribute_not_exists(requests) OR requests < :limit',
        ExpressionAttributeValues: {
          ':entity': 'request-window',
          // Kept a minute past its window, for whoever looks; DynamoDB's TTL deletes it later.
          ':expires': window.end + 60,
          ':one': 1,
          ':limit': limit,
        },
      },
      what: 'request window',
      refused,
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
 * Counts one request in its window ({@link fairUseWrites.countRequest}); once the window is full,
 * throws `refused()` (the 429 naming the plan's limit).
 */
export async function countInRequestWindow(
  table: Table,
  tenantId: string,
  window: { start: number; end: number },
  limit: number,
  refused: () => TooManyRequestsError,
): Promise<void> {
  await sendWrite(table, fairUseWrites.countRequest(tenantId, window, limit, refused));
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
