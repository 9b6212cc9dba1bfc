import { randomUUID } from 'node:crypto';
import { TooManyRequestsError } from '../common/errors.ts';
import type { Table } from '../store/table.ts';
import { admitRequest, fairUseWrites, releaseStreamSlotItem, takeStreamSlotItem } from './fair-use-table.ts';
import type { Plan } from './plans.ts';
import { decide, MICROS_PER_SECOND, type RateLimit, rateLimitOf, retryAfterSeconds } from './request-rate.ts';

/**
 * Fair use between tenants, enforced by the request pipeline (lib/http/handler.ts) with the table
 * (the counters: lib/tenancy/fair-use-table.ts), per tenant and per plan (lib/tenancy/plans.ts). The stage throttle and the stream functions'
 * reserved concurrency are shared by every tenant, and sized from these limits' sum
 * (lib/tenancy/capacity.ts); these limits are what keeps one tenant from taking more than its
 * share. Each answers 429 with `Retry-After` and a detail that names the limit, never
 * the monthly quota's screens.
 *
 * Request rate: a token bucket per tenant (lib/tenancy/request-rate.ts: the plan's
 * `requests_per_second` × 10 in any 10 seconds, one second's worth at once), whose whole state is
 * one number on one item, the theoretical arrival time (TAT) of the tenant's next request. Each
 * authenticated request is admitted by ONE conditional UpdateItem: `SET tat = now + T` if the TAT
 * is not after now (the bucket is full), or `SET tat = tat + T` if it is after now by at most τ;
 * neither needs more arithmetic than an update expression has. Which of the two to send is
 * guessed from the TAT this process last saw for the tenant; a wrong guess is refused with the TAT
 * found, which decides the other write (or the 429) exactly, so a guess costs at most one more
 * write and never admits what the bucket would not.
 *
 * Open streams: the plan's `open_streams` slots per tenant, one item each. A stream takes a slot
 * with one conditional UpdateItem (free, or its lease has passed) and gives it back when it ends,
 * with a condition naming itself. The lease is the stream function's longest life, so a stream
 * whose process died frees its slot by itself: a crash never holds a slot for good.
 */

/**
 * How long a slot stays taken without being given back: the stream functions' timeout (10 min,
 * infra/cdk/constructs/batch-pipeline.ts) and a minute's margin.
 */
export const STREAM_LEASE_MS = 11 * 60_000;

/** The Retry-After of a refused stream: a slot frees when one of the tenant's streams ends. */
export const STREAM_RETRY_AFTER_SECONDS = 15;

/**
 * The TAT each tenant's requests last left here, at least (epoch µs): only a guess at which write
 * to send first, never a reason to admit or refuse. Forgotten wholesale past 10,000 tenants.
 */
const seenTat = new Map<string, number>();
const SEEN_TENANTS = 10_000;

function remember(tenantId: string, tat: number | undefined): void {
  if (tat === undefined) return;
  if (seenTat.size >= SEEN_TENANTS) seenTat.clear();
  seenTat.set(tenantId, tat);
}

/** The 429 of a request past the plan's rate. */
function rateRefusal(plan: Plan, limit: RateLimit, retryAfter: number): TooManyRequestsError {
  return new TooManyRequestsError(
    `Request rate limit reached: the ${plan.name} plan allows ${limit.requests} requests in any ${limit.windowSeconds} seconds (${plan.requests_per_second} per second), at most ${limit.burst} of them at once, for your tenant; retry after ${retryAfter} s.`,
    retryAfter,
  );
}

/**
 * Admits one request of the tenant at its plan's rate (one conditional write, two when the guess
 * of which was wrong); past the rate, 429 with the seconds until a request would be admitted.
 */
export async function countRequest(
  table: Table,
  tenantId: string,
  plan: Plan,
  nowMs = Date.now(),
): Promise<void> {
  const limit = rateLimitOf(plan);
  const now = Math.round(nowMs * 1000);
  const seen = seenTat.get(tenantId);
  let kind: 'idle' | 'busy' = seen !== undefined && seen > now ? 'busy' : 'idle';
  // A refused write found a TAT that decides the other one; the TAT only moves forward, so after
  // an idle write is refused (the TAT is after now) the busy one is final: three writes at most.
  for (let attempt = 1; attempt <= 3; attempt++) {
    const write = kind === 'idle' ? fairUseWrites.admitIdle : fairUseWrites.admitBusy;
    const outcome = await admitRequest(table, write(tenantId, now, limit));
    if (outcome.admitted) {
      remember(tenantId, now + limit.intervalMicros);
      return;
    }
    remember(tenantId, outcome.tat);
    const decision = decide(outcome.tat, now, limit);
    if (!decision.admitted) throw rateRefusal(plan, limit, retryAfterSeconds(decision.retryAfterMicros));
    kind = decision.kind;
  }
  // Not reached (see above); were it ever, a short wait is the honest answer.
  throw rateRefusal(plan, limit, retryAfterSeconds(MICROS_PER_SECOND));
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
