/**
 * Screen receipts and replay through the local stack: a screen names the snapshot in force when it
 * was made; after a list sync publishes a newer snapshot (a real UN designee restored to the real
 * UN file), replaying the older screen on its own snapshot gives the identical result, and the
 * lists in force today are shown to differ. A version past the retention rule is 410; a screen
 * stored before receipts is 409; another tenant's screen is 404.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack.ts';
import { runListSync } from '../../lib/jobs/run-sync.ts';
import { writeSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { MATCHER_VERSION } from '../../lib/matcher/version.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { keys } from '../../lib/store/schema.ts';
import { liveWatchlistsOf } from '../../lib/sync/live-watchlists.ts';
import { createFileSnapshotStore } from '../../lib/sync/snapshot-store.ts';
import { type ApiResponse, apiClient, demoKey } from '../support/api-client.ts';
import { startInProcessStack } from '../support/in-process-stack.ts';
import {
  createListMirror,
  EXECUTIVE_FILE,
  type ListMirror,
  snapshotOfLists,
  UN_FILE,
  unWithoutIndividuals,
} from '../support/list-mirror.ts';

const LISTS = ['un_sc', 'us_executive_pep'];
const work = mkdtempSync(join(tmpdir(), 'screen-replay-'));
const ENV = {
  WATCHLIST_SNAPSHOT: join(work, 'bundled.json'),
  WATCHLIST_STORE_DIR: join(work, 'store'),
  WATCHLIST_CHECK_SECONDS: '0',
};

let mirror: ListMirror;
let original: string;
let stack: LocalStack;
let api: ReturnType<typeof apiClient>;
let key: string;
let adminKey: string;
let otherTenantKey: string;

beforeAll(async () => {
  // The bundled snapshot: the two small real lists (the whole set takes half a minute to build).
  const bundled = snapshotOfLists(LISTS);
  writeSnapshot(bundled, ENV.WATCHLIST_SNAPSHOT);
  mirror = createListMirror([UN_FILE, EXECUTIVE_FILE]);
  original = mirror.read(UN_FILE);
  Object.assign(process.env, ENV);
  stack = await startInProcessStack();
  api = apiClient(stack);
  key = demoKey(stack, 'tdemoenterprise', 'analyst').api_key;
  adminKey = demoKey(stack, 'tdemoenterprise', 'admin').api_key;
  otherTenantKey = demoKey(stack, 'tdemostarter', 'admin').api_key;
}, 120_000);

afterAll(async () => {
  await stack?.close();
  mirror?.close();
  for (const name of Object.keys(ENV)) delete process.env[name];
  rmSync(work, { recursive: true, force: true });
});

/** A list sync from the mirror, as `npm run sync -- --from <dir>` runs it; the server loads the result. */
async function sync(): Promise<string> {
  const { config, table } = getServices();
  const report = await runListSync({ config, table, from: mirror.dir, lists: LISTS });
  expect(report.snapshotVersion).toBeDefined();
  await liveWatchlistsOf(config).refresh();
  return report.snapshotVersion as string;
}

// The UN file's first individual, a real designee: Eric Badege (CDi.001).
const BADEGE = '6907993';
const screenBadege = (): Promise<ApiResponse> =>
  api.post('/screen', key, { name: 'Eric Badege', types: 'sanctions', force: true });
// biome-ignore lint/suspicious/noExplicitAny: black-box tests read arbitrary JSON bodies
const matchIds = (screen: any): string[] =>
  (screen.sanctions_result?.matches ?? []).map((m: { entity_id: string }) => m.entity_id);
const unList = (receipt: { snapshot: { lists: { id: string }[] } }) =>
  receipt.snapshot.lists.find((list) => list.id === 'un_sc');

describe('screen receipts and replay', { timeout: 120_000 }, () => {
  let before: { screen_id: string; version: string };
  let after: { screen_id: string; version: string };

  it('a screen on the bundled lists names each list’s content hash (issue 35: it was null)', async () => {
    const screened = await screenBadege();
    expect(screened.status).toBe(200);
    const { lists } = screened.body.receipt.snapshot;
    expect(lists.map((list: { id: string }) => list.id).sort()).toEqual([...LISTS].sort());
    for (const list of lists) expect(list.content_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a screen shows its receipt: the snapshot version in force, each list, the matcher', async () => {
    // The publisher's file as it was before Eric Badege was designated.
    mirror.write(UN_FILE, unWithoutIndividuals(original, 1));
    const version = await sync();
    const screened = await screenBadege();
    expect(screened.status).toBe(200);
    expect(matchIds(screened.body)).not.toContain(BADEGE);

    const shown = await api.get(`/screens/${screened.body.screen_id}`, key);
    expect(shown.status).toBe(200);
    const { receipt } = shown.body;
    expect(receipt.snapshot.version).toBe(version);
    // The version is the store's own name for the snapshot in force.
    expect(readFileSync(join(ENV.WATCHLIST_STORE_DIR, 'latest'), 'utf8').trim()).toBe(version);
    expect(unList(receipt)).toMatchObject({
      individual_count: 729,
      content_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(receipt.matcher.version).toBe(MATCHER_VERSION);
    expect(receipt.matcher.config).toMatchObject({ check_types: ['sanctions'], max_matches_per_check: 10 });
    expect(receipt.matcher.config.name_bands.reporting_floor).toBe(0.7);
    // List rows stay light: the receipt is on the screen, not in the lists.
    const rows = (await api.get('/screens?limit=5', key)).body.screens;
    expect(
      rows.find((row: { screen_id: string }) => row.screen_id === screened.body.screen_id),
    ).not.toHaveProperty('receipt');
    before = { screen_id: screened.body.screen_id, version };
  });

  it('replays an older screen identically on its own snapshot, and reports that today’s lists differ', async () => {
    // The publisher lists him: a sync publishes a newer snapshot and the server screens on it.
    mirror.write(UN_FILE, original);
    const version = await sync();
    expect(version).not.toBe(before.version);
    const screened = await screenBadege();
    expect(matchIds(screened.body)).toContain(BADEGE);
    expect(screened.body.receipt.snapshot.version).toBe(version);
    after = { screen_id: screened.body.screen_id, version };

    const replay = await api.post(`/screens/${before.screen_id}/replay`, adminKey);
    expect(replay.status).toBe(200);
    const stored = (await api.get(`/screens/${before.screen_id}`, key)).body;
    expect(replay.body.receipt).toEqual(stored.receipt);
    expect(replay.body.replayed).toMatchObject({
      snapshot_version: before.version,
      matcher_version: MATCHER_VERSION,
      same_matcher: true,
      same_lists: true,
      identical: true,
      risk_level: stored.risk_level,
      differences: {
        risk_level: null,
        matches_added: [],
        matches_removed: [],
        matches_changed: [],
        matches_rescored: [],
        other_fields: [],
      },
    });
    const { today } = replay.body;
    expect(today.snapshot_version).toBe(version);
    expect(today.identical).toBe(false);
    expect(today.risk_level).toBe(screened.body.risk_level);
    expect(today.differences.risk_level).toEqual({
      stored: stored.risk_level,
      now: screened.body.risk_level,
    });
    expect(today.differences.matches_added.map((m: { entity_id: string }) => m.entity_id)).toContain(BADEGE);

    // Replay stores and charges nothing: the screen is as it was.
    expect((await api.get(`/screens/${before.screen_id}`, key)).body).toEqual(stored);
  });

  it('replays a screen made on today’s lists as identical both ways', async () => {
    const replay = await api.post(`/screens/${after.screen_id}/replay`, adminKey);
    expect(replay.status).toBe(200);
    expect(replay.body.replayed).toMatchObject({ snapshot_version: after.version, identical: true });
    expect(replay.body.today).toMatchObject({ snapshot_version: after.version, identical: true });
  });

  it('is for admins: an analyst gets 403 naming the role; each replay is on the audit trail', async () => {
    const refused = await api.post(`/screens/${after.screen_id}/replay`, key);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('Replaying a screen requires the admin role; your role is analyst');

    const replayed = await api.post(`/screens/${after.screen_id}/replay`, adminKey);
    expect(replayed.status).toBe(200);
    const trail = (await api.get('/audit?limit=5', adminKey)).body.entries;
    const done = trail.find(
      (entry: { action: string; outcome: string }) =>
        entry.action === 'screen.replay' && entry.outcome === 'done',
    );
    expect(done).toMatchObject({
      actor: { user_id: demoKey(stack, 'tdemoenterprise', 'admin').user_id, role: 'admin' },
      target: { screen_id: after.screen_id },
      details: {
        snapshot_version: after.version,
        identical: true,
        replayed_risk_level: replayed.body.replayed.risk_level,
        today_risk_level: replayed.body.today.risk_level,
      },
    });
    expect(
      trail.some(
        (entry: { action: string; outcome: string }) =>
          entry.action === 'screen.replay' && entry.outcome === 'started',
      ),
    ).toBe(true);
  });

  it('answers 404 for another tenant’s screen, as for one that does not exist', async () => {
    const other = await api.post(`/screens/${before.screen_id}/replay`, otherTenantKey);
    expect(other.status).toBe(404);
    expect(other.body.detail).toBe(`Screen ${before.screen_id} not found`);
    expect((await api.post('/screens/SCR-20200101-999999/replay', adminKey)).status).toBe(404);
  });

  it('answers 409 for a screen stored before screens recorded their receipt', async () => {
    const screened = await api.post('/screen', key, { name: 'Eric Holder', types: 'sanctions', force: true });
    // As a screen stored before this release is: the same item without a receipt.
    const { table } = getServices();
    const tenantId = demoKey(stack, 'tdemoenterprise', 'analyst').tenant_id;
    await table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: keys.screen(tenantId, screened.body.screen_id),
        UpdateExpression: 'REMOVE receipt',
      }),
    );
    expect((await api.get(`/screens/${screened.body.screen_id}`, key)).body.receipt).toBeNull();

    const replay = await api.post(`/screens/${screened.body.screen_id}/replay`, adminKey);
    expect(replay.status).toBe(409);
    expect(replay.body.detail).toMatch(/stored before screens recorded their receipt/);
  });

  it('answers 410 naming the version and the retention rule once the snapshot is no longer kept', async () => {
    // Six years on, a sync publishes again: the store deletes the versions replaced more than the
    // retention period (1827 days) ago, the older screen's among them.
    const store = createFileSnapshotStore(ENV.WATCHLIST_STORE_DIR, {
      now: () => new Date(Date.now() + 6 * 365 * 86_400_000),
    });
    const latest = await store.readLatest();
    await store.write(latest?.body as Buffer);
    expect(await store.has(before.version)).toBe(false);

    const replay = await api.post(`/screens/${before.screen_id}/replay`, adminKey);
    expect(replay.status).toBe(410);
    expect(replay.body.detail).toBe(
      `Screen ${before.screen_id} was matched against watchlist snapshot ${before.version}, which is no longer kept (a snapshot version is kept for 1827 days after a newer one replaced it)`,
    );
  });
});
