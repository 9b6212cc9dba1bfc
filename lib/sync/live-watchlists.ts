/**
 * The watchlists a running process screens against, kept current without a redeploy or restart.
 *
 * The first screen loads the newest synced snapshot from the store (the bundled one when the store
 * is empty or unreachable). Afterwards, at most once per `checkEveryMs`, a request triggers a
 * version check (an S3 HEAD, a one-line file locally); when the store holds a newer snapshot it is
 * read and indexed in the background while requests go on with the current matcher, and the
 * finished matcher replaces it in one assignment. A request takes one matcher and keeps it, so no
 * screen ever sees a half-loaded index or a mix of two snapshots.
 */
import type { Config } from '../common/config.ts';
import { logger } from '../common/log.ts';
import type { Matcher } from '../matcher/screen.ts';
import { createMatcher } from '../matcher/screen.ts';
import { loadSnapshot } from '../matcher/snapshot-file.ts';
import { peopleSource } from '../matcher/snapshot-people.ts';
import type { WatchlistSnapshot } from '../watchlists/types.ts';
import type { SnapshotStore } from './snapshot-store.ts';
import { snapshotStoreOf } from './snapshot-store.ts';
import { effectiveSnapshot, readLatestSnapshot } from './sync-lists.ts';

export interface LiveWatchlistsOptions {
  /** Where synced snapshots are published; undefined = the bundled snapshot only. */
  store?: SnapshotStore;
  /**
   * The snapshot bundled with the code: the fallback while the store is empty, and the source of a
   * list a deploy added before its first sync. Not kept in memory once the matcher is built.
   */
  loadBundled: () => WatchlistSnapshot;
  /** Builds the matcher; `version` is the store's version of the snapshot (undefined: bundled). */
  createMatcher: (snapshot: WatchlistSnapshot, version?: string) => Matcher;
  /** Minimum time between two version checks; default 60 s. */
  checkEveryMs?: number;
  now?: () => number;
}

export interface LiveWatchlists {
  /** The matcher in force (loaded on first call). */
  matcher(): Promise<Matcher>;
  /** Checks the store now and swaps in a newer snapshot before resolving (local sync, tests). */
  refresh(): Promise<void>;
  /** The store version the matcher in force was built from; undefined for the bundled snapshot. */
  version(): string | undefined;
}

export function createLiveWatchlists(options: LiveWatchlistsOptions): LiveWatchlists {
  const { store, loadBundled } = options;
  const checkEveryMs = options.checkEveryMs ?? 60_000;
  const now = options.now ?? Date.now;
  let current: Matcher | undefined;
  let loadedVersion: string | undefined;
  let lastCheck = 0;
  let loading: Promise<void> | undefined;

  async function load(): Promise<void> {
    lastCheck = now();
    if (!store) {
      current ??= options.createMatcher(loadBundled());
      return;
    }
    try {
      const latest = await store.latestVersion();
      if (current && latest === loadedVersion) return;
      const stored = latest === undefined ? undefined : await readLatestSnapshot(store);
      const snapshot = effectiveSnapshot(stored?.snapshot, loadBundled);
      // Built before it is assigned: requests use the previous matcher until this one is whole.
      // The bundled snapshot (nothing stored, or the stored one unreadable) is named by its content.
      const next = options.createMatcher(snapshot, stored?.version);
      current = next;
      loadedVersion = stored?.version ?? latest;
      logger.info(
        { version: latest ?? 'bundled', people: peopleSource(snapshot).count },
        'watchlists loaded',
      );
    } catch (error) {
      // An unreachable store must not stop screening: keep what is loaded (or the bundled lists).
      logger.error(
        { store: store.description, err: error },
        'watchlist store unreadable; keeping the lists in force',
      );
      current ??= options.createMatcher(loadBundled());
    }
  }

  function loadOnce(): Promise<void> {
    loading ??= load().finally(() => {
      loading = undefined;
    });
    return loading;
  }

  return {
    async matcher() {
      if (!current) await loadOnce();
      else if (now() - lastCheck >= checkEveryMs) void loadOnce();
      return current as Matcher;
    },
    refresh: loadOnce,
    version: () => loadedVersion,
  };
}

/** Outlives resetServices unless the snapshot store changes: the lists do not depend on the table. */
let watchlists: { key: string; live: LiveWatchlists } | undefined;

/** The watchlists in force, for an in-process sync to swap in its result at once (npm start). */
export function liveWatchlistsOf(config: Config): LiveWatchlists {
  const key = JSON.stringify([
    config.WATCHLIST_BUCKET,
    config.WATCHLIST_STORE_DIR,
    config.WATCHLIST_SNAPSHOT,
  ]);
  if (watchlists?.key !== key) {
    watchlists = {
      key,
      live: createLiveWatchlists({
        store: snapshotStoreOf(config),
        loadBundled: () => loadSnapshot(config.WATCHLIST_SNAPSHOT || undefined),
        createMatcher,
        checkEveryMs: config.WATCHLIST_CHECK_SECONDS * 1000,
      }),
    };
  }
  return watchlists.live;
}
