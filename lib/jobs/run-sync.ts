/**
 * One list sync as the deployed function, the CLI and `npm start`'s schedule run it: the
 * configured snapshot store and table, the official URLs or a mirror, every list with a feed.
 */

import type { Config } from '../common/config.ts';
import { logger } from '../common/log.ts';
import { loadSnapshot } from '../matcher/snapshot-file.ts';
import { type DeltaRescreenReport, rescreenChangedClients } from '../monitoring/delta-rescreen.ts';
import type { Services } from '../ports.ts';
import type { Table } from '../store/table.ts';
import { BUNDLED_ORIGIN, bundledFeeds } from '../sync/bundled.ts';
import { LIST_FEEDS } from '../sync/feeds.ts';
import { createGetFile, describeOrigin, parseOrigin } from '../sync/fetch.ts';
import { snapshotStoreOf } from '../sync/snapshot-store.ts';
import { type SyncReport, syncLists } from '../sync/sync-lists.ts';
import { defaultDataDir } from '../watchlists/snapshot.ts';

export interface RunListSyncOptions {
  config: Config;
  table: Table;
  /**
   * The work queue the list-change rescreens are sent to. Without one (`npm run sync` beside a
   * running `npm start`, whose queue lives in its process) the clients are only made due, and
   * that process's hourly rescreen takes them.
   */
  batchQueue?: Services['batchQueue'];
  /**
   * A mirror directory or base URL, or `bundled` (the copies under data/, lib/sync/bundled.ts);
   * default LIST_SYNC_FROM, else the publishers' official URLs.
   */
  from?: string;
  /** Only these lists (default LIST_SYNC_LISTS, else every list with a feed). */
  lists?: readonly string[];
  /** Lists whose large fall in individuals an operator confirmed as real delistings. */
  acceptDrops?: readonly string[];
  /** Per-file download deadline in ms. */
  timeoutMs?: number;
}

export interface ListSyncRun extends SyncReport {
  /** The clients rescreened because a list added or amended someone they could match. */
  rescreens?: DeltaRescreenReport | { error: string };
}

export async function runListSync(options: RunListSyncOptions): Promise<ListSyncRun> {
  const { config } = options;
  const store = snapshotStoreOf(config);
  if (!store) throw new Error('No snapshot store configured: set WATCHLIST_BUCKET or WATCHLIST_STORE_DIR');
  const only =
    options.lists ??
    config.LIST_SYNC_LISTS?.split(',')
      .map((id) => id.trim())
      .filter(Boolean);
  const unknown = (only ?? []).filter((id) => !LIST_FEEDS.some((feed) => feed.listId === id));
  if (unknown.length > 0) {
    throw new Error(
      `Not a synced list: ${unknown.join(', ')} (synced: ${LIST_FEEDS.map((f) => f.listId).join(', ')})`,
    );
  }
  const from = options.from ?? config.LIST_SYNC_FROM;
  const origin = parseOrigin(from === BUNDLED_ORIGIN ? undefined : from);
  const feeds = only ? LIST_FEEDS.filter((feed) => only.includes(feed.listId)) : LIST_FEEDS;
  const report = await syncLists({
    store,
    table: options.table,
    getFile: createGetFile(origin, {
      timeoutMs: options.timeoutMs ?? config.LIST_SYNC_TIMEOUT_SECONDS * 1000,
    }),
    origin: from === BUNDLED_ORIGIN ? `bundled data (${defaultDataDir()})` : describeOrigin(origin),
    bundled: () => loadSnapshot(config.WATCHLIST_SNAPSHOT || undefined),
    feeds: from === BUNDLED_ORIGIN ? bundledFeeds(defaultDataDir(), feeds) : feeds,
    acceptDrops: options.acceptDrops,
  });
  return rescreenAfterSync(report, options.table, options.batchQueue);
}

/**
 * The clients a sync's added or amended listings could match are rescreened (or made due); a
 * failure here leaves them to their periodic rescreen. Used by the sync and by `sync-accept`.
 */
export async function rescreenAfterSync(
  report: SyncReport,
  table: Table,
  batchQueue?: Services['batchQueue'],
): Promise<ListSyncRun> {
  const options = { table, batchQueue };
  const people = report.diffs.flatMap((diff) => [...diff.added, ...diff.changed]);
  if (!report.snapshotVersion || people.length === 0) return report;
  try {
    const rescreens = await rescreenChangedClients(
      { table: options.table, batchQueue: options.batchQueue },
      {
        people,
        lists: report.lists,
        syncedAt: report.startedAt,
        snapshotVersion: report.snapshotVersion,
        now: new Date(),
      },
      logger,
    );
    return { ...report, rescreens };
  } catch (error) {
    // The new lists are published: a failure here leaves the clients to their periodic rescreen.
    logger.error({ err: error }, 'list-change rescreens failed');
    return { ...report, rescreens: { error: error instanceof Error ? error.message : String(error) } };
  }
}

/** What a run reports (logs, the CLI, the function's result): counts and errors, no personal data. */
export function summariseSync(report: ListSyncRun) {
  return {
    started_at: report.startedAt,
    snapshot_version: report.snapshotVersion ?? null,
    lists: report.outcomes.map((outcome) => ({
      list: outcome.listId,
      status: outcome.status,
      individuals: outcome.individuals,
      ...(outcome.status === 'failed'
        ? { error: outcome.error, ...(outcome.held ? { held: true } : {}) }
        : {}),
    })),
    changes: report.diffs.map((diff) => ({
      list: diff.listId,
      added: diff.added.length,
      changed: diff.changed.length,
      removed: diff.removed.length,
    })),
    ...(report.rescreens ? { rescreens: report.rescreens } : {}),
  };
}
