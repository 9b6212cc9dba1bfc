/**
 * The sync's sanity checks across runs (lib/sync/sanity.ts), each walk-past of issue 21 built from
 * the REAL UN file (cut, repeated or garbled, never an invented designee), through the real stores
 * (DynamoDB Local, the directory snapshot store); and the held file's review through the ops CLI as an
 * operator runs it (child processes), audited in the operations trail.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureTable } from '../../infra/local/dynamo.ts';
import { writeSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { createTable, type Table } from '../../lib/store/table.ts';
import { describeDatabaseWithSync } from '../../lib/sync/database-status.ts';
import { LIST_FEEDS } from '../../lib/sync/feeds.ts';
import { createGetFile, parseOrigin } from '../../lib/sync/fetch.ts';
import { readHeld } from '../../lib/sync/held.ts';
import { readSyncStatus } from '../../lib/sync/list-status-table.ts';
import { OPERATIONS_TRAIL } from '../../lib/sync/review.ts';
import { createFileSnapshotStore, type SnapshotStore } from '../../lib/sync/snapshot-store.ts';
import { readStoredSnapshot, type SyncListsInput, syncLists } from '../../lib/sync/sync-lists.ts';
import { perListPeople } from '../../lib/watchlists/linking.ts';
import type { ListId, WatchlistSnapshot } from '../../lib/watchlists/types.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';
import {
  createListMirror,
  type ListMirror,
  snapshotOfLists,
  UN_FILE,
  unWithoutIndividuals,
} from '../support/list-mirror.ts';

const LISTS: ListId[] = ['un_sc'];
const bundled: WatchlistSnapshot = snapshotOfLists(LISTS, { now: new Date('2026-07-01T00:00:00Z') });
const BUNDLED_UN = bundled.lists.find((l) => l.id === 'un_sc')?.individual_count ?? 0;

let db: TestStore;
let table: Table;
let tableName: string;
let mirror: ListMirror;
let work: string;
let store: SnapshotStore;
let bundledFile: string;

beforeAll(async () => {
  db = await startTestStore();
});
afterAll(async () => {
  await db.close();
  mirror?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});
let tables = 0;
beforeEach(async () => {
  tableName = `sanity-${++tables}`;
  await ensureTable(db.endpoint, tableName);
  table = createTable({ tableName, endpoint: db.endpoint });
  mirror?.close();
  if (work) rmSync(work, { recursive: true, force: true });
  mirror = createListMirror([UN_FILE]);
  work = mkdtempSync(join(tmpdir(), 'sync-sanity-'));
  store = createFileSnapshotStore(join(work, 'store'));
  bundledFile = join(work, 'bundled.json');
  writeSnapshot(bundled, bundledFile);
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
  return snapshot ? perListPeople(snapshot).filter((p) => p.list_id === 'un_sc') : [];
}

const unOutcome = (report: Awaited<ReturnType<typeof sync>>) =>
  report.outcomes.find((o) => o.listId === 'un_sc');

/** The real UN file with each individual repeated `times` times, each copy under its own DATAID. */
function unRepeated(xml: string, times: number): string {
  const start = xml.indexOf('<INDIVIDUAL>');
  const end = xml.lastIndexOf('</INDIVIDUAL>') + '</INDIVIDUAL>'.length;
  const block = xml.slice(start, end);
  const copies = Array.from({ length: times }, (_, i) =>
    i === 0
      ? block
      : block.replace(/<DATAID>(\d+)<\/DATAID>/g, `<DATAID>$1${String(i).padStart(2, '0')}</DATAID>`),
  );
  return xml.slice(0, start) + copies.join('') + xml.slice(end);
}

const rot13 = (text: string) =>
  text.replace(/[A-Za-z]/g, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });

/** The real UN file with every individual's name parts and aliases garbled (ROT13), ids kept. */
function unGarbled(xml: string): string {
  return xml.replace(
    /<(FIRST_NAME|SECOND_NAME|THIRD_NAME|FOURTH_NAME|ALIAS_NAME)>([^<]*)</g,
    (_, tag: string, name: string) => `<${tag}>${rot13(name)}<`,
  );
}

/** The ops CLI against this test's table and store, as an operator runs it. */
function admin(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(
    'npm',
    ['run', '--silent', 'admin', '--', ...args, '--endpoint', db.endpoint, '--table', tableName],
    {
      encoding: 'utf8',
      env: {
        ...process.env,
        WATCHLIST_STORE_DIR: join(work, 'store'),
        WATCHLIST_SNAPSHOT: bundledFile,
        // The anchors of this test's table, not the repository's DATA_DIR.
        AUDIT_ANCHOR_DIR: join(work, `anchors-${tableName}`),
      },
      timeout: 120_000,
    },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

// Each test runs whole syncs of the real UN file (and the ops CLI as a child process): 40–60 s
// on a loaded 2-core machine, so a limit of their own rather than the suite's 60 s.
describe('sync sanity across runs', { timeout: 180_000 }, () => {
  it('refuses the second of two 9% cuts: the fall is measured from the baseline, not the last run', async () => {
    await sync();
    const full = mirror.read(UN_FILE);
    const cut = Math.floor(BUNDLED_UN * 0.09); // 65: 730 -> 665
    mirror.write(UN_FILE, unWithoutIndividuals(full, cut));
    expect(unOutcome(await sync())?.status).toBe('updated');
    expect(await storedUn()).toHaveLength(BUNDLED_UN - cut);

    // A second 9% cut of what is now in force: 665 -> 606, 17% below the baseline.
    const second = Math.floor((BUNDLED_UN - cut) * 0.09);
    mirror.write(UN_FILE, unWithoutIndividuals(full, cut + second));
    const report = await sync();
    const outcome = unOutcome(report);
    expect(outcome?.status).toBe('failed');
    expect(outcome?.status === 'failed' && outcome.error).toContain(
      `individuals fell to ${BUNDLED_UN - cut - second} from the baseline of ${BUNDLED_UN}`,
    );
    expect(outcome?.status === 'failed' && outcome.held).toBe(true);
    expect(await storedUn()).toHaveLength(BUNDLED_UN - cut);
    const row = (await readSyncStatus(table)).get('un_sc');
    expect(row?.baseline_individuals).toBe(BUNDLED_UN);
    expect(row?.held_at).toBeDefined();
  });

  it('refuses a file 40 times too large, then takes the genuine file with no operator', async () => {
    await sync();
    const full = mirror.read(UN_FILE);
    mirror.write(UN_FILE, unRepeated(full, 40));
    const refused = unOutcome(await sync());
    expect(refused?.status === 'failed' && refused.error).toContain(
      `individuals grew to ${BUNDLED_UN * 40} from the baseline of ${BUNDLED_UN}`,
    );
    expect(await storedUn()).toHaveLength(BUNDLED_UN);

    // The genuine file, one designee fewer than before (a real delisting).
    mirror.write(UN_FILE, unWithoutIndividuals(full, 1));
    const report = await sync();
    expect(unOutcome(report)?.status).toBe('updated');
    expect(await storedUn()).toHaveLength(BUNDLED_UN - 1);
    const row = (await readSyncStatus(table)).get('un_sc');
    expect(row?.error).toBeUndefined();
    expect(row?.held_at).toBeUndefined();
    // The refused file's hold ended with the list's publication.
    expect(await readHeld(store, 'un_sc')).toBeUndefined();
  });

  it('refuses a well-formed file with every name garbled; the real names stay in force', async () => {
    await sync();
    mirror.write(UN_FILE, unGarbled(mirror.read(UN_FILE)));
    const outcome = unOutcome(await sync());
    expect(outcome?.status === 'failed' && outcome.error).toMatch(
      new RegExp(`${BUNDLED_UN} of ${BUNDLED_UN} entries kept their id but changed their name`),
    );
    const names = (await storedUn()).map((person) => person.primary_name);
    expect(names).toContain('ERIC BADEGE');
    expect(names).not.toContain(rot13('ERIC BADEGE'));
  });

  it('refuses a file whose designees lost their dates of birth', async () => {
    await sync();
    const xml = mirror
      .read(UN_FILE)
      .replace(/<INDIVIDUAL_DATE_OF_BIRTH>[\s\S]*?<\/INDIVIDUAL_DATE_OF_BIRTH>/g, '');
    mirror.write(UN_FILE, xml);
    const outcome = unOutcome(await sync());
    expect(outcome?.status === 'failed' && outcome.error).toMatch(
      /of 100 sampled designees of the last good list no longer parse with a name and dates of birth/,
    );
  });

  it('holds a refused file for review; the operator sees the difference, accepts it (audited), and it becomes the baseline', async () => {
    await sync();
    const cut = Math.ceil(BUNDLED_UN * 0.2);
    mirror.write(UN_FILE, unWithoutIndividuals(mirror.read(UN_FILE), cut));
    await sync();

    // /dbstatus says why the list is stale and that its file waits for review.
    const status = await describeDatabaseWithSync(table, bundled.lists);
    expect(JSON.stringify(status)).toContain('held for review: individuals fell to');

    const review = admin('sync-review', '--list', 'un_sc');
    expect(review.status, review.stderr).toBe(0);
    expect(JSON.parse(review.stdout)).toMatchObject({
      list: 'un_sc',
      compared: { baseline: BUNDLED_UN, previous: BUNDLED_UN, candidate: BUNDLED_UN - cut },
      against_list_in_force: { added: 0, changed: 0, removed: cut },
    });

    const noReason = admin('sync-accept', '--list', 'un_sc');
    expect(noReason.status).not.toBe(0);
    expect(noReason.stderr).toContain('--reason is required');

    const accept = admin(
      'sync-accept',
      '--list',
      'un_sc',
      '--reason',
      'UN press release SC/99999 delisted them',
    );
    expect(accept.status, accept.stderr).toBe(0);
    expect(await storedUn()).toHaveLength(BUNDLED_UN - cut);
    const row = (await readSyncStatus(table)).get('un_sc');
    expect(row).toMatchObject({ baseline_individuals: BUNDLED_UN - cut, individual_count: BUNDLED_UN - cut });
    expect(row?.error).toBeUndefined();
    expect(row?.held_at).toBeUndefined();
    expect(await readHeld(store, 'un_sc')).toBeUndefined();

    // The same file again is now within bounds of the accepted baseline.
    expect(unOutcome(await sync())?.status).toBe('unchanged');

    const audit = admin('audit', '--tenant', OPERATIONS_TRAIL);
    expect(audit.status, audit.stderr).toBe(0);
    const entries = JSON.parse(audit.stdout).entries as {
      action: string;
      outcome: string;
      actor: { user_id: string };
      details: Record<string, unknown>;
    }[];
    expect(entries.map((e) => `${e.action} ${e.outcome}`)).toEqual([
      'lists.accept-held done',
      'lists.accept-held started',
    ]);
    expect(entries[1]).toMatchObject({
      actor: { user_id: 'ops-cli' },
      details: {
        list_id: 'un_sc',
        reason: 'UN press release SC/99999 delisted them',
        individuals: BUNDLED_UN - cut,
      },
    });
    expect(admin('verify-audit', '--tenant', OPERATIONS_TRAIL).status).toBe(0);
  });

  it('rejects a held file (audited): the list keeps its data and nothing is held any more', async () => {
    await sync();
    mirror.write(UN_FILE, unGarbled(mirror.read(UN_FILE)));
    await sync();
    const reject = admin('sync-reject', '--list', 'un_sc', '--reason', 'garbled names');
    expect(reject.status, reject.stderr).toBe(0);
    expect(await readHeld(store, 'un_sc')).toBeUndefined();
    expect(await storedUn()).toHaveLength(BUNDLED_UN);
    expect((await readSyncStatus(table)).get('un_sc')?.held_at).toBeUndefined();

    const again = admin('sync-accept', '--list', 'un_sc', '--reason', 'changed my mind');
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('no file of un_sc is held for review');
  });
});
