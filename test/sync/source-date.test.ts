import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable } from '../../infra/local/dynamo.ts';
import { describeLists } from '../../lib/matcher/narrative.ts';
import { createTable, type Table } from '../../lib/store/table.ts';
import { bundledFeeds } from '../../lib/sync/bundled.ts';
import { LIST_FEEDS } from '../../lib/sync/feeds.ts';
import { createGetFile, parseOrigin } from '../../lib/sync/fetch.ts';
import { createFileSnapshotStore } from '../../lib/sync/snapshot-store.ts';
import { readStoredSnapshot, syncLists } from '../../lib/sync/sync-lists.ts';
import { bundledListFiles, contentHash } from '../../lib/watchlists/content-hash.ts';
import { OFAC_SDN_LIST } from '../../lib/watchlists/ofac-sdn.ts';
import { defaultDataDir } from '../../lib/watchlists/snapshot.ts';
import { describeDatabase } from '../../lib/watchlists/status.ts';
import type { ListId } from '../../lib/watchlists/types.ts';
import { US_EXECUTIVE_PEP_LIST } from '../../lib/watchlists/us-congress-pep.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';
import { createListMirror, EXECUTIVE_FILE, snapshotOfLists } from '../support/list-mirror.ts';

/**
 * Issue 35, item 6: a list's `source_date` is the date of its data as its publisher states it,
 * never the day it was fetched; unknown is null, "unknown" in the narrative, and stale. And every
 * list of every snapshot names the content it was built from.
 */
const LISTS: ListId[] = ['ofac_sdn', 'us_executive_pep'];
const FETCHED = new Date('2026-11-23T06:00:00Z');

let db: TestStore;
let tables = 0;
const dirs: string[] = [];
beforeAll(async () => {
  db = await startTestStore();
});
afterAll(async () => {
  await db.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function freshSync(feeds: typeof LIST_FEEDS, origin: string, getFileDir = defaultDataDir()) {
  const tableName = `source-date-${++tables}`;
  await ensureTable(db.endpoint, tableName);
  const table: Table = createTable({ tableName, endpoint: db.endpoint });
  const storeDir = mkdtempSync(join(tmpdir(), 'source-date-'));
  dirs.push(storeDir);
  const store = createFileSnapshotStore(storeDir);
  const bundled = snapshotOfLists(LISTS, { now: new Date('2026-07-01T00:00:00Z') });
  await syncLists({
    store,
    table,
    getFile: createGetFile(parseOrigin(getFileDir)),
    origin,
    bundled: () => bundled,
    feeds,
    shippedLists: LISTS,
    now: FETCHED,
  });
  const snapshot = await readStoredSnapshot(store);
  if (!snapshot) throw new Error('the sync published no snapshot');
  return snapshot;
}

describe('a list’s source date', () => {
  it('npm run sync -- --from bundled keeps the bundled copy’s own date (OFAC SDN 2024), not the day of the run', async () => {
    const feeds = bundledFeeds(
      defaultDataDir(),
      LIST_FEEDS.filter((feed) => LISTS.includes(feed.listId)),
    );
    const snapshot = await freshSync(feeds, 'bundled');

    const sdn = snapshot.lists.find((list) => list.id === 'ofac_sdn');
    expect(sdn?.source_date).toBe(OFAC_SDN_LIST.source_date);
    expect(sdn?.source_date).not.toBe('2026-11-23');
    expect(sdn?.source_date_basis).toContain('2024-05-03');
    // So /dbstatus calls it what it is: published long ago, stale.
    const status = describeDatabase(snapshot.lists, FETCHED);
    const described = status.lists.find((list) => list.id === 'ofac_sdn');
    expect(described?.stale).toBe(true);
    expect(described?.stale_reasons.join(' ')).toMatch(/published \d+ days ago/);
  });

  it('is null, "unknown" in the narrative, and stale, when the downloaded file states no date', async () => {
    const mirror = createListMirror([EXECUTIVE_FILE]);
    const feeds = LIST_FEEDS.filter((feed) => feed.listId === 'us_executive_pep');
    const snapshot = await freshSync(feeds, 'test mirror', mirror.dir);
    mirror.close();

    const executive = snapshot.lists.find((list) => list.id === 'us_executive_pep');
    expect(executive?.source_date).toBeNull();
    expect(executive?.source_date_basis).toMatch(/^Unknown: the file states no date/);
    expect(describeLists(executive ? [executive] : [])).toBe(
      `${US_EXECUTIVE_PEP_LIST.name} (source date unknown)`,
    );
    const status = describeDatabase(snapshot.lists, FETCHED);
    const described = status.lists.find((list) => list.id === 'us_executive_pep');
    expect(described).toMatchObject({ source_date: null, age_days: null, stale: true });
    expect(described?.stale_reasons).toContain(
      'source date unknown: the publisher states no date for this data',
    );
  });
});

describe('a list’s content hash', () => {
  it('every bundled list carries the SHA-256 of its files under data/', () => {
    const snapshot = snapshotOfLists(LISTS);
    for (const list of snapshot.lists) {
      expect(list.content_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(list.content_hash).toBe(contentHash(bundledListFiles(defaultDataDir(), list)));
    }
  });
});
