import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  claimIdempotencyKey,
  forgetIdempotencyKey,
  IDEMPOTENCY_RETENTION_SECONDS,
  type IdempotencyKeyRef,
  IdempotencyRecordSchema,
  idempotencyWrites,
  markIdempotentResultGone,
  storeIdempotentResult,
} from '../../lib/http/idempotency-table.ts';
import { keys } from '../../lib/store/schema.ts';
import { transact } from '../../lib/store/write.ts';
import { readItem, startTestStore, type TestStore } from '../support/dynamo.ts';

/**
 * The idempotency-key item on DynamoDB Local: the first request sent with a key takes it once;
 * a repeat finds the first request's record (in progress, done with its response, or gone); only
 * the first request forgets it; a first request that died, or a key past its 24 hours, frees it.
 */
let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store?.close());

let keysUsed = 0;
/** A key of its own per test. */
const newKey = (): IdempotencyKeyRef => ({
  tenantId: 'tidem',
  route: 'POST /screen',
  key: `key-${++keysUsed}`,
});
const stored = (ref: IdempotencyKeyRef) =>
  readItem(store.table, keys.idempotencyKey(ref.tenantId, ref.route, ref.key));

const AT = new Date('2026-12-01T12:00:00Z');
const later = (ms: number) => new Date(AT.getTime() + ms);
const LEASE_MS = 15 * 60_000;

describe('the first request', () => {
  it('takes a free key; its record reads back parsed, in progress under its token', async () => {
    const ref = newKey();

    const outcome = await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-a', AT);

    expect(outcome).toEqual({ claimed: true });
    expect(v.parse(IdempotencyRecordSchema, await stored(ref))).toEqual({
      entity: 'idempotency-key',
      fingerprint: 'fp-1',
      state: 'in-progress',
      token: 'token-a',
      lease_until: AT.getTime() + LEASE_MS,
      created_at: AT.toISOString(),
      expires_at: AT.getTime() / 1000 + IDEMPOTENCY_RETENTION_SECONDS,
    });
  });

  it('stores its response for every repeat, no longer in progress', async () => {
    const ref = newKey();
    await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-a', AT);

    await storeIdempotentResult(store.table, ref, 'token-a', { screen_id: 'SCR-20261201-000001' });

    const record = v.parse(IdempotencyRecordSchema, await stored(ref));
    expect(record).toMatchObject({ state: 'done', result: { screen_id: 'SCR-20261201-000001' } });
    expect(record.lease_until).toBeUndefined();
  });
});

describe('a first request that no longer holds its key', () => {
  it('stores nothing when its key was forgotten meanwhile: no stub, and the key is free for the next request', async () => {
    const ref = newKey();
    await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-a', AT);
    await forgetIdempotencyKey(store.table, ref, 'token-a');

    expect(
      await storeIdempotentResult(store.table, ref, 'token-a', { screen_id: 'SCR-20261201-000009' }),
    ).toBe(false);

    expect(await stored(ref)).toBeUndefined();
    expect(await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-b', AT)).toEqual({ claimed: true });
  });

  it("leaves the request that took its key over that request's own record", async () => {
    const ref = newKey();
    await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-a', AT);
    await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-b', later(LEASE_MS + 1));
    const before = await stored(ref);

    expect(
      await storeIdempotentResult(store.table, ref, 'token-a', { screen_id: 'SCR-20261201-000010' }),
    ).toBe(false);

    expect(await stored(ref)).toEqual(before);
  });
});

describe('a repeat', () => {
  it("is refused while the first request runs, and finds that request's record as it was", async () => {
    const ref = newKey();
    await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-a', AT);
    const before = await stored(ref);

    const outcome = await claimIdempotencyKey(store.table, ref, 'fp-2', 'token-b', later(1000));

    expect(outcome).toEqual({
      claimed: false,
      first: expect.objectContaining({ fingerprint: 'fp-1', state: 'in-progress', token: 'token-a' }),
    });
    expect(await stored(ref)).toEqual(before);
  });

  it('finds the stored response, even after the in-progress lease would have passed', async () => {
    const ref = newKey();
    await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-a', AT);
    await storeIdempotentResult(store.table, ref, 'token-a', { ok: true });

    const outcome = await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-b', later(LEASE_MS + 1));

    expect(outcome).toMatchObject({ claimed: false, first: { state: 'done', result: { ok: true } } });
  });

  it('takes the key of a first request that died (its lease passed)', async () => {
    const ref = newKey();
    await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-a', AT);

    const outcome = await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-b', later(LEASE_MS + 1));

    expect(outcome).toEqual({ claimed: true });
    expect(await stored(ref)).toMatchObject({ token: 'token-b', state: 'in-progress' });
  });

  it('takes a key remembered past its 24 hours (before the TTL deleted it)', async () => {
    const ref = newKey();
    await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-a', AT);
    await storeIdempotentResult(store.table, ref, 'token-a', { ok: true });

    const outcome = await claimIdempotencyKey(
      store.table,
      ref,
      'fp-2',
      'token-b',
      later((IDEMPOTENCY_RETENTION_SECONDS + 1) * 1000),
    );

    expect(outcome).toEqual({ claimed: true });
    expect(await stored(ref)).toMatchObject({ fingerprint: 'fp-2', state: 'in-progress' });
  });

  it('is one of 20 concurrent requests with the same key: exactly one runs, the others see its record', async () => {
    const ref = newKey();

    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => claimIdempotencyKey(store.table, ref, 'fp-1', `token-${i}`, AT)),
    );

    const winners = outcomes.flatMap((outcome, i) => (outcome.claimed ? [`token-${i}`] : []));
    expect(winners).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => !o.claimed))
      expect(outcome).toMatchObject({ claimed: false, first: { token: winners[0] } });
    expect(await stored(ref)).toMatchObject({ token: winners[0] });
  });
});

describe('forgetting a key', () => {
  it('frees it for the next request when the failed first request forgets it', async () => {
    const ref = newKey();
    await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-a', AT);

    expect(await forgetIdempotencyKey(store.table, ref, 'token-a')).toBe(true);
    expect(await stored(ref)).toBeUndefined();
    expect(await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-b', AT)).toEqual({ claimed: true });
  });

  it('is refused to a request that no longer holds it, which leaves the holder its key', async () => {
    const ref = newKey();
    await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-a', AT);
    await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-b', later(LEASE_MS + 1));
    const before = await stored(ref);

    // The first request, presumed dead, fails at last: the key is the second request's now.
    expect(await forgetIdempotencyKey(store.table, ref, 'token-a')).toBe(false);
    expect(await stored(ref)).toEqual(before);
  });
});

describe('a stored response whose content was deleted', () => {
  it('is dropped; the record keeps its fingerprint and the detail of its 410', async () => {
    const ref = newKey();
    await claimIdempotencyKey(store.table, ref, 'fp-1', 'token-a', AT);
    await storeIdempotentResult(store.table, ref, 'token-a', { name: 'Personal Data' });

    expect(await markIdempotentResultGone(store.table, ref, 'Screen deleted')).toBe(true);

    const record = v.parse(IdempotencyRecordSchema, await stored(ref));
    expect(record).toMatchObject({ state: 'gone', fingerprint: 'fp-1', gone_detail: 'Screen deleted' });
    expect(record.result).toBeUndefined();
  });

  it('is refused on a key with no response stored, leaving it as it was and creating none', async () => {
    const running = newKey();
    const absent = newKey();
    await claimIdempotencyKey(store.table, running, 'fp-1', 'token-a', AT);
    const before = await stored(running);

    expect(await markIdempotentResultGone(store.table, running, 'Screen deleted')).toBe(false);
    expect(await markIdempotentResultGone(store.table, absent, 'Screen deleted')).toBe(false);
    expect(await stored(running)).toEqual(before);
    expect(await stored(absent)).toBeUndefined();
  });
});

describe('in a transaction', () => {
  it('takes neither key when one of them is held', async () => {
    const free = newKey();
    const held = newKey();
    await claimIdempotencyKey(store.table, held, 'fp-1', 'token-a', AT);
    const heldBefore = await stored(held);

    const outcome = transact(store.table, [
      idempotencyWrites.claim(free, 'fp-2', 'token-b', AT),
      idempotencyWrites.claim(held, 'fp-2', 'token-b', AT),
    ]);

    await expect(outcome).rejects.toThrow('The idempotency key changed meanwhile; read it again and retry');
    expect(await stored(free)).toBeUndefined();
    expect(await stored(held)).toEqual(heldBefore);
  });
});
