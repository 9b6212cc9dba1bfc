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
/** `risk`: highest risk first, then the longest wait (the work queue's order). */
export type Sort = 'newest' | 'oldest' | 'risk';

/** Sorts the rows shown: by when each began to wait, or by risk then the longest wait. */
export function sortRows(rows: QueueRow[], sort: Sort): QueueRow[] {
  const copy = [...rows];
  const age = (a: QueueRow, b: QueueRow) => waitingSince(a).localeCompare(waitingSince(b));
  if (sort === 'oldest') copy.sort(age);
  else if (sort === 'risk') copy.sort((a, b) => RANK[a.risk_level] - RANK[b.risk_level] || age(a, b));
  else copy.sort((a, b) => age(b, a));
  return copy;
}

/**
 * What the work queue shows: `needs` (the default) every screen that needs a person: undecided
 * screens with a match, open monitoring alerts and decisions awaiting an admin's approval; `alerts`
 * the open alerts; `approvals` the decisions awaiting approval; `all` every undecided screen, CLEAR
 * ones too.
 */
export type View = 'needs' | 'alerts' | 'approvals' | 'all';

/** The risk levels that need a person's look on an undecided screen (a CLEAR one needs none). */
const LEVELS_WITH_MATCHES = 'CRITICAL,HIGH,MEDIUM,LOW';
/** API pages of 200 read per source at most: the work queue holds up to 1,000 rows of each. */
const WORK_PAGES = 5;
const WORK_PAGE_SIZE = 200;

export interface WorkQueue {
  rows: QueueRow[];
  /** False when a source had more rows than WORK_PAGES pages: the rest is not shown. */
  complete: boolean;
}

/** Every row of one source, following its cursor up to WORK_PAGES pages. */
async function readSource(
  read: (cursor: string | null) => Promise<{ rows: QueueRow[]; next: string | null }>,
): Promise<{ rows: QueueRow[]; complete: boolean }> {
  const rows: QueueRow[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < WORK_PAGES; page++) {
    const read_ = await read(cursor);
    rows.push(...read_.rows);
    cursor = read_.next;
    if (!cursor) return { rows, complete: true };
  }
  return { rows, complete: false };
}

/** Whether an alert row (GET /alerts takes no filters but `since`) passes the queue's filters. */
function passes(row: QueueRow, filters: QueueFilters): boolean {
  if (filters.risk_level && row.risk_level !== filters.risk_level) return false;
  if (filters.origin && filters.origin !== row.origin) return false;
  return !filters.since || row.screened_at >= filters.since;
}

/**
 * The work queue of a view: each source read whole (up to WORK_PAGES API pages of 200), merged
 * once per screen, ordered by risk then the longest wait. The API pages newest first and cannot
 * order by risk, so the console reads the working set and orders it; a queue longer than the
 * bound says so (`complete: false`) and the filters narrow it.
 */
export async function workQueue(view: View, filters: QueueFilters): Promise<WorkQueue> {
  const query = queryOf(filters);
  const page = (params: Record<string, unknown>, cursor: string | null) => ({
    params: { query: { ...query, ...params, limit: WORK_PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
  });
  const pending = (cursor: string | null) =>
    api
      .GET(
        '/screens/pending',
        page(view === 'all' || filters.risk_level ? {} : { risk_level: LEVELS_WITH_MATCHES }, cursor),
      )
      .then(ok)
      .then((answer) => ({ rows: answer.screens, next: answer.next_cursor }));
  const approvals = (cursor: string | null) =>
    api
      .GET('/screens', page({ awaiting_approval: 'true' }, cursor))
      .then(ok)
      .then((answer) => ({ rows: answer.screens, next: answer.next_cursor }));
  // An open alert may sit on a CLEAR screen (its matches were removed) or on a decision that
  // leaves it open: GET /alerts lists them all. It takes no filter but `since`; `check` and
  // `list` need the match data, so those filters leave the alerts to the pending screens.
  const alerts = (cursor: string | null) =>
    api
      .GET('/alerts', {
        params: {
          query: {
            limit: WORK_PAGE_SIZE,
            ...(filters.since ? { since: filters.since } : {}),
            ...(cursor ? { cursor } : {}),
          },
        },
      })
      .then(ok)
      .then((answer) => ({
        rows: answer.alerts.map(({ status: _status, raised_at: _raised, ...row }) => row),
        next: answer.next_cursor,
      }));
  // `list_change` is known from the screen item only (GET /alerts rows do not say what started a re-screen).
  const withAlerts =
    !filters.check && !filters.list && !filters.awaiting_approval && filters.origin !== 'list_change';
  const sources =
    view === 'all'
      ? [pending]
      : view === 'approvals'
        ? [approvals]
        : view === 'alerts'
          ? [alerts]
          : [pending, approvals, ...(withAlerts ? [alerts] : [])];
  const read = await Promise.all(sources.map(readSource));
  const byId = new Map<string, QueueRow>();
  read.forEach((source, i) => {
    const filtered = sources[i] === alerts;
    for (const row of source.rows)
      if (!byId.has(row.screen_id) && (!filtered || passes(row, filters))) byId.set(row.screen_id, row);
  });
  return {
    rows: sortRows([...byId.values()], 'risk'),
    complete: read.every((source) => source.complete),
  };
}

/** When a row began to wait for a person: its alert, its decision awaiting approval, or its screening. */
export function waitingSince(row: QueueRow): string {
  if (row.disposition?.awaiting_approval) return row.disposition.at;
  return row.alert_since ?? row.screened_at;
}

/** The tenant's targets: hours within which a screen of each level should be decided (null: none). */
export type QueueTargets = Record<RiskLevel, number | null>;

/** How long a row has waited and, against the tenant's target for its level, how long it has left or is overdue. */
export function ageOf(row: QueueRow, targets: QueueTargets | null, now = Date.now()) {
  const waitedMs = now - Date.parse(waitingSince(row));
  const hours = targets?.[row.risk_level] ?? null;
  const leftMs = hours === null ? null : hours * 3_600_000 - waitedMs;
  return { waited: duration(waitedMs), target: hours, overdue: leftMs !== null && leftMs < 0, left: leftMs };
}

/** A duration as a person reads it: 3 d 4 h, 5 h 12 min, 7 min. */
export function duration(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes % 60} min`;
  return `${minutes} min`;
}

/** Repeat screens of one subject (same name and date of birth, any origin), shown as one row. */
export interface QueueGroup {
  key: string;
  /** The group's screens in queue order: the first is the one the row shows. */
  rows: QueueRow[];
}

/** Groups the rows by subject, keeping the order of each group's first row. */
export function groupBySubject(rows: QueueRow[]): QueueGroup[] {
  const groups = new Map<string, QueueGroup>();
  for (const row of rows) {
    const key = `${row.subject.name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()}|${row.subject.dob ?? ''}`;
    const group = groups.get(key);
    if (group) group.rows.push(row);
    else groups.set(key, { key, rows: [row] });
  }
  return [...groups.values()];
}

/** The view and filters of the queue last shown, so "Decide and next" walks the same queue. */
let lastQueue: { view: View; filters: QueueFilters } = { view: 'needs', filters: {} };

export function rememberQueue(view: View, filters: QueueFilters): void {
  lastQueue = { view, filters };
}

/**
 * The next screen of the queue last shown that this person can act on, after `screenId` (which
 * the queue may still hold a moment after its decision): an undecided screen, or, for an admin,
 * a decision someone else made that awaits approval. Null when none is left.
 */
export async function nextInQueue(
  screenId: string,
  me: { user_id: string; admin: boolean },
): Promise<string | null> {
  const { rows } = await workQueue(lastQueue.view, lastQueue.filters);
  const actionable = (row: QueueRow) =>
    !row.disposition ||
    (row.disposition.awaiting_approval && me.admin && row.disposition.author.user_id !== me.user_id);
  const next = groupBySubject(rows)
    .flatMap((group) => group.rows)
    .find((row) => row.screen_id !== screenId && actionable(row));
  return next?.screen_id ?? null;
}
