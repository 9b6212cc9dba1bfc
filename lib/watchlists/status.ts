import { DAY_MS, isoSeconds } from '../common/time.ts';
import type { CheckType, ListSummary } from './types.ts';

/**
 * How old a list's own publication may be before it counts as stale. Sanctions publishers
 * (OFAC, UN, OFSI) amend their lists several times a week and a missed designation is a
 * regulatory failure, so a sanctions list is stale after 7 days. PEP and criminal sources change
 * more slowly: 30 days.
 */
export const MAX_SOURCE_AGE_DAYS: Readonly<Record<CheckType, number>> = {
  sanctions: 7,
  pep: 30,
  criminal: 30,
};

/** How long since the service last read a list before that alone makes it stale. */
export const MAX_SYNC_AGE_HOURS = 24;

export const STALENESS_RULE =
  `A list is stale when its own publication date is more than ${MAX_SOURCE_AGE_DAYS.sanctions} days old (sanctions) ` +
  `or ${MAX_SOURCE_AGE_DAYS.pep} days old (PEP, criminal), or when the service last synced it more than ` +
  `${MAX_SYNC_AGE_HOURS} hours ago, or when its last sync failed (screening then uses its last good data). ` +
  'A list whose data states no date of its own (source_date null) is stale. The database is stale when any list is.';

function wholeDaysBetween(from: string, to: Date): number {
  return Math.floor((to.getTime() - Date.parse(from)) / DAY_MS);
}

/**
 * How the list sync last went for one list (lib/sync/list-status-table.ts rows); `official_urls` is
 * empty for a list the service does not sync (a retired list, a third party's transcription).
 */
export interface ListSyncState {
  official_urls: readonly string[];
  last_attempt_at?: string;
  last_success_at?: string;
  error?: string;
}

/**
 * Why a list is stale at `now` (STALENESS_RULE), none when it is current: its last sync failed,
 * its own publication date is unknown or past its category's limit, or it was last synced (or
 * confirmed unchanged) more than MAX_SYNC_AGE_HOURS ago. GET /dbstatus says it of the lists now;
 * a screen's receipt says it of the lists the screen was taken on, at its time.
 */
export function listStaleReasons(
  list: Pick<ListSummary, 'category' | 'source_date' | 'synced_at'>,
  now: Date,
  state?: ListSyncState,
): string[] {
  const sourceAgeDays =
    list.source_date === null ? null : wholeDaysBetween(`${list.source_date}T00:00:00Z`, now);
  // A sync that found the publisher's files unchanged confirms the list without rebuilding it.
  const confirmedAt = [list.synced_at, state?.last_success_at ?? ''].sort().at(-1) as string;
  const syncAgeHours = Math.floor((now.getTime() - Date.parse(confirmedAt)) / 3_600_000);
  const staleReasons: string[] = [];
  if (state?.error) {
    staleReasons.push(
      `last sync failed: ${state.error} (screening uses the data of ${state.last_success_at ? `the sync of ${state.last_success_at}` : 'the bundled copy'})`,
    );
  }
  // A list whose data has no date may be of any age: it cannot be called current.
  if (sourceAgeDays === null) {
    staleReasons.push('source date unknown: the publisher states no date for this data');
  } else if (sourceAgeDays > MAX_SOURCE_AGE_DAYS[list.category]) {
    staleReasons.push(`published ${sourceAgeDays} days ago (limit ${MAX_SOURCE_AGE_DAYS[list.category]})`);
  }
  if (syncAgeHours > MAX_SYNC_AGE_HOURS) {
    staleReasons.push(`last synced ${syncAgeHours} hours ago (limit ${MAX_SYNC_AGE_HOURS})`);
  }
  return staleReasons;
}

/** GET /dbstatus: per list counts, dates, sync state and staleness, and the overall verdict. */
export function describeDatabase(
  lists: readonly ListSummary[],
  now: Date = new Date(),
  sync: ReadonlyMap<string, ListSyncState> = new Map(),
) {
  const described = lists.map((list) => {
    const state = sync.get(list.id);
    const sourceAgeDays =
      list.source_date === null ? null : wholeDaysBetween(`${list.source_date}T00:00:00Z`, now);
    const staleReasons = listStaleReasons(list, now, state);
    return {
      id: list.id,
      name: list.name,
      category: list.category,
      publisher: list.publisher,
      entity_count: list.entity_count,
      individual_count: list.individual_count,
      linked_count: list.linked_count ?? 0,
      source_date: list.source_date,
      source_date_basis: list.source_date_basis,
      last_sync: list.synced_at,
      last_successful_sync: state?.last_success_at ?? null,
      last_attempted_sync: state?.last_attempt_at ?? null,
      sync_error: state?.error ?? null,
      synced_from: [...(state?.official_urls ?? [])],
      age_days: sourceAgeDays,
      stale: staleReasons.length > 0,
      stale_reasons: staleReasons,
      // Caveats a compliance reader must see with the counts (e.g. the UK list's missing dates
      // of birth) and the attribution the licence requires.
      notes: list.notes ?? [],
      ...(list.attribution ? { attribution: list.attribution } : {}),
    };
  });
  const lastSync =
    lists
      .map((l) => l.synced_at)
      .sort()
      .at(-1) ?? null;
  return {
    lists: described,
    totals: {
      lists: described.length,
      entities: described.reduce((sum, l) => sum + l.entity_count, 0),
      individuals: described.reduce((sum, l) => sum + l.individual_count, 0),
    },
    last_sync: lastSync,
    stale: described.some((l) => l.stale),
    stale_lists: described.filter((l) => l.stale).map((l) => l.id),
    staleness_rule: STALENESS_RULE,
    checked_at: isoSeconds(now),
  };
}
