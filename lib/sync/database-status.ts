/**
 * GET /dbstatus with the list sync's view: each list's counts and dates from the snapshot in
 * force, with when its sync last succeeded and was last attempted, and why it failed.
 */
import type { Table } from '../store/table.ts';
import { describeDatabase, type ListSyncState } from '../watchlists/status.ts';
import type { ListSummary } from '../watchlists/types.ts';
import { feedFor } from './feeds.ts';
import { readSyncStatus } from './list-status-table.ts';

export async function describeDatabaseWithSync(
  table: Table,
  lists: readonly ListSummary[],
  now: Date = new Date(),
): Promise<ReturnType<typeof describeDatabase>> {
  const rows = await readSyncStatus(table);
  const states = new Map<string, ListSyncState>();
  for (const list of lists) {
    const row = rows.get(list.id);
    states.set(list.id, {
      official_urls: feedFor(list.id)?.officialUrls ?? [],
      last_attempt_at: row?.last_attempt_at,
      last_success_at: row?.last_success_at,
      error: row?.error,
    });
  }
  return describeDatabase(lists, now, states);
}
