/**
 * Matchers over earlier snapshot versions, for replaying a screen on the lists it was matched
 * against. Building one reads the whole snapshot and indexes it (a few hundred ms, about 80 MB),
 * so the last few are kept per process, by version; the live matcher (live-watchlists.ts) is
 * never replaced by one of these.
 */
import { bundledSnapshotVersion, createMatcher, type Matcher } from '../matcher/screen.ts';
import { parseSnapshot } from '../matcher/snapshot-file.ts';
import { SNAPSHOT_FORMAT_VERSION } from '../watchlists/snapshot.ts';
import type { WatchlistSnapshot } from '../watchlists/types.ts';
import type { SnapshotStore } from './snapshot-store.ts';
import { effectiveSnapshot } from './sync-lists.ts';

/** Replay matchers kept per process: a replay is usually followed by another on the same version. */
export const REPLAY_MATCHERS_KEPT = 2;

export interface SnapshotMatcherSources {
  /** Where synced snapshots are kept; undefined when the process has none configured. */
  store: SnapshotStore | undefined;
  /** The snapshot shipped with the running code. */
  loadBundled: () => WatchlistSnapshot;
}

/**
 * A matcher over the snapshot, or why there is none: `not_kept` (the store does not hold the
 * version: expired under the retention rule, or never written there), `not_shipped` (a bundled
 * snapshot the running code no longer ships), `old_format` (kept, but in a snapshot format the
 * running code does not read).
 */
export type SnapshotMatcher =
  | { matcher: Matcher }
  | { unavailable: 'not_kept' | 'not_shipped' | 'old_format' };

const kept = new Map<string, Promise<SnapshotMatcher>>();

/**
 * The matcher over snapshot `version`, built as the live one would have been (the stored snapshot
 * completed with the bundled data of lists it lacks), or why it cannot be built.
 */
export function matcherForSnapshotVersion(
  sources: SnapshotMatcherSources,
  version: string,
): Promise<SnapshotMatcher> {
  const key = `${sources.store?.description ?? 'bundled'}\0${version}`;
  const cached = kept.get(key);
  if (cached) {
    // Most recently used last, so the oldest is the one dropped.
    kept.delete(key);
    kept.set(key, cached);
    return stillKept(sources, version).then((held) => {
      if (held) return cached;
      // Expired from the store since it was built: answer as the store does.
      kept.delete(key);
      return { unavailable: 'not_kept' as const };
    });
  }
  const building = build(sources, version);
  kept.set(key, building);
  // A failure is not remembered: the next replay tries again.
  building.then(
    (result) => 'unavailable' in result && kept.delete(key),
    () => kept.delete(key),
  );
  while (kept.size > REPLAY_MATCHERS_KEPT) kept.delete(kept.keys().next().value as string);
  return building;
}

/** A cached matcher answers only while the store still holds its version (the bundled one: always). */
async function stillKept(sources: SnapshotMatcherSources, version: string): Promise<boolean> {
  if (version.startsWith('bundled-')) return true;
  return (await sources.store?.has(version)) ?? false;
}

async function build(sources: SnapshotMatcherSources, version: string): Promise<SnapshotMatcher> {
  if (version.startsWith('bundled-')) {
    // The bundled snapshot is named by its content: replayable while the code ships the same one.
    const bundled = sources.loadBundled();
    if (bundledSnapshotVersion(bundled) !== version) return { unavailable: 'not_shipped' };
    return { matcher: createMatcher(bundled) };
  }
  const stored = await sources.store?.read(version);
  if (!stored) return { unavailable: 'not_kept' };
  const snapshot = parseSnapshot(stored.body);
  // effectiveSnapshot falls back to the bundled lists for a format it cannot read: never for a replay.
  if (snapshot.format_version !== SNAPSHOT_FORMAT_VERSION) return { unavailable: 'old_format' };
  return { matcher: createMatcher(effectiveSnapshot(snapshot, sources.loadBundled), version) };
}
