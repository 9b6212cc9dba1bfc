import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMatcher } from '../../lib/matcher/screen.ts';
import { serialiseSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { createLiveWatchlists } from '../../lib/sync/live-watchlists.ts';
import { createFileSnapshotStore, type SnapshotStore } from '../../lib/sync/snapshot-store.ts';
import { buildSnapshot, defaultDataDir } from '../../lib/watchlists/snapshot.ts';
import { LIST_SOURCES } from '../../lib/watchlists/sources.ts';
import type { WatchlistSnapshot } from '../../lib/watchlists/types.ts';

const dir = mkdtempSync(join(tmpdir(), 'live-watchlists-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const UN = LIST_SOURCES.filter((s) => s.descriptor.id === 'un_sc');
const bundled = buildSnapshot(defaultDataDir(), { sources: UN, now: new Date('2026-07-01T00:00:00Z') });
// A real UN designee: the file's first individual.
const person = bundled.people[0];

function withoutFirstPerson(snapshot: WatchlistSnapshot): WatchlistSnapshot {
  const people = snapshot.people.slice(1);
  return {
    ...snapshot,
    built_at: '2026-11-23T06:00:00Z',
    lists: snapshot.lists.map((l) => ({ ...l, individual_count: people.length })),
    people,
  };
}

function live(store: SnapshotStore, clock: { t: number }) {
  return createLiveWatchlists({
    store,
    loadBundled: () => bundled,
    createMatcher,
    checkEveryMs: 60_000,
    now: () => clock.t,
  });
}

const matches = (m: Awaited<ReturnType<ReturnType<typeof live>['matcher']>>) =>
  m
    .screen({ name: person.primary_name }, ['sanctions'])
    .sanctions_result?.matches.some((x) => x.entity_id === person.entity_id);

describe('live watchlists', () => {
  it('serves the bundled lists while the store is empty', async () => {
    const watchlists = live(createFileSnapshotStore(join(dir, 'empty')), { t: 0 });
    expect(matches(await watchlists.matcher())).toBe(true);
    expect(watchlists.version()).toBeUndefined();
  });

  it('swaps in a newer stored snapshot after the check interval, between requests', async () => {
    const store = createFileSnapshotStore(join(dir, 'swap'));
    const clock = { t: 0 };
    const watchlists = live(store, clock);
    const before = await watchlists.matcher();
    expect(matches(before)).toBe(true);

    const version = await store.write(serialiseSnapshot(withoutFirstPerson(bundled)));
    clock.t = 30_000; // within the interval: no check, same matcher
    expect(await watchlists.matcher()).toBe(before);

    clock.t = 61_000; // due: this request still gets the matcher in force; the new one loads behind it
    expect(await watchlists.matcher()).toBe(before);
    await watchlists.refresh();
    const after = await watchlists.matcher();
    expect(after).not.toBe(before);
    expect(watchlists.version()).toBe(version);
    expect(matches(after)).toBe(false);
    // A request that took the old matcher finishes on it, whole.
    expect(matches(before)).toBe(true);
  });

  it('loads the newest stored snapshot at a cold start, not the bundled one', async () => {
    const store = createFileSnapshotStore(join(dir, 'cold'));
    await store.write(serialiseSnapshot(withoutFirstPerson(bundled)));
    const watchlists = live(store, { t: 0 });
    expect(matches(await watchlists.matcher())).toBe(false);
  });

  it('keeps screening with the lists in force when the store cannot be read', async () => {
    const failing: SnapshotStore = {
      description: 'unreachable',
      latestVersion: () => Promise.reject(new Error('network down')),
      readLatest: () => Promise.reject(new Error('network down')),
      read: () => Promise.reject(new Error('network down')),
      has: () => Promise.reject(new Error('network down')),
      write: () => Promise.reject(new Error('network down')),
    };
    const clock = { t: 0 };
    const watchlists = live(failing, clock);
    const first = await watchlists.matcher();
    expect(matches(first)).toBe(true);
    clock.t = 120_000;
    await watchlists.refresh();
    expect(await watchlists.matcher()).toBe(first);
  });
});
