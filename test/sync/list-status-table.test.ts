import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboxEvent } from '../../lib/outbox/outbox.ts';
import { transact } from '../../lib/store/write.ts';
import {
  clearHeld,
  listSyncKeys,
  listSyncWrites,
  readSyncStatus,
  recordSyncFailure,
  recordSyncSuccess,
  type SyncSuccess,
} from '../../lib/sync/list-status-table.ts';
import { listsEventWrites, recordListsEvent } from '../../lib/sync/lists-event-table.ts';
import { readItem, startTestStore, type TestStore } from '../support/dynamo.ts';

/**
 * The list-sync rows on DynamoDB Local: what the last success brought and how the last attempt
 * went, never overwritten by a run older than the one recorded; the baseline set once and moved
 * only by an operator's acceptance.
 */
let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store?.close());

let lists = 0;
/** A list of its own per test: the rows share one partition. */
const newList = () => `list-${++lists}`;
const at = (hour: number) => `2026-12-01T${String(hour).padStart(2, '0')}:00:00.000Z`;

function success(listId: string, hour: number, individuals = 100, accepted?: string): SyncSuccess {
  return {
    listId,
    at: at(hour),
    sourceDate: '2026-11-30',
    entityCount: individuals + 10,
    individualCount: individuals,
    contentHash: `hash-${hour}`,
    origin: 'https://lists.example.gov',
    baseline: { individuals, ...(accepted ? { accepted } : {}) },
  };
}

const rowOf = async (listId: string) => (await readSyncStatus(store.table)).get(listId);
const storedRow = (listId: string) => readItem(store.table, listSyncKeys.row(listId));

describe('a successful sync', () => {
  it('reads back parsed, with the baseline of the first sync', async () => {
    const list = newList();

    await recordSyncSuccess(store.table, success(list, 1));

    expect(await rowOf(list)).toEqual({
      entity: 'list-sync',
      list_id: list,
      last_attempt_at: at(1),
      last_success_at: at(1),
      fetched_at: at(1),
      source_date: '2026-11-30',
      entity_count: 110,
      individual_count: 100,
      content_hash: 'hash-1',
      origin: 'https://lists.example.gov',
      baseline_individuals: 100,
      baseline_at: at(1),
      baseline_basis: 'first sync',
    });
  });

  it('keeps the baseline it found, unless an operator accepted a new count', async () => {
    const list = newList();
    await recordSyncSuccess(store.table, success(list, 1, 100));

    await recordSyncSuccess(store.table, success(list, 2, 90));
    const kept = await rowOf(list);
    await recordSyncSuccess(store.table, success(list, 3, 60, 'Delisting of 30 confirmed'));
    const moved = await rowOf(list);

    expect(kept).toMatchObject({ individual_count: 90, baseline_individuals: 100, baseline_at: at(1) });
    expect(moved).toMatchObject({
      individual_count: 60,
      baseline_individuals: 60,
      baseline_at: at(3),
      baseline_basis: 'Delisting of 30 confirmed',
    });
  });

  it('clears the error and the held file of the attempt before it', async () => {
    const list = newList();
    await recordSyncFailure(store.table, list, at(1), 'Count fell by 40%', { held: true });

    await recordSyncSuccess(store.table, success(list, 2));

    const row = await rowOf(list);
    expect(row?.error).toBeUndefined();
    expect(row?.held_at).toBeUndefined();
  });
});

describe('a refused attempt', () => {
  it('is recorded with its error, and what the last success recorded stays', async () => {
    const list = newList();
    await recordSyncSuccess(store.table, success(list, 1));

    await recordSyncFailure(store.table, list, at(2), 'Download failed: 503', { held: true });

    expect(await rowOf(list)).toMatchObject({
      last_attempt_at: at(2),
      error: 'Download failed: 503',
      held_at: at(2),
      last_success_at: at(1),
      content_hash: 'hash-1',
    });
  });
});

describe('a run older than the one recorded', () => {
  it('changes nothing, success or failure, and is not an error', async () => {
    const list = newList();
    await recordSyncSuccess(store.table, success(list, 5));
    const before = await storedRow(list);

    await recordSyncSuccess(store.table, success(list, 4, 50));
    await recordSyncFailure(store.table, list, at(3), 'A slow run failed');

    expect(await storedRow(list)).toEqual(before);
  });

  it('never overwrites the newest of 20 runs recording at once, whatever order they land in', async () => {
    const list = newList();
    const hours = Array.from({ length: 20 }, (_, i) => i + 1).sort(() => Math.random() - 0.5);

    await Promise.all(hours.map((hour) => recordSyncSuccess(store.table, success(list, hour))));

    expect(await rowOf(list)).toMatchObject({ last_attempt_at: at(20), content_hash: 'hash-20' });
  });
});

describe("an operator's rejection of a held file", () => {
  it('clears the held mark and the error; the last success stays', async () => {
    const list = newList();
    await recordSyncSuccess(store.table, success(list, 1));
    await recordSyncFailure(store.table, list, at(2), 'Count fell by 40%', { held: true });

    await clearHeld(store.table, list);

    const row = await rowOf(list);
    expect(row).toMatchObject({ last_attempt_at: at(2), last_success_at: at(1) });
    expect(row?.held_at).toBeUndefined();
    expect(row?.error).toBeUndefined();
  });

  it('is a server fault for a list without a row, which creates none', async () => {
    const list = newList();

    await expect(clearHeld(store.table, list)).rejects.toThrow(`List ${list} has no sync status row`);
    expect(await storedRow(list)).toBeUndefined();
  });
});

describe('in a transaction', () => {
  it("records neither the sync nor the lists event when the snapshot's event was already recorded", async () => {
    const list = newList();
    const event = outboxEvent('lists.updated', null, { version: 'v-dup' });
    await recordListsEvent(store.table, 'v-dup', at(1), event);

    const refusal = transact(store.table, [
      listSyncWrites.success(success(list, 1)),
      listsEventWrites.publish('v-dup', at(1), event),
    ]);

    await expect(refusal).rejects.toThrow('The lists event of snapshot v-dup was already recorded');
    expect(await storedRow(list)).toBeUndefined();
  });

  it('records neither list when one of them is an older run', async () => {
    const fresh = newList();
    const recorded = newList();
    await recordSyncSuccess(store.table, success(recorded, 5));
    const before = await storedRow(recorded);

    const refusal = transact(store.table, [
      listSyncWrites.success(success(fresh, 4)),
      listSyncWrites.failure(recorded, at(4), 'A slow run failed', {}),
    ]);

    await expect(refusal).rejects.toThrow('A newer sync run recorded the list meanwhile');
    expect(await storedRow(fresh)).toBeUndefined();
    expect(await storedRow(recorded)).toEqual(before);
  });
});
