import { api, ok, type RiskLevel, type Screen, type ScreenSummary } from './api.ts';

export type Check = 'sanctions' | 'pep' | 'criminal';
/** The API's `origin` filter: a screen's origin, or `list_change` for the re-screens a list sync started. */
export type Origin = NonNullable<ScreenSummary['origin']> | 'list_change';

/** The alert queue's filters: the API's query parameters on /screens and /screens/pending. */
export interface QueueFilters {
  risk_level?: RiskLevel;
  check?: Check;
  list?: string;
  origin?: Origin;
  awaiting_approval?: boolean;
  /** ISO date or date-time: screens from then on. */
  since?: string;
}

export type QueueRow = ScreenSummary;

export interface QueuePage {
  screens: QueueRow[];
  next_cursor: string | null;
}

/** `pending`: the undecided screens; `all`: every screen (the approval queue reads decided ones). */
export type QueueSource = 'pending' | 'all';

/**
 * API pages read for one console page at most. A filtered API page reads at most 2,000 screens
 * and may come back short (even empty) with a cursor; a few such pages fill the console's page
 * without letting a rare filter stall it.
 */
const MAX_API_PAGES = 5;

/**
 * One page of the queue: the one place the console reads /screens/pending and /screens. The
 * filters are the API's own query parameters, so the server filters and pages (cursor-bound,
 * O(page) however long the queue); the console only follows a short page's cursor until `size`
 * rows have come.
 */
export async function queuePage(
  source: QueueSource,
  filters: QueueFilters,
  cursor: string | null,
  size = 25,
): Promise<QueuePage> {
  const rows: QueueRow[] = [];
  let next = cursor;
  const query = queryOf(filters);
  for (let read = 0; read < MAX_API_PAGES; read++) {
    const params = {
      query: { ...query, limit: size - rows.length, ...(next ? { cursor: next } : {}) },
    };
    const page = ok(
      source === 'pending'
        ? await api.GET('/screens/pending', { params })
        : await api.GET('/screens', { params }),
    );
    rows.push(...page.screens);
    next = page.next_cursor;
    if (rows.length >= size || !next) break;
  }
  return { screens: rows, next_cursor: next };
}

/** The filters as query parameters; empty ones are left out. */
function queryOf(filters: QueueFilters) {
  return {
    ...(filters.risk_level ? { risk_level: filters.risk_level } : {}),
    ...(filters.check ? { check: filters.check } : {}),
    ...(filters.list ? { list: filters.list } : {}),
    ...(filters.origin ? { origin: filters.origin } : {}),
    ...(filters.awaiting_approval !== undefined
      ? { awaiting_approval: String(filters.awaiting_approval) }
      : {}),
    ...(filters.since ? { since: filters.since } : {}),
  };
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
