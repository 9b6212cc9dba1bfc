import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, ok, RISK_LEVELS, type RiskLevel } from '../api.ts';
import { bulkDispose, DECISIONS, type Decision, type Outcome } from '../bulk.ts';
import {
  ageOf,
  type Check,
  groupBySubject,
  type Origin,
  type QueueFilters,
  type QueueGroup,
  type QueueTargets,
  rememberQueue,
  type Sort,
  sortRows,
  type View,
  workQueue,
} from '../queue.ts';
import { href, navigate, useRoute } from '../router.ts';
import { ErrorNote, Loading, Page, Risk, TableFrame, useAction, useLoad, when } from '../ui.tsx';

const ORIGINS: { value: Origin; label: string }[] = [
  { value: 'api', label: 'Direct (API)' },
  { value: 'batch', label: 'Batch' },
  { value: 'client_registration', label: 'Client registration' },
  { value: 'rescreen', label: 'Rescreen' },
  { value: 'list_change', label: 'List change' },
];
const VIEWS: { value: View; label: string }[] = [
  { value: 'needs', label: 'Needs a decision' },
  { value: 'alerts', label: 'Alerts only' },
  { value: 'approvals', label: 'Awaiting approval' },
  { value: 'all', label: 'All undecided' },
];
/** Rows (subjects) per console page. */
const PAGE_SIZE = 25;

/** Filters live in the page's query string, so a filtered queue can be bookmarked and shared. */
function filtersOf(query: URLSearchParams): QueueFilters & { sort: Sort; view?: View } {
  const get = (name: string) => query.get(name) || undefined;
  const awaiting = query.get('awaiting_approval');
  return {
    risk_level: get('risk_level') as RiskLevel | undefined,
    check: get('check') as Check | undefined,
    list: get('list'),
    origin: get('origin') as Origin | undefined,
    since: get('since'),
    awaiting_approval: awaiting === 'true' ? true : awaiting === 'false' ? false : undefined,
    sort: (get('sort') as Sort | undefined) ?? 'risk',
    view: get('view') as View | undefined,
  };
}

/** The statuses a row can be in, in words. */
function statusOf(group: QueueGroup): string {
  const row = group.rows[0];
  if (row.disposition)
    return `${row.disposition.disposition}${row.disposition.awaiting_approval ? ', awaiting approval' : ''} by ${row.disposition.author.user_id}`;
  return row.alert_since ? 'monitoring alert' : 'undecided';
}

/**
 * The work queue: by default every screen that needs a person (undecided with a match, open
 * alerts, decisions awaiting approval), highest risk first and then the longest wait, repeat
 * screens of one subject on one row, each with its best match and its age against the tenant's
 * target. Rows can be selected and decided together. The approval page (admins) is its
 * `approvals` view.
 */
export function QueuePage({ source }: { source: 'pending' | 'approvals' }) {
  const { query, path } = useRoute();
  const { sort, view: chosen, ...filters } = filtersOf(query);
  const view: View = source === 'approvals' ? 'approvals' : (chosen ?? 'needs');
  const [pageIndex, setPageIndex] = useState(0);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [outcomes, setOutcomes] = useState<Outcome[] | null>(null);
  const key = `${source}|${query.toString()}`;
  const loaded = useLoad(async () => {
    rememberQueue(view, filters);
    const [queue, policy] = await Promise.all([
      workQueue(view, filters),
      api
        .GET('/settings/policy')
        .then(ok)
        .then((answer) => answer.policy.queue_sla_hours as QueueTargets)
        .catch(() => null),
    ]);
    return { ...queue, targets: policy };
  }, [key]);

  const apply = (form: HTMLFormElement) => {
    const data = new FormData(form);
    const next = new URLSearchParams();
    for (const [name, value] of data) if (value) next.set(name, String(value));
    setPageIndex(0);
    setSelected(new Set());
    navigate(`${path}?${next}`);
  };
  const groups = loaded.data ? groupBySubject(sortRows(loaded.data.rows, sort)) : [];
  const pages = Math.max(1, Math.ceil(groups.length / PAGE_SIZE));
  const index = Math.min(pageIndex, pages - 1);
  const shown = groups.slice(index * PAGE_SIZE, (index + 1) * PAGE_SIZE);
  const idsOf = (group: QueueGroup) => group.rows.map((row) => row.screen_id);
  const shownIds = shown.flatMap(idsOf);
  const allShown = shownIds.length > 0 && shownIds.every((id) => selected.has(id));
  const toggle = (ids: string[], on: boolean) => {
    const next = new Set(selected);
    for (const id of ids) on ? next.add(id) : next.delete(id);
    setSelected(next);
  };
  const screens = loaded.data?.rows.length ?? 0;
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
        {source === 'approvals' ? null : (
          <label>
            Show
            <select name="view" value={view}>
              {VIEWS.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
        )}
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
            <option value="risk">Highest risk, then longest wait</option>
            <option value="oldest">Longest wait first</option>
            <option value="newest">Newest first</option>
          </select>
        </label>
        <button type="submit">Apply</button>
      </form>
      <ErrorNote error={loaded.error} />
      {loaded.loading ? <Loading what="the queue" /> : null}
      {loaded.data && !loaded.loading ? (
        <>
          <p role="status" class="muted">
            {groups.length === 0
              ? 'Nothing here.'
              : `${screens} screens waiting, ${groups.length} subjects; ${shownIds.length} screens on this page.`}
            {loaded.data.complete ? '' : ' More wait than the console reads at once: filter to see the rest.'}
          </p>
          {source === 'approvals' ? null : (
            <BulkDecision
              ids={[...selected]}
              selectAll={
                <label class="check">
                  <input
                    type="checkbox"
                    checked={allShown}
                    onChange={(event) => toggle(shownIds, event.currentTarget.checked)}
                  />{' '}
                  Select all on this page
                </label>
              }
              onDone={(results) => {
                setOutcomes(results);
                setSelected(new Set());
                loaded.reload();
              }}
            />
          )}
          {outcomes ? <Outcomes outcomes={outcomes} /> : null}
          <TableFrame label="Screens">
            <table class="cards">
              <caption class="visually-hidden">Screens</caption>
              <thead>
                <tr>
                  {source === 'approvals' ? null : (
                    <th scope="col">
                      <span class="visually-hidden">Selected</span>
                    </th>
                  )}
                  <th scope="col">Screen</th>
                  <th scope="col">Subject</th>
                  <th scope="col">Risk</th>
                  <th scope="col">Best match</th>
                  <th scope="col">Waiting</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((group) => (
                  <QueueRowView
                    key={group.key}
                    group={group}
                    targets={loaded.data?.targets ?? null}
                    selectable={source !== 'approvals'}
                    selected={idsOf(group).every((id) => selected.has(id))}
                    onSelect={(on) => toggle(idsOf(group), on)}
                  />
                ))}
              </tbody>
            </table>
          </TableFrame>
          <div class="pager">
            <button type="button" disabled={index === 0} onClick={() => setPageIndex(index - 1)}>
              Previous page
            </button>
            <button type="button" disabled={index >= pages - 1} onClick={() => setPageIndex(index + 1)}>
              Next page
            </button>
          </div>
        </>
      ) : null}
    </Page>
  );
}

function QueueRowView({
  group,
  targets,
  selectable,
  selected,
  onSelect,
}: {
  group: QueueGroup;
  targets: QueueTargets | null;
  selectable: boolean;
  selected: boolean;
  onSelect: (on: boolean) => void;
}) {
  const [row, ...repeats] = group.rows;
  const age = ageOf(row, targets);
  const best = row.best_match;
  return (
    <tr class={age.overdue ? 'overdue' : undefined}>
      {selectable ? (
        <td>
          <input
            type="checkbox"
            aria-label={`Select ${row.subject.name}${repeats.length ? ` (${group.rows.length} screens)` : ''}`}
            checked={selected}
            onChange={(event) => onSelect(event.currentTarget.checked)}
          />
        </td>
      ) : null}
      <td data-label="Screen">
        <a href={href(`/screens/${row.screen_id}`)}>{row.screen_id}</a>
        {repeats.length ? (
          <div class="muted">
            also{' '}
            {repeats.map((repeat, i) => (
              <span key={repeat.screen_id}>
                {i > 0 ? ', ' : ''}
                <a href={href(`/screens/${repeat.screen_id}`)}>{repeat.screen_id}</a> ({repeat.origin})
              </span>
            ))}
          </div>
        ) : null}
      </td>
      <td data-label="Subject">
        {row.subject.name}
        {row.subject.dob ? <span class="muted"> · {row.subject.dob}</span> : null}
      </td>
      <td data-label="Risk">
        <Risk level={row.risk_level} />
      </td>
      <td data-label="Best match">
        {best ? (
          <>
            {best.name} <span class="muted">({best.list_id})</span> {best.score.toFixed(2)}
          </>
        ) : (
          <span class="muted">none</span>
        )}
      </td>
      <td data-label="Waiting">
        {age.waited}
        {age.target === null ? null : age.overdue ? (
          <strong class="overdue-flag"> overdue (target {age.target} h)</strong>
        ) : (
          <span class="muted"> (target {age.target} h)</span>
        )}
      </td>
      <td data-label="Status">
        {statusOf(group)}
        <div class="muted">{when(row.alert_since ?? row.screened_at)}</div>
      </td>
    </tr>
  );
}

/** One decision and one note for every selected screen; each screen gets its own decision and audit entry. */
function BulkDecision({
  ids,
  selectAll,
  onDone,
}: {
  ids: string[];
  selectAll: ComponentChildren;
  onDone: (outcomes: Outcome[]) => void;
}) {
  const action = useAction();
  const [decision, setDecision] = useState<Decision>('false_positive');
  const [note, setNote] = useState('');
  const [done, setDone] = useState(0);
  return (
    <form
      class="bulk"
      aria-label="Decide the selected screens"
      onSubmit={(event) => {
        event.preventDefault();
        void action.run(async () => {
          setDone(0);
          const outcomes = await bulkDispose(ids, { disposition: decision, note: note || null }, () =>
            setDone((n) => n + 1),
          );
          setNote('');
          onDone(outcomes);
        });
      }}
    >
      {selectAll}
      <label>
        Decision for the selected
        <select value={decision} onChange={(e) => setDecision(e.currentTarget.value as Decision)}>
          {DECISIONS.map((d) => (
            <option key={d.value} value={d.value}>
              {d.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Note for each
        <input value={note} maxLength={4000} onInput={(e) => setNote(e.currentTarget.value)} size={30} />
      </label>
      <button type="submit" disabled={ids.length === 0 || action.busy}>
        Record for {ids.length} selected
      </button>
      {action.busy ? (
        <progress max={ids.length} value={done} aria-label="Decisions recorded">
          {done}
        </progress>
      ) : null}
      <ErrorNote error={action.error} />
    </form>
  );
}

function Outcomes({ outcomes }: { outcomes: Outcome[] }) {
  const failed = outcomes.filter((outcome) => outcome.error);
  const awaiting = outcomes.filter((outcome) => outcome.awaiting_approval).length;
  return (
    <div class={failed.length ? 'warning' : 'ok'} role="status">
      <p>
        Recorded {outcomes.length - failed.length} of {outcomes.length} decisions
        {failed.length ? `; ${failed.length} failed:` : '.'}
        {awaiting
          ? ` ${awaiting} await an admin's approval (the tenant's policy asks for a second person).`
          : ''}
      </p>
      {failed.length ? (
        <ul class="compact row-errors">
          {failed.map((outcome) => (
            <li key={outcome.screen_id}>
              <a href={href(`/screens/${outcome.screen_id}`)}>{outcome.screen_id}</a>: {outcome.error}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
