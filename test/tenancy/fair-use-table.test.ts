import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TooManyRequestsError } from '../../lib/common/errors.ts';
import { keys } from '../../lib/store/schema.ts';
import { transact } from '../../lib/store/write.ts';
import {
  countInRequestWindow,
  fairUseWrites,
  releaseStreamSlotItem,
  takeStreamSlotItem,
} from '../../lib/tenancy/fair-use-table.ts';
import { readItem, startTestStore, type TestStore } from '../support/dynamo.ts';

/**
 * The fair-use counters on DynamoDB Local: a tenant's requests in one window counted up to the
 * plan's limit and no further, and an open-stream slot held by one live stream at a time. Each is
 * one conditional write whose refusal is the answer.
 */
let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store?.close());

let tenants = 0;
/** A tenant of its own per test. */
const newTenant = () => `tfair${++tenants}`;

const WINDOW = { start: 1_800_000_000, end: 1_800_000_060 };
const tooMany = () => new TooManyRequestsError('Rate limit: 10 requests per minute on your plan', 7);
const count = (tenantId: string, window = WINDOW) =>
  countInRequestWindow(store.table, tenantId, window, 10, tooMany);
const windowItem = (tenantId: string, window = WINDOW) =>
  readItem(store.table, keys.requestWindow(tenantId, window.start));

const NOW = 1_800_000_000_000;
const stream = (streamId: string, leaseUntil = NOW + 30_000) => ({
  streamId,
  route: 'POST /batch/stream',
  leaseUntil,
});
const slotItem = (tenantId: string, slot = 0) => readItem(store.table, keys.streamSlot(tenantId, slot));

describe("a tenant's request window", () => {
  it('counts a request, kept a minute past its window for DynamoDB’s TTL', async () => {
    const tenant = newTenant();

    await count(tenant);

    expect(await windowItem(tenant)).toMatchObject({
      entity: 'request-window',
      requests: 1,
      expires_at: WINDOW.end + 60,
    });
  });

  it('refuses the request past the limit with the 429 it was given, counting nothing', async () => {
    const tenant = newTenant();
    for (let i = 0; i < 10; i++) await count(tenant);

    const refusal = count(tenant);

    await expect(refusal).rejects.toBeInstanceOf(TooManyRequestsError);
    await expect(refusal).rejects.toMatchObject({ retryAfterSeconds: 7 });
    expect((await windowItem(tenant))?.requests).toBe(10);
  });

  it('counts the next window afresh', async () => {
    const tenant = newTenant();
    for (let i = 0; i < 10; i++) await count(tenant);

    await count(tenant, { start: WINDOW.end, end: WINDOW.end + 60 });

    expect((await windowItem(tenant, { start: WINDOW.end, end: WINDOW.end + 60 }))?.requests).toBe(1);
  });

  it('lets exactly 10 of 30 concurrent requests through a limit of 10; the others get the 429', async () => {
    const tenant = newTenant();

    const outcomes = await Promise.allSettled(Array.from({ length: 30 }, () => count(tenant)));

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(10);
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(refused).toHaveLength(20);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(TooManyRequestsError);
    expect((await windowItem(tenant))?.requests).toBe(10);
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
  it('takes no stream slot when the request window is full, and counts nothing', async () => {
    const tenant = newTenant();
    for (let i = 0; i < 10; i++) await count(tenant);

    const refusal = transact(store.table, [
      fairUseWrites.takeStreamSlot(tenant, 0, stream('stream-a'), NOW),
      fairUseWrites.countRequest(tenant, WINDOW, 10, tooMany),
    ]);

    await expect(refusal).rejects.toBeInstanceOf(TooManyRequestsError);
    expect(await slotItem(tenant)).toBeUndefined();
    expect((await windowItem(tenant))?.requests).toBe(10);
  });
});
