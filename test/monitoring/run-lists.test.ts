/**
 * The lists a rescreen run's worker screens on (lib/monitoring/run-lists.ts), against a real local
 * snapshot store: the run's version or a newer one, never an older one, and a retry rather than a
 * stale screen when the store cannot give it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/common/config.ts';
import type { Matcher } from '../../lib/matcher/screen.ts';
import { serialiseSnapshot, writeSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { matcherForRun, publishedSnapshotVersion } from '../../lib/monitoring/run-lists.ts';
import { liveWatchlistsOf } from '../../lib/sync/live-watchlists.ts';
import { createFileSnapshotStore } from '../../lib/sync/snapshot-store.ts';
import { buildSnapshot } from '../../lib/watchlists/snapshot.ts';
import { LIST_SOURCES } from '../../lib/watchlists/sources.ts';
import type { WatchlistSnapshot } from '../../lib/watchlists/types.ts';
import { createListMirror, UN_FILE, unWithoutIndividuals } from '../support/list-mirror.ts';

const work = mkdtempSync(join(tmpdir(), 'run-lists-'));
const UN = LIST_SOURCES.filter((s) => s.descriptor.id === 'un_sc');
// The UN list as published, and without its first one or two individuals (real entries removed,
// none invented): three successive states of the publisher's file.
let published: WatchlistSnapshot;
let lessOne: WatchlistSnapshot;
let lessTwo: WatchlistSnapshot;
beforeAll(() => {
  const mirror = createListMirror([UN_FILE]);
  try {
    const original = mirror.read(UN_FILE);
    published = buildSnapshot(mirror.dir, { sources: UN });
    mirror.write(UN_FILE, unWithoutIndividuals(original, 1));
    lessOne = buildSnapshot(mirror.dir, { sources: UN });
    mirror.write(UN_FILE, unWithoutIndividuals(original, 2));
    lessTwo = buildSnapshot(mirror.dir, { sources: UN });
  } finally {
    mirror.close();
  }
  writeSnapshot(lessTwo, join(work, 'bundled.json'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A worker's services over its own store directory, as the composition root builds them. */
function worker(name: string) {
  const storeDir = join(work, name);
  const config = readConfig({
    TABLE_NAME: 'unused',
    WATCHLIST_STORE_DIR: storeDir,
    WATCHLIST_SNAPSHOT: join(work, 'bundled.json'),
    WATCHLIST_CHECK_SECONDS: '60',
  });
  return {
    store: createFileSnapshotStore(storeDir),
    services: { config, matcher: (): Promise<Matcher> => liveWatchlistsOf(config).matcher() },
  };
}
const run = (snapshot_version: string | undefined) => ({
  trigger: 'manual' as const,
  due: 1,
  already_running: 0,
  skipped_quota: 0,
  ...(snapshot_version === undefined ? {} : { snapshot_version }),
});

describe('matcherForRun', () => {
  it('loads the version the run names before screening, when the worker still holds older lists', async () => {
    const { store, services } = worker('reload');
    await store.write(serialiseSnapshot(lessOne));
    const held = await services.matcher();
    const needed = await store.write(serialiseSnapshot(published));
    expect(await publishedSnapshotVersion(services.config)).toBe(needed);

    const matcher = await matcherForRun(services, run(needed));

    expect(held.snapshot.version).not.toBe(needed);
    expect(matcher.snapshot.version).toBe(needed);
  });

  it('takes a snapshot published after the run started: the store only moves forward', async () => {
    const { store, services } = worker('newer');
    const needed = await store.write(serialiseSnapshot(lessOne));
    const newer = await store.write(serialiseSnapshot(published));

    const matcher = await matcherForRun(services, run(needed));

    expect(matcher.snapshot.version).toBe(newer);
  });

  it('throws, so the job is retried, when the store cannot give the run its lists', async () => {
    const { store, services } = worker('unreadable');
    await store.write(serialiseSnapshot(lessOne));
    await services.matcher();
    // The newest snapshot's file is gone: the pointer names a version nobody can read.
    writeFileSync(join(work, 'unreadable', 'latest'), 'watchlists-20261125T000000000Z-0badf11e.json\n');

    await expect(
      matcherForRun(services, run('watchlists-20261125T000000000Z-0badf11e.json')),
    ).rejects.toThrow(/could not load it; the client is screened on retry/);
  });

  it('asks nothing of a run started while nothing was published (the bundled lists)', async () => {
    const { services } = worker('empty');
    expect(await publishedSnapshotVersion(services.config)).toBeUndefined();
    const matcher = await matcherForRun(services, run(undefined));
    expect(matcher.snapshot.version).toMatch(/^bundled-[0-9a-f]{16}$/);
  });

  it('holds a run stored before versions were recorded to the time of its sync', async () => {
    const { store, services } = worker('legacy');
    await services.matcher();
    await store.write(serialiseSnapshot(published));
    const legacyRun = (syncedAt: string) => ({
      ...run(undefined),
      trigger: 'list_change' as const,
      lists_synced_at: syncedAt,
    });

    expect(await matcherForRun(services, legacyRun('2020-01-01T00:00:00Z'))).toBe(await services.matcher());
    // No list in the store was synced that late: retried, not screened.
    const later = new Date(Date.now() + 3_600_000).toISOString();
    await expect(matcherForRun(services, legacyRun(later))).rejects.toThrow(/not loaded yet/);
  });
});
