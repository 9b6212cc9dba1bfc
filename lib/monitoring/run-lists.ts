/**
 * The lists a rescreen run screens on. A run (scheduled, manual or started by a list change) names
 * the snapshot it needs when it starts: the store's newest version then, or for a list-change run
 * the version its sync published. No worker screens one of its clients with an older matcher.
 *
 * Snapshot versions are names, not ordered values (an S3 VersionId is opaque; a local file name
 * only looks sortable, and two machines' clocks need not agree), so "at least as new" is never
 * decided by comparing two versions. It rests on one property instead: the store's "latest"
 * names the snapshot published last, and publishing only ever moves it to a later one (S3 serves
 * the newest object version; the local store swaps its pointer file by rename once the snapshot
 * file is whole). So a matcher built from the version the store calls latest now, after the run
 * started, holds the run's version or one published after it.
 */
import type { BatchRecord } from '../batch/batch-table.ts';
import type { Config } from '../common/config.ts';
import type { Matcher } from '../matcher/screen.ts';
import type { Services } from '../ports.ts';
import { liveWatchlistsOf } from '../sync/live-watchlists.ts';
import { snapshotStoreOf } from '../sync/snapshot-store.ts';

/**
 * The newest published snapshot version, for a run to record when it starts: undefined when no
 * store is configured or nothing was published yet (the bundled lists are then the newest, and
 * every matcher holds them or newer). Throws when the store cannot be read: a run that cannot
 * name the lists in force is not started, rather than screened on lists it cannot vouch for.
 */
export async function publishedSnapshotVersion(config: Config): Promise<string | undefined> {
  return snapshotStoreOf(config)?.latestVersion();
}

/** Reloads of the live watchlists a worker tries before it gives the job back to the queue. */
const RELOAD_ATTEMPTS = 3;

/**
 * The matcher a run's client is screened with: built from the run's snapshot version or a newer
 * one. A warm worker may still hold older lists (it looks for a newer snapshot at most once per
 * WATCHLIST_CHECK_SECONDS, in the background): it reloads the store's newest first. When it still
 * cannot hold it (the store unreadable, or its newest unreadable), this throws, so the job is
 * retried by the queue; a client is never screened on stale lists.
 *
 * Runs stored before versions were recorded name only their sync's time (`lists_synced_at`):
 * they are held to that, as they were.
 */
export async function matcherForRun(
  services: Pick<Services, 'config' | 'matcher'>,
  run: BatchRecord['run'],
): Promise<Matcher> {
  const required = run?.snapshot_version;
  if (required === undefined) return matcherSyncedSince(services, run?.lists_synced_at);
  const inForce = await services.matcher();
  if (inForce.snapshot.version === required) return inForce;
  const store = snapshotStoreOf(services.config);
  for (let attempt = 0; attempt < RELOAD_ATTEMPTS && store; attempt += 1) {
    await liveWatchlistsOf(services.config).refresh();
    const reloaded = await services.matcher();
    if (reloaded.snapshot.version === required) return reloaded;
    // Another sync may have published since the run started: the store's newest now is newer still.
    if (reloaded.snapshot.version === (await store.latestVersion())) return reloaded;
  }
  throw new Error(
    `The run needs watchlist snapshot ${required} or newer, and this worker could not load it; ` +
      'the client is screened on retry',
  );
}

function newestSync(matcher: Matcher): string {
  let newest = '';
  for (const list of matcher.lists) if (list.synced_at > newest) newest = list.synced_at;
  return newest;
}

/** A run stored before versions were recorded: lists synced no earlier than its sync. */
async function matcherSyncedSince(
  services: Pick<Services, 'config' | 'matcher'>,
  syncedAt: string | undefined,
): Promise<Matcher> {
  const matcher = await services.matcher();
  if (!syncedAt || newestSync(matcher) >= syncedAt) return matcher;
  await liveWatchlistsOf(services.config).refresh();
  const fresh = await services.matcher();
  if (newestSync(fresh) < syncedAt) {
    throw new Error(
      `The watchlists synced at ${syncedAt} are not loaded yet; the client is screened on retry`,
    );
  }
  return fresh;
}
