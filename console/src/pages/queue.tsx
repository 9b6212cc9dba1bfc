import { RISK_LEVELS, type RiskLevel } from '../api.ts';
import { type Check, type Origin, type QueueFilters, queuePage, type Sort, sortRows } from '../queue.ts';
import { href, navigate, useRoute } from '../router.ts';
import { ErrorNote, Loading, Page, Pager, Risk, TableFrame, useCursors, useLoad, when } from '../ui.tsx';

const ORIGINS: { value: Origin; label: string }[] = [
  { value: 'api', label: 'Direct (API)' },
  { value: 'batch', label: 'Batch' },
  { value: 'client_registration', label: 'Client registration' },
  { value: 'rescreen', label: 'Rescreen' },
  { value: 'list_change', label: 'List change' },
];

/** Filters live in the page's query string, so a filtered queue can be bookmarked and shared. */
function filtersOf(query: URLSearchParams): QueueFilters & { sort: Sort } {
  const get = (name: string) => query.get(name) || undefined;
  const awaiting = query.get('awaiting_approval');
  return {
    risk_level: get('risk_level') as RiskLevel | undefined,
    check: get('check') as Check | undefined,
    list: get('list'),
    origin: get('origin') as Origin | undefined,
    since: get('since'),
    awaiting_approval: awaiting === 'true' ? true : awaiting === 'false' ? false : undefined,
    sort: (get('sort') as Sort | undefined) ?? 'newest',
  };
}

/**
 * The alert queue (undecided screens) or, for admins, the approval queue (decisions awaiting
 * sign-off). Pages go forward by the API's cursor and back through the cursors already seen.
 */
export function QueuePage({ source }: { source: 'pending' | 'approvals' }) {
  const { query, path } = useRoute();
  const { sort, ...filters } = filtersOf(query);
  const effective: QueueFilters = source === 'approvals' ? { ...filters, awaiting_approval: true } : filters;
  const paging = useCursors();
  const { cursor } = paging;
  const key = `${source}|${query.toString()}|${cursor}`;
  const page = useLoad(() => queuePage(source === 'approvals' ? 'all' : 'pending', effective, cursor), [key]);

  const apply = (form: HTMLFormElement) => {
    const data = new FormData(form);
    const next = new URLSearchParams();
    for (const [name, value] of data) if (value) next.set(name, String(value));
    paging.reset();
    navigate(`${path}?${next}`);
  };
  const rows = page.data ? sortRows(page.data.screens, sort) : [];
  return (
    <Page title={source === 'approvals' ? 'Approval queue' : 'Alert queue'}>
      {source === 'approvals' ? (
        <p>Decisions recorded with "request approval". You cannot approve a decision you made yourself.</p>
      ) : null}
      <form
        class="filters"
        aria-label="Filter the queue"
        onSubmit={(event) => {
          event.preventDefault();
          apply(event.currentTarget);
        }}
      >
        <label>
          Risk level
          <select name="risk_level" value={filters.risk_level ?? ''}>
            <option value="">Any</option>
            {RISK_LEVELS.map((level) => (
              <option key={level} value={level}>
                {level}
              </option>
            ))}
          </select>
        </label>
        <label>
          Check
          <select name="check" value={filters.check ?? ''}>
            <option value="">Any</option>
            <option value="sanctions">Sanctions</option>
            <option value="pep">PEP</option>
            <option value="criminal">Criminal</option>
          </select>
        </label>
        <label>
          List id
          <input name="list" value={filters.list ?? ''} placeholder="e.g. un_sc" size={10} />
        </label>
        <label>
          Origin
          <select name="origin" value={filters.origin ?? ''}>
            <option value="">Any</option>
            {ORIGINS.map((origin) => (
              <option key={origin.value} value={origin.value}>
                {origin.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Since
          <input name="since" type="date" value={filters.since ?? ''} />
        </label>
        <label>
          Sort
          <select name="sort" value={sort}>
            <option value="newest">Newest first</option>
            <option value="oldest">Oldest first</option>
            <option value="risk">Highest risk first</option>
          </select>
        </label>
        <button type="submit">Apply</button>
      </form>
      <ErrorNote error={page.error} />
      {page.loading ? <Loading what="the queue" /> : null}
      {page.data && !page.loading ? (
        <>
          <p role="status" class="muted">
            {rows.length === 0 ? 'Nothing here.' : `${rows.length} screens on this page.`}
          </p>
          <TableFrame label="Screens">
            <table>
              <caption class="visually-hidden">Screens</caption>
              <thead>
                <tr>
                  <th scope="col">Screen</th>
                  <th scope="col">Subject</th>
                  <th scope="col">Risk</th>
                  <th scope="col">Checks</th>
                  <th scope="col">Screened</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.screen_id}>
                    <td>
                      <a href={href(`/screens/${row.screen_id}`)}>{row.screen_id}</a>
                    </td>
                    <td>{row.subject.name}</td>
                    <td>
                      <Risk level={row.risk_level} />
                    </td>
                    <td>{row.types.join(', ')}</td>
                    <td>{when(row.alert_since ?? row.screened_at)}</td>
                    <td>
                      {row.disposition
                        ? `${row.disposition.disposition}${row.disposition.awaiting_approval ? ', awaiting approval' : ''} by ${row.disposition.author.user_id}`
                        : row.alert_since
                          ? 'monitoring alert'
                          : 'undecided'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
          <Pager paging={paging} next={page.data.next_cursor} />
        </>
      ) : null}
    </Page>
  );
}
