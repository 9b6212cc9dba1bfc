import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TooManyRequestsError } from '../../lib/common/errors.ts';
import { keys } from '../../lib/store/schema.ts';
import { transact } from '../../lib/store/write.ts';
import {
  fairUseWrites,
  releaseStreamSlotItem,
  takeStreamSlotItem,
} from '../../lib/tenancy/fair-use-table.ts';
import { countRequest } from '../../lib/tenancy/limits.ts';
import { PLANS } from '../../lib/tenancy/plans.ts';
import { rateLimitOf } from '../../lib/tenancy/request-rate.ts';
import { readItem, startTestStore, type TestStore } from '../support/dynamo.ts';

/**
 * The fair-use counters on DynamoDB Local: a tenant's requests admitted at the plan's rate and no
 * faster, however many arrive at once, and an open-stream slot held by one live stream at a time.
 * Each is a conditional write whose refusal is the answer.
 */
let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store?.close());

let tenants = 0;
/** A tenant of its own per test. */
const newTenant = () => `tfair${++tenants}`;

const STARTER = PLANS.starter;
const LIMIT = rateLimitOf(STARTER);
const count = (tenantId: string, atMs: number) => countRequest(store.table, tenantId, STARTER, atMs);
const rateItem = (tenantId: string) => readItem(store.table, keys.requestRate(tenantId));
/** How many of the requests were admitted; every other one must be the rate's 429. */
function admittedOf(outcomes: PromiseSettledResult<void>[]): number {
  for (const o of outcomes)
    if (o.status === 'rejected')
      expect((o as PromiseRejectedResult).reason).toBeInstanceOf(TooManyRequestsError);
  return outcomes.filter((o) => o.status === 'fulfilled').length;
}

const NOW = 1_800_000_000_000;
const stream = (streamId: string, leaseUntil = NOW + 30_000) => ({
  streamId,
  route: 'POST /batch/stream',
  leaseUntil,
});
const slotItem = (tenantId: string, slot = 0) => readItem(store.table, keys.streamSlot(tenantId, slot));

describe("a tenant's request rate", () => {
  it('admits a request and stores the time the next one is due at the steady rate', async () => {
    const tenant = newTenant();

    await count(tenant, NOW);

    expect(await rateItem(tenant)).toMatchObject({
      entity: 'request-rate',
      tat: NOW * 1000 + LIMIT.intervalMicros,
    });
  });

  it('of 30 concurrent requests at one instant admits exactly the burst (10 on Starter); the others get the 429', async () => {
    const tenant = newTenant();

    const outcomes = await Promise.allSettled(Array.from({ length: 30 }, () => count(tenant, NOW)));

    expect(admittedOf(outcomes)).toBe(LIMIT.burst);
    const refusal = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(refusal.reason).toMatchObject({
      status: 429,
      retryAfterSeconds: 1,
      detail: expect.stringMatching(
        /^Request rate limit reached: the Starter plan allows 100 requests in any 10 seconds \(10 per second\), at most 10 of them at once, for your tenant; retry after 1 s\.$/,
      ),
    });
  });

  it('admits a refused request once its Retry-After has passed', async () => {
    const tenant = newTenant();
    await Promise.allSettled(Array.from({ length: LIMIT.burst }, () => count(tenant, NOW)));
    const refused = (await count(tenant, NOW).catch((error: unknown) => error)) as TooManyRequestsError;

    await expect(count(tenant, NOW + refused.retryAfterSeconds * 1000)).resolves.toBeUndefined();
  });

  it('never admits more than 100 in any 10 seconds, however many arrive at once, at any offset', async () => {
    const tenant = newTenant();
    // 25 requests at once every 700 ms for 14 s: far past the rate, across every window's edge.
    const admittedAt: number[] = [];
    for (let at = NOW; at <= NOW + 14_000; at += 700) {
      const outcomes = await Promise.allSettled(Array.from({ length: 25 }, () => count(tenant, at)));
      for (let i = 0; i < admittedOf(outcomes); i++) admittedAt.push(at);
    }

    let busiest = 0;
    for (const start of admittedAt)
      busiest = Math.max(busiest, admittedAt.filter((t) => t >= start && t <= start + 10_000).length);
    expect(busiest).toBeLessThanOrEqual(LIMIT.requests);
    // ...and is not met by refusing what it allows: a burst, then about 9 a second.
    expect(busiest).toBeGreaterThanOrEqual(LIMIT.requests - 10);
  });
});

describe('an open-stream slot', () => {
  it('is taken when free, naming its stream, route and lease', async () => {
    const tenant = newTenant();

    expect(await takeStreamSlotItem(store.table, tenant, 0, stream('stream-a'), NOW)).toBe(true);
    expect(await slotItem(tenant)).toMatchObject({
      entity: 'stream-slot',
      stream_id: 'stream-a',
      stream_route: 'POST /batch/stream',
      lease_until: NOW + 30_000,
    });
  });

  it('is refused while a live stream holds it, which keeps it as it was', async () => {
    const tenant = newTenant();
    await takeStreamSlotItem(store.table, tenant, 0, stream('stream-a'), NOW);
    const before = await slotItem(tenant);

    expect(await takeStreamSlotItem(store.table, tenant, 0, stream('stream-b'), NOW + 1000)).toBe(false);
    expect(await slotItem(tenant)).toEqual(before);
  });

  it('is taken from a stream whose lease has passed (it died without releasing)', async () => {
    const tenant = newTenant();
    await takeStreamSlotItem(store.table, tenant, 0, stream('stream-a'), NOW);

    expect(
      await takeStreamSlotItem(store.table, tenant, 0, stream('stream-b', NOW + 60_000), NOW + 30_001),
    ).toBe(true);
    expect((await slotItem(tenant))?.stream_id).toBe('stream-b');
  });

  it('is freed only by its own stream', async () => {
    const tenant = newTenant();
    await takeStreamSlotItem(store.table, tenant, 0, stream('stream-a'), NOW);

    await releaseStreamSlotItem(store.table, tenant, 0, 'stream-b');
    const afterOther = await slotItem(tenant);
    await releaseStreamSlotItem(store.table, tenant, 0, 'stream-a');

    expect(afterOther?.stream_id).toBe('stream-a');
    expect((await slotItem(tenant))?.stream_id).toBeUndefined();
    expect(await takeStreamSlotItem(store.table, tenant, 0, stream('stream-b'), NOW)).toBe(true);
  });

  it('is taken by exactly one of 20 streams opening at once', async () => {
    const tenant = newTenant();

    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        takeStreamSlotItem(store.table, tenant, 0, stream(`stream-${i}`), NOW),
      ),
    );

    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect((await slotItem(tenant))?.stream_id).toBe(`stream-${outcomes.indexOf(true)}`);
  });
});

describe('in a transaction', () => {
  it('takes no stream slot when the request rate refuses, and changes nothing', async () => {
    const tenant = newTenant();
    await count(tenant, NOW);
    const before = await rateItem(tenant);

    const refusal = transact(store.table, [
      fairUseWrites.takeStreamSlot(tenant, 0, stream('stream-a'), NOW),
      // The bucket is not full: the write for a full one is refused.
      fairUseWrites.admitIdle(tenant, NOW * 1000, LIMIT),
    ]);

    await expect(refusal).rejects.toThrow();
    expect(await slotItem(tenant)).toBeUndefined();
    expect(await rateItem(tenant)).toEqual(before);
  });
});
