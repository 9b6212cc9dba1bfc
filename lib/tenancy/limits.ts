import { randomUUID } from 'node:crypto';
import { TooManyRequestsError } from '../common/errors.ts';
import type { Table } from '../store/table.ts';
import { countInRequestWindow, releaseStreamSlotItem, takeStreamSlotItem } from './fair-use-table.ts';
import type { Plan } from './plans.ts';

/**
 * Fair use between tenants, enforced by the request pipeline (lib/http/handler.ts) with the table
 * (the counters: lib/tenancy/fair-use-table.ts), per tenant and per plan (lib/tenancy/plans.ts). The stage throttle and the stream functions'
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
  await countInRequestWindow(
    table,
    tenantId,
    { start: windowSeconds, end: windowSeconds + RATE_WINDOW_SECONDS },
    limit,
    () => {
      const retryAfter = Math.max(1, windowSeconds + RATE_WINDOW_SECONDS - Math.floor(now / 1000));
      return new TooManyRequestsError(
        `Request rate limit reached: the ${plan.name} plan allows ${limit} requests per ${RATE_WINDOW_SECONDS} seconds (${plan.requests_per_second} per second) for your tenant; retry after ${retryAfter} s.`,
        retryAfter,
      );
    },
  );
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
    const taken = await takeStreamSlotItem(
      table,
      tenantId,
      slot,
      { streamId, route, leaseUntil: now + STREAM_LEASE_MS },
      now,
    );
    if (taken) return { tenantId, slot, streamId };
  }
  throw new TooManyRequestsError(
    `Open stream limit reached: the ${plan.name} plan allows ${plan.open_streams} streamed responses (batch streams, exports) open at once for your tenant; retry when one of them has ended.`,
    STREAM_RETRY_AFTER_SECONDS,
    'stream_limit',
  );
}

/** Gives a slot back, only while it is still this stream's (after its lease another may hold it). */
export async function releaseStreamSlot(table: Table, slot: StreamSlot): Promise<void> {
  await releaseStreamSlotItem(table, slot.tenantId, slot.slot, slot.streamId);
}
