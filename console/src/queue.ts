import { api, ok, type RiskLevel, type Screen, type ScreenSummary } from './api.ts';

export type Check = 'sanctions' | 'pep' | 'criminal';
export type Origin = Screen['origin'];

/** The alert queue's filters, named as the API's query parameters (issue 24 item 5). */
export interface QueueFilters {
  risk_level?: RiskLevel;
  check?: Check;
  list?: string;
  origin?: Origin;
  awaiting_approval?: boolean;
  /** ISO date or date-time: screens from then on. */
  since?: string;
}

export interface QueueRow extends ScreenSummary {
  /** Read only when a filter needs the screen itself (origin, list, check). */
  origin?: Origin;
}

export interface QueuePage {
  screens: QueueRow[];
  next_cursor: string | null;
}

/** `pending`: the undecided screens; `all`: every screen (the approval queue reads decided ones). */
export type QueueSource = 'pending' | 'all';

const API_PAGE = 200;
/** API pages read for one console page at most, so a rare filter cannot stall the page. */
const MAX_API_PAGES = 10;

/**
 * One page of the queue: the one place the console reads /screens/pending and /screens.
 *
 * Until the API's own filters (`risk_level`, `check`, `list`, `origin`, `awaiting_approval`,
 * `since`) are merged, the filters are applied here: API pages are read newest first until `size`
 * rows match (at most MAX_API_PAGES pages per call); `list`, `origin` and `check` read each candidate
 * screen. The cursor returned is the API's, so paging stays O(page) however long the queue is.
 * Once the API filters exist, this becomes a single GET with the filters as query parameters.
 */
export async function queuePage(
  source: QueueSource,
  filters: QueueFilters,
  cursor: string | null,
  size = 25,
): Promise<QueuePage> {
  const rows: QueueRow[] = [];
  let next = cursor;
  const filtered = Object.values(filters).some((value) => value !== undefined && value !== '');
  for (let read = 0; read < MAX_API_PAGES; read++) {
    const query = { limit: String(filtered ? API_PAGE : size), ...(next ? { cursor: next } : {}) };
    const page = ok(
      source === 'pending'
        ? await api.GET('/screens/pending', { params: { query } })
        : await api.GET('/screens', { params: { query } }),
    );
    const candidates = page.screens.filter((screen) => matchesSummary(screen, filters));
    for (const row of await withDetail(candidates, filters)) if (row) rows.push(row);
    next = page.next_cursor;
    if (rows.length >= size || !next) break;
  }
  return { screens: rows, next_cursor: next };
}

function matchesSummary(screen: ScreenSummary, filters: QueueFilters): boolean {
  if (filters.risk_level && screen.risk_level !== filters.risk_level) return false;
  if (filters.check && !screen.types.includes(filters.check)) return false;
  if (filters.awaiting_approval !== undefined)
    if (Boolean(screen.disposition?.awaiting_approval) !== filters.awaiting_approval) return false;
  if (filters.since && (screen.alert_since ?? screen.screened_at) < filters.since) return false;
  return true;
}

async function withDetail(candidates: ScreenSummary[], filters: QueueFilters): Promise<(QueueRow | null)[]> {
  if (!filters.list && !filters.origin && !filters.check) return candidates;
  return Promise.all(
    candidates.map(async (summary) => {
      const screen = ok(
        await api.GET('/screens/{screen_id}', { params: { path: { screen_id: summary.screen_id } } }),
      );
      if (filters.origin && screen.origin !== filters.origin) return null;
      if (filters.check && matchesOf(screen, filters.check).length === 0) return null;
      if (filters.list && !listsOf(screen).includes(filters.list)) return null;
      return { ...summary, origin: screen.origin };
    }),
  );
}

export function resultOf(screen: Screen, check: Check) {
  return check === 'sanctions'
    ? screen.sanctions_result
    : check === 'pep'
      ? screen.pep_result
      : screen.criminal_result;
}

/** A check's matches (criminal records come as INTERPOL and FBI hits). */
export function matchesOf(screen: Screen, check: Check) {
  const result = resultOf(screen, check);
  if (!result) return [];
  return 'matches' in result ? result.matches : [...result.interpol_hits, ...result.fbi_hits];
}

/** Every list a screen's matches came from, linked listings included. */
export function listsOf(screen: Screen): string[] {
  const lists = new Set<string>();
  for (const check of ['sanctions', 'pep', 'criminal'] as const)
    for (const match of matchesOf(screen, check)) {
      lists.add(match.list_id);
      for (const listing of match.listings) lists.add(listing.list_id);
    }
  return [...lists];
}

const RANK: Record<RiskLevel, number> = { CRITICAL: 0, HIGH: 1, MEDIUM: 2, LOW: 3, CLEAR: 4 };
export type Sort = 'newest' | 'oldest' | 'risk';

/** Sorts the rows shown (the API pages newest first). */
export function sortRows(rows: QueueRow[], sort: Sort): QueueRow[] {
  const copy = [...rows];
  if (sort === 'oldest') copy.sort((a, b) => a.screened_at.localeCompare(b.screened_at));
  else if (sort === 'risk')
    copy.sort(
      (a, b) => RANK[a.risk_level] - RANK[b.risk_level] || b.screened_at.localeCompare(a.screened_at),
    );
  else copy.sort((a, b) => b.screened_at.localeCompare(a.screened_at));
  return copy;
}
