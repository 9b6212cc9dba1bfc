import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureTable } from '../../infra/local/dynamo.ts';
import { createTable, type Table } from '../../lib/store/table.ts';
import { LIST_FEEDS } from '../../lib/sync/feeds.ts';
import { createGetFile, parseOrigin } from '../../lib/sync/fetch.ts';
import { readSyncStatus } from '../../lib/sync/list-status-table.ts';
import { createFileSnapshotStore, type SnapshotStore } from '../../lib/sync/snapshot-store.ts';
import { readStoredSnapshot, type SyncListsInput, syncLists } from '../../lib/sync/sync-lists.ts';
import { perListPeople } from '../../lib/watchlists/linking.ts';
import type { ListId, WatchlistSnapshot } from '../../lib/watchlists/types.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';
import {
  createListMirror,
  EXECUTIVE_FILE,
  type ListMirror,
  snapshotOfLists,
  UN_FILE,
  unWithoutIndividuals,
} from '../support/list-mirror.ts';

// Two small real lists keep each sync well under a second.
const LISTS: ListId[] = ['un_sc', 'us_executive_pep'];
const bundled: WatchlistSnapshot = snapshotOfLists(LISTS, { now: new Date('2026-07-01T00:00:00Z') });
const BUNDLED_UN = bundled.lists.find((l) => l.id === 'un_sc')?.individual_count ?? 0;

let db: TestStore;
/** A fresh table per test: status rows carry times that must not leak between tests. */
let table: Table;
let mirror: ListMirror;
let storeDir: string;
let store: SnapshotStore;

beforeAll(async () => {
  db = await startTestStore();
});
afterAll(async () => {
  await db.close();
});
let tables = 0;
beforeEach(async () => {
  const tableName = `sync-${++tables}`;
  await ensureTable(db.endpoint, tableName);
  table = createTable({ tableName, endpoint: db.endpoint });
  mirror?.close();
  if (storeDir) rmSync(storeDir, { recursive: true, force: true });
  mirror = createListMirror([UN_FILE, EXECUTIVE_FILE]);
  storeDir = mkdtempSync(join(tmpdir(), 'snapshot-store-'));
  store = createFileSnapshotStore(storeDir);
});

function sync(overrides: Partial<SyncListsInput> = {}) {
  return syncLists({
    store,
    table,
    getFile: createGetFile(parseOrigin(mirror.dir)),
    origin: 'test mirror',
    bundled: () => bundled,
    feeds: LIST_FEEDS.filter((feed) => LISTS.includes(feed.listId)),
    shippedLists: LISTS,
    ...overrides,
  });
}

async function storedUn() {
  const snapshot = await readStoredSnapshot(store);
  return {
    summary: snapshot?.lists.find((l) => l.id === 'un_sc'),
    people: snapshot ? perListPeople(snapshot).filter((p) => p.list_id === 'un_sc') : [],
  };
}

describe('syncLists', () => {
  it('publishes a snapshot of the downloaded lists and records each list', async () => {
    const report = await sync({ now: new Date('2026-11-23T06:00:00Z') });

    expect(report.snapshotVersion).toBeDefined();
    expect(report.outcomes.map((o) => [o.listId, o.status])).toEqual([
      ['un_sc', 'updated'],
      ['us_executive_pep', 'updated'],
    ]);
    const un = await storedUn();
    expect(un.summary?.source_date).toBe('2026-02-27'); // the XML's dateGenerated
    expect(un.people).toHaveLength(BUNDLED_UN);
    // Same file as bundled: nobody added, changed or removed.
    const unDiff = report.diffs.find((d) => d.listId === 'un_sc');
    expect([unDiff?.added.length, unDiff?.changed.length, unDiff?.removed.length]).toEqual([0, 0, 0]);

    const rows = await readSyncStatus(table);
    expect(rows.get('un_sc')).toMatchObject({
      last_attempt_at: '2026-11-23T06:00:00Z',
      last_success_at: '2026-11-23T06:00:00Z',
      source_date: '2026-02-27',
      individual_count: BUNDLED_UN,
      origin: 'test mirror',
    });
    expect(rows.get('un_sc')?.content_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows.get('un_sc')?.error).toBeUndefined();
  });

  it('skips the parse and writes no snapshot when the publisher published nothing new', async () => {
    const first = await sync({ now: new Date('2026-11-23T06:00:00Z') });
    const second = await sync({ now: new Date('2026-11-24T06:00:00Z') });

    expect(second.snapshotVersion).toBeUndefined();
    expect(second.outcomes.every((o) => o.status === 'unchanged')).toBe(true);
    expect(await store.latestVersion()).toBe(first.snapshotVersion);
    // Still a successful sync: the list is confirmed current.
    expect((await readSyncStatus(table)).get('un_sc')?.last_success_at).toBe('2026-11-24T06:00:00Z');
  });

  it('reports the people added, changed and removed by entry id', async () => {
    const full = mirror.read(UN_FILE);
    mirror.write(UN_FILE, unWithoutIndividuals(full, 1));
    await sync();
    // The publisher adds the entry back and amends another entry's comments.
    const amended = full.replace(
      '<COMMENTS1>He fled to Rwanda in March 2013',
      '<COMMENTS1>Amended. He fled to Rwanda in March 2013',
    );
    mirror.write(UN_FILE, amended);
    const report = await sync();

    const diff = report.diffs.find((d) => d.listId === 'un_sc');
    expect(diff?.added.map((p) => p.entity_id)).toEqual(['6907993']);
    expect(diff?.changed).toHaveLength(0);
    expect(diff?.removed).toHaveLength(0);

    mirror.write(UN_FILE, unWithoutIndividuals(amended.replace('Amended. He', 'Amended again. He'), 0));
    const third = await sync();
    const thirdDiff = third.diffs.find((d) => d.listId === 'un_sc');
    expect(thirdDiff?.changed.map((p) => p.entity_id)).toEqual(['6907993']);
    expect(thirdDiff?.added).toHaveLength(0);
  });

  it('keeps the last good list, marked with the error, when a file is malformed; the other list goes ahead', async () => {
    await sync({ now: new Date('2026-11-23T06:00:00Z') });
    const xml = mirror.read(UN_FILE);
    mirror.write(UN_FILE, xml.slice(0, Math.floor(xml.length / 2)));
    const executive = mirror.read(EXECUTIVE_FILE);
    // A real change to the other list in the same run (the last record dropped).
    mirror.write(EXECUTIVE_FILE, executive.slice(0, executive.lastIndexOf('\n- ')));

    const report = await sync({ now: new Date('2026-11-24T06:00:00Z') });

    const un = report.outcomes.find((o) => o.listId === 'un_sc');
    expect(un?.status).toBe('failed');
    expect(un?.status === 'failed' && un.error).toMatch(/^malformed file: /);
    expect(report.outcomes.find((o) => o.listId === 'us_executive_pep')?.status).toBe('updated');
    expect((await storedUn()).people).toHaveLength(BUNDLED_UN);

    const row = (await readSyncStatus(table)).get('un_sc');
    expect(row?.error).toMatch(/^malformed file: /);
    expect(row?.last_attempt_at).toBe('2026-11-24T06:00:00Z');
    expect(row?.last_success_at).toBe('2026-11-23T06:00:00Z');
    expect(row?.individual_count).toBe(BUNDLED_UN);
  });

  it('refuses a list that lost more than a tenth of its individuals, unless an operator accepts the drop', async () => {
    await sync();
    mirror.write(UN_FILE, unWithoutIndividuals(mirror.read(UN_FILE), Math.ceil(BUNDLED_UN * 0.2)));

    const refused = await sync();
    const outcome = refused.outcomes.find((o) => o.listId === 'un_sc');
    expect(outcome?.status === 'failed' && outcome.error).toMatch(
      new RegExp(
        `individuals fell to ${BUNDLED_UN - Math.ceil(BUNDLED_UN * 0.2)} from the baseline of ${BUNDLED_UN}`,
      ),
    );
    expect((await storedUn()).people).toHaveLength(BUNDLED_UN);

    const accepted = await sync({ acceptDrops: ['un_sc'] });
    expect(accepted.outcomes.find((o) => o.listId === 'un_sc')?.status).toBe('updated');
    expect((await storedUn()).people).toHaveLength(BUNDLED_UN - Math.ceil(BUNDLED_UN * 0.2));
    expect((await readSyncStatus(table)).get('un_sc')?.error).toBeUndefined();
    // The operator's acceptance moved the baseline to the accepted count.
    expect((await readSyncStatus(table)).get('un_sc')?.baseline_individuals).toBe(
      BUNDLED_UN - Math.ceil(BUNDLED_UN * 0.2),
    );
  });

  it('keeps the last good list when a file is missing from the mirror', async () => {
    await sync();
    mirror.remove(UN_FILE);
    const report = await sync();
    const outcome = report.outcomes.find((o) => o.listId === 'un_sc');
    expect(outcome?.status === 'failed' && outcome.error).toContain('no such file in the mirror');
    expect((await storedUn()).people).toHaveLength(BUNDLED_UN);
  });

  it('does not let an older run overwrite what a newer run recorded', async () => {
    await sync({ now: new Date('2026-11-24T06:00:00Z') });
    mirror.remove(UN_FILE);
    await sync({ now: new Date('2026-11-23T06:00:00Z') });
    const row = (await readSyncStatus(table)).get('un_sc');
    expect(row?.last_attempt_at).toBe('2026-11-24T06:00:00Z');
    expect(row?.error).toBeUndefined();
  });
});
