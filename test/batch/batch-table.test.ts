import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BatchRecord,
  type BatchRef,
  batchItemWrites,
  batchWrites,
  CLAIM_LEASE_MS,
  claimBatchItem,
  closeBatch,
  expireClaim,
  failBatchItem,
  failedItems,
  finishBatchItem,
  getBatch,
  listOpenBatches,
  nextFinishSequence,
  openBatch,
  putBatchItems,
  putBatchRecord,
  readFinishedItems,
  releaseBatchItem,
  unfinishedItems,
} from '../../lib/batch/batch-table.ts';
import { keys } from '../../lib/store/schema.ts';
import { transact } from '../../lib/store/write.ts';
import { readItem, startTestStore, type TestStore } from '../support/dynamo.ts';

/**
 * The batch's items on DynamoDB Local: the batch record (an id never reused, a finish counter),
 * one item per subject (claimed by one worker at a time, finished by its holder once, failed at
 * most once) and the open-batch marker.
 */
let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store?.close());

const TENANT = 'tbatchtable';
const AT = new Date('2026-12-01T12:00:00Z');
const EXPIRES = 1_900_000_000;
let batches = 0;

function recordOf(ref: BatchRef, total: number): BatchRecord {
  return {
    purpose: 'screen',
    entity: 'batch',
    batch_id: ref.batchId,
    tenant_id: ref.tenantId,
    total,
    types: ['sanctions'],
    plan: 'growth',
    created_by: { user_id: 'u1', role: 'analyst' },
    created_at: AT.toISOString(),
    finished: 0,
    expires_at: EXPIRES,
  };
}

/** A batch of `total` queued subjects, written as the module writes one: marker, items, record. */
async function newBatch(total: number) {
  const ref = { tenantId: TENANT, batchId: `BAT-table-${++batches}` };
  await openBatch(store.table, {
    entity: 'open-batch',
    tenant_id: ref.tenantId,
    batch_id: ref.batchId,
    total,
    charged_at: AT.toISOString(),
    expires_at: EXPIRES,
  });
  const subjects = Array.from({ length: total }, (_, i) => ({
    name: `Batch Person ${i}`,
    dob: '1970-01-01',
  }));
  await putBatchItems(store.table, ref, subjects, EXPIRES);
  await putBatchRecord(store.table, recordOf(ref, total));
  return { ...ref, total, purpose: 'screen' as const };
}

const screened = { screen_id: 'SCR-20261201-000001', risk_level: 'CLEAR' as const, skipped: false };
const itemOf = (ref: BatchRef, index: number) =>
  readItem(store.table, keys.batchItem(ref.tenantId, ref.batchId, index));

describe('a batch as written', () => {
  it('reads back parsed: its record, its open marker, and every subject queued', async () => {
    const batch = await newBatch(3);

    expect(await getBatch(store.table, batch)).toEqual(recordOf(batch, 3));
    expect(await listOpenBatches(store.table)).toContainEqual(
      expect.objectContaining({ batch_id: batch.batchId, total: 3 }),
    );
    expect(await unfinishedItems(store.table, batch)).toEqual([
      { index: 0, status: 'queued' },
      { index: 1, status: 'queued' },
      { index: 2, status: 'queued' },
    ]);
  });

  it('never reuses a batch id: a second record is refused and the first stays', async () => {
    const batch = await newBatch(1);
    const before = await readItem(store.table, keys.batch(TENANT, batch.batchId));

    await expect(putBatchRecord(store.table, { ...recordOf(batch, 9), plan: 'starter' })).rejects.toThrow(
      `Batch ${batch.batchId} already exists`,
    );
    expect(await readItem(store.table, keys.batch(TENANT, batch.batchId))).toEqual(before);
  });

  it('is no longer open once closed', async () => {
    const batch = await newBatch(1);

    await closeBatch(store.table, batch);

    expect((await listOpenBatches(store.table)).map((open) => open.batch_id)).not.toContain(batch.batchId);
  });
});

describe("the batch's finish counter", () => {
  it('numbers finished subjects one by one and tallies the skipped and the failed', async () => {
    const batch = await newBatch(3);

    const seqs = [
      await nextFinishSequence(store.table, batch),
      await nextFinishSequence(store.table, batch, 'skipped'),
      await nextFinishSequence(store.table, batch, 'failed'),
    ];

    expect(seqs).toEqual([1, 2, 3]);
    expect(await getBatch(store.table, batch)).toMatchObject({ finished: 3, skipped: 1, failed: 1 });
  });

  it('refuses a batch without a record, creating nothing', async () => {
    const ref = { tenantId: TENANT, batchId: 'BAT-table-missing' };

    await expect(nextFinishSequence(store.table, ref)).rejects.toThrow(
      'Batch BAT-table-missing has no record to number its subjects',
    );
    expect(await readItem(store.table, keys.batch(TENANT, ref.batchId))).toBeUndefined();
  });

  it('gives 20 concurrent finishes 20 distinct numbers, and the record counts 20', async () => {
    const batch = await newBatch(20);

    const seqs = await Promise.all(Array.from({ length: 20 }, () => nextFinishSequence(store.table, batch)));

    expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect((await getBatch(store.table, batch))?.finished).toBe(20);
  });
});

describe("a subject's claim", () => {
  it('is taken on a queued subject, handing back the subject as stored', async () => {
    const batch = await newBatch(1);

    const outcome = await claimBatchItem(store.table, batch, 0, 'token-a', AT);

    expect(outcome).toEqual({ claimed: true, subject: { name: 'Batch Person 0', dob: '1970-01-01' } });
    expect(await itemOf(batch, 0)).toMatchObject({
      status: 'processing',
      claim_token: 'token-a',
      lease_until: AT.getTime() + CLAIM_LEASE_MS,
      attempts: 1,
    });
  });

  it("is refused while another worker's lease holds, telling its status and lease, leaving the item as it was", async () => {
    const batch = await newBatch(1);
    await claimBatchItem(store.table, batch, 0, 'token-a', AT);
    const before = await itemOf(batch, 0);

    const outcome = await claimBatchItem(store.table, batch, 0, 'token-b', new Date(AT.getTime() + 1000));

    expect(outcome).toEqual({
      claimed: false,
      status: 'processing',
      leaseUntil: AT.getTime() + CLAIM_LEASE_MS,
    });
    expect(await itemOf(batch, 0)).toEqual(before);
  });

  it('is taken over once the lease ran out (that worker died), counting the attempt', async () => {
    const batch = await newBatch(1);
    await claimBatchItem(store.table, batch, 0, 'token-a', AT);
    const later = new Date(AT.getTime() + CLAIM_LEASE_MS + 1);

    const outcome = await claimBatchItem(store.table, batch, 0, 'token-b', later);

    expect(outcome).toMatchObject({ claimed: true });
    expect(await itemOf(batch, 0)).toMatchObject({
      claim_token: 'token-b',
      attempts: 2,
      // The first claim's time stays.
      first_claimed_at: AT.toISOString(),
    });
  });

  it('is refused on a finished subject, and on a position not in the batch, creating nothing', async () => {
    const batch = await newBatch(1);
    await claimBatchItem(store.table, batch, 0, 'token-a', AT);
    await finishBatchItem(store.table, batch, 0, 'token-a', 1, screened, AT);

    const onDone = await claimBatchItem(store.table, batch, 0, 'token-b', AT);
    const onForged = await claimBatchItem(store.table, batch, 7, 'token-b', AT);

    expect(onDone).toEqual({ claimed: false, status: 'done', leaseUntil: undefined });
    expect(onForged).toEqual({ claimed: false, status: undefined, leaseUntil: undefined });
    expect(await itemOf(batch, 7)).toBeUndefined();
  });

  it('is released only by its holder, so a retry need not wait for the lease', async () => {
    const batch = await newBatch(1);
    await claimBatchItem(store.table, batch, 0, 'token-a', AT);

    await releaseBatchItem(store.table, batch, 0, 'token-other');
    const whileHeld = await claimBatchItem(store.table, batch, 0, 'token-b', AT);
    await releaseBatchItem(store.table, batch, 0, 'token-a');
    const afterRelease = await claimBatchItem(store.table, batch, 0, 'token-b', AT);

    expect(whileHeld).toMatchObject({ claimed: false, status: 'processing' });
    expect(afterRelease).toMatchObject({ claimed: true });
  });

  it('is ended by anyone once its holder is known gone (a restart), and claimable at once', async () => {
    const batch = await newBatch(1);
    await claimBatchItem(store.table, batch, 0, 'token-a', AT);

    await expireClaim(store.table, batch, 0);

    expect(await claimBatchItem(store.table, batch, 0, 'token-b', AT)).toMatchObject({ claimed: true });
  });

  it('is taken by exactly one of 20 workers delivered the same subject at once; the others see it processing', async () => {
    const batch = await newBatch(1);

    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => claimBatchItem(store.table, batch, 0, `token-${i}`, AT)),
    );

    const winners = outcomes.flatMap((outcome, i) => (outcome.claimed ? [`token-${i}`] : []));
    expect(winners).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => !o.claimed))
      expect(outcome).toMatchObject({ claimed: false, status: 'processing' });
    expect(await itemOf(batch, 0)).toMatchObject({ claim_token: winners[0], attempts: 1 });
  });
});

describe("a subject's outcome", () => {
  it("is finished by its claim's holder once, and read back in finish order", async () => {
    const batch = await newBatch(2);
    await claimBatchItem(store.table, batch, 1, 'token-a', AT);

    const first = await finishBatchItem(store.table, batch, 1, 'token-a', 1, screened, AT);
    const again = await finishBatchItem(store.table, batch, 1, 'token-a', 2, screened, AT);

    expect([first, again]).toEqual([true, false]);
    expect(await readFinishedItems(store.table, batch, 0)).toEqual([
      { status: 'done', index: 1, seq: 1, ...screened },
    ]);
  });

  it('is not finished by a worker that lost the claim, which leaves the holder its item', async () => {
    const batch = await newBatch(1);
    await claimBatchItem(store.table, batch, 0, 'token-a', AT);
    const before = await itemOf(batch, 0);

    expect(await finishBatchItem(store.table, batch, 0, 'token-lost', 1, screened, AT)).toBe(false);
    expect(await itemOf(batch, 0)).toEqual(before);
  });

  it('fails for good at most once, never on a finished subject nor on a position not in the batch', async () => {
    const batch = await newBatch(2);
    await claimBatchItem(store.table, batch, 0, 'token-a', AT);
    await finishBatchItem(store.table, batch, 0, 'token-a', 1, screened, AT);

    const queued = await failBatchItem(store.table, batch, 1, 2, 'Kept failing', AT);
    const again = await failBatchItem(store.table, batch, 1, 3, 'Kept failing', AT);
    const done = await failBatchItem(store.table, batch, 0, 3, 'Kept failing', AT);
    const forged = await failBatchItem(store.table, batch, 9, 3, 'Kept failing', AT);

    expect([queued, again, done, forged]).toEqual([true, false, false, false]);
    expect(await failedItems(store.table, batch)).toEqual([
      {
        index: 1,
        subject: { name: 'Batch Person 1', dob: '1970-01-01' },
        detail: 'Kept failing',
        failure: 'error',
      },
    ]);
    expect(await itemOf(batch, 0)).toMatchObject({ status: 'done' });
    expect(await itemOf(batch, 9)).toBeUndefined();
  });

  it('is failed once when 20 failures of one subject race', async () => {
    const batch = await newBatch(1);

    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => failBatchItem(store.table, batch, 0, i + 1, `Failure ${i}`, AT)),
    );

    expect(outcomes.filter(Boolean)).toHaveLength(1);
    const winner = outcomes.indexOf(true);
    expect(await itemOf(batch, 0)).toMatchObject({
      status: 'failed',
      detail: `Failure ${winner}`,
      seq: winner + 1,
    });
  });

  it("of the last subject carries the batch's completion event", async () => {
    const batch = await newBatch(2);
    await failBatchItem(store.table, batch, 0, 1, 'Refused', AT, 'refused');
    await claimBatchItem(store.table, batch, 1, 'token-a', AT);

    await finishBatchItem(store.table, batch, 1, 'token-a', 2, screened, AT);

    expect((await itemOf(batch, 0))?.webhook_events).toBeUndefined();
    expect((await itemOf(batch, 1))?.webhook_events).toEqual([
      expect.objectContaining({
        type: 'batch.completed',
        data: {
          batch_id: batch.batchId,
          purpose: 'screen',
          total: 2,
          finished: 2,
          completed_at: AT.toISOString(),
        },
      }),
    ]);
  });
});

describe('in a transaction', () => {
  it('moves neither the finish counter nor the subject when the claim was lost', async () => {
    const batch = await newBatch(1);
    await claimBatchItem(store.table, batch, 0, 'token-a', AT);
    const itemBefore = await itemOf(batch, 0);

    const outcome = transact(store.table, [
      batchWrites.numberFinished(batch, null),
      batchItemWrites.finish(batch, 0, 'token-lost', 1, screened, AT),
    ]);

    await expect(outcome).rejects.toThrow('The batch subject changed meanwhile; read it again and retry');
    expect((await getBatch(store.table, batch))?.finished).toBe(0);
    expect(await itemOf(batch, 0)).toEqual(itemBefore);
  });
});
