import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TooManyRequestsError } from '../common/errors.ts';
import { keys } from '../store/schema.ts';
import { isConditionalCheckFailed, type Table } from '../store/table.ts';
import type { Plan } from './plans.ts';

/**
 * Fair use between tenants, enforced by the request pipeline (lib/http/handler.ts) with the table,
 * per tenant and per plan (lib/tenancy/plans.ts). The stage throttle and the stream functions'
 * reserved concurrency are shared by every tenant; these limits are what keeps one tenant from
 * taking all of them. Each answers 429 with `Retry-After` and a detail that names the limit, never
 * the monthly quota's screens.
 *
 * Request rate: a fixed window of RATE_WINDOW_SECONDS per tenant, one item per window, counted by
 * ONE conditional UpdateItem per authenticated request (`ADD requests 1` while `requests` is below
 * the plan's limit for the window). A token bucket would need the time since the last refill in
 * the write, which an update expression cannot compute; the fixed window can let through up to
 * twice a window's worth across a window boundary, which the limit allows for.
 *
 * Open streams: the plan's `open_streams` slots per tenant, one item each. A stream takes a slot
 * with one conditional UpdateItem (free, or its lease has passed) and gives it back when it ends,
 * with a condition naming itself. The lease is the stream function's longest life, so a stream
 * whose process died frees its slot by itself: a crash never holds a slot for good.
 */

export const RATE_WINDOW_SECONDS = 10;

/**
 * How long a slot stays taken without being given back: the stream functions' timeout (10 min,
 * infra/cdk/constructs/batch-pipeline.ts) and a minute's margin.
 */
export const STREAM_LEASE_MS = 11 * 60_000;

/** The Retry-After of a refused stream: a slot frees when one of the tenant's streams ends. */
export const STREAM_RETRY_AFTER_SECONDS = 15;

/** Counts one request of the tenant in the current window; 429 once the window's limit is reached. */
export async function countRequest(
  table: Table,
  tenantId: string,
  plan: Plan,
  now = Date.now(),
): Promise<void> {
  const windowSeconds = Math.floor(now / 1000 / RATE_WINDOW_SECONDS) * RATE_WINDOW_SECONDS;
  const limit = plan.requests_per_second * RATE_WINDOW_SECONDS;
  try {
    await table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: keys.requestWindow(tenantId, windowSeconds),
        UpdateExpression: 'SET entity = :entity, expires_at = :expires ADD requests :one',
        ConditionExpression: 'attribute_not_exists(requests) OR requests < :limit',
        ExpressionAttributeValues: {
          ':entity': 'request-window',
          // Kept a minute past its window, for whoever looks; DynamoDB's TTL deletes it later.
          ':expires': windowSeconds + RATE_WINDOW_SECONDS + 60,
          ':one': 1,
          ':limit': limit,
        },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const retryAfter = Math.max(1, windowSeconds + RATE_WINDOW_SECONDS - Math.floor(now / 1000));
    throw new TooManyRequestsError(
      `Request rate limit reached: the ${plan.name} plan allows ${limit} requests per ${RATE_WINDOW_SECONDS} seconds (${plan.requests_per_second} per second) for your tenant; retry after ${retryAfter} s.`,
      retryAfter,
    );
  }
}

/** A taken stream slot: give it back with `releaseStreamSlot` when the stream ends. */
export interface StreamSlot {
  tenantId: string;
  slot: number;
  streamId: string;
}

/**
 * Takes one of the tenant's stream slots, or answers 429 when all of them are held by live
 * streams. The slots are tried from a random one on, so concurrent streams seldom race for the
 * same slot; each try is one conditional write.
 */
export async function takeStreamSlot(
  table: Table,
  tenantId: string,
  plan: Plan,
  route: string,
  now = Date.now(),
): Promise<StreamSlot> {
  const streamId = randomUUID();
  const first = Math.floor(Math.random() * plan.open_streams);
  for (let i = 0; i < plan.open_streams; i += 1) {
    const slot = (first + i) % plan.open_streams;
    try {
      await table.doc.send(
        new UpdateCommand({
          TableName: table.name,
          Key: keys.streamSlot(tenantId, slot),
          UpdateExpression:
            'SET entity = :entity, stream_id = :stream, stream_route = :route, lease_until = :until',
          ConditionExpression: 'attribute_not_exists(stream_id) OR lease_until < :now',
          ExpressionAttributeValues: {
            ':entity': 'stream-slot',
            ':stream': streamId,
            ':route': route,
            ':until': now + STREAM_LEASE_MS,
            ':now': now,
          },
        }),
      );
      return { tenantId, slot, streamId };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
    }
  }
  throw new TooManyRequestsError(
    `Open stream limit reached: the ${plan.name} plan allows ${plan.open_streams} streamed responses (batch streams, exports) open at once for your tenant; retry when one of them has ended.`,
    STREAM_RETRY_AFTER_SECONDS,
    'stream_limit',
  );
}

/** Gives a slot back, only while it is still this stream's (after its lease another may hold it). */
export async function releaseStreamSlot(table: Table, slot: StreamSlot): Promise<void> {
  try {
    await table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: keys.streamSlot(slot.tenantId, slot.slot),
        UpdateExpression: 'REMOVE stream_id, stream_route, lease_until',
        ConditionExpression: 'stream_id = :stream',
        ExpressionAttributeValues: { ':stream': slot.streamId },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}
