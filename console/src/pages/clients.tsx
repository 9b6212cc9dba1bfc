import { useState } from 'preact/hooks';
import { type ApiError, api, ok, RISK_LEVELS } from '../api.ts';
import { readSubjectRows, subjectOf } from '../csv.ts';
import { href, navigate } from '../router.ts';
import { type BatchEvent, type StreamBody, streamBatch } from '../stream.ts';
import {
  confirmed,
  ErrorNote,
  Loading,
  Page,
  Pager,
  Risk,
  TableFrame,
  useAction,
  useCursors,
  useLoad,
  when,
} from '../ui.tsx';
import { BatchProgress, type Progress, progressOf } from './batch.tsx';

/** Clients: register one, import a CSV, list and search, trigger a rescreen run and watch it. */
export function ClientsPage() {
  const [search, setSearch] = useState<{ reference?: string; risk_level?: string }>({});
  const paging = useCursors();
  const { cursor } = paging;
  const list = useLoad(
    async () =>
      ok(
        await api.GET('/clients', {
          params: { query: { limit: 25, ...(cursor ? { cursor } : {}), ...search } },
        }),
      ),
    [cursor, search.reference, search.risk_level],
  );
  return (
    <Page title="Clients">
      <Register onRegistered={(id) => navigate(`/clients/${id}`)} />
      <Import onDone={list.reload} />
      <Rescreen />
      <section aria-labelledby="client-list">
        <h2 id="client-list">Monitored clients</h2>
        <form
          class="filters"
          aria-label="Search clients"
          onSubmit={(event) => {
            event.preventDefault();
            const data = new FormData(event.currentTarget);
            const reference = String(data.get('reference') ?? '').trim();
            const risk = String(data.get('risk_level') ?? '');
            paging.reset();
            setSearch({ ...(reference ? { reference } : {}), ...(risk ? { risk_level: risk } : {}) });
          }}
        >
          <label>
            Reference
            <input name="reference" />
          </label>
          <label>
            Risk level
            <select name="risk_level">
              <option value="">Any</option>
              {RISK_LEVELS.map((level) => (
                <option key={level} value={level}>
                  {level}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">Search</button>
        </form>
        <ErrorNote error={list.error} />
        {list.loading ? <Loading what="clients" /> : null}
        {list.data ? (
          <>
            <TableFrame label="Clients">
              <table>
                <caption class="visually-hidden">Clients, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Client</th>
                    <th scope="col">Reference</th>
                    <th scope="col">Name</th>
                    <th scope="col">Risk</th>
                    <th scope="col">Status</th>
                    <th scope="col">Last screened</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.clients.map((client) => (
                    <tr key={client.client_id}>
                      <td>
                        <a href={href(`/clients/${client.client_id}`)}>{client.client_id}</a>
                      </td>
                      <td>{client.reference ?? '—'}</td>
                      <td>{client.subject.name}</td>
                      <td>
                        <Risk level={client.risk_level} />
                      </td>
                      <td>{client.status}</td>
                      <td>{when(client.last_screened_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableFrame>
            <Pager paging={paging} next={list.data.next_cursor} />
          </>
        ) : null}
      </section>
    </Page>
  );
}

function Register({ onRegistered }: { onRegistered: (clientId: string) => void }) {
  const action = useAction();
  return (
    <section aria-labelledby="register">
      <h2 id="register">Register a client</h2>
      <form
        class="grid-form"
        onSubmit={(event) => {
          event.preventDefault();
          const data = new FormData(event.currentTarget);
          const field = (name: string) => String(data.get(name) ?? '').trim() || null;
          void action.run(async () => {
            const client = ok(
              await api.POST('/clients', {
                body: {
                  name: field('name') ?? '',
                  dob: field('dob'),
                  nationality: field('nationality'),
                  reference: field('reference'),
                },
              }),
            );
            onRegistered(client.client_id);
          });
        }}
      >
        <label>
          Name <input name="name" required />
        </label>
        <label>
          Date of birth <input name="dob" placeholder="YYYY-MM-DD" />
        </label>
        <label>
          Nationality <input name="nationality" />
        </label>
        <label>
          Reference <input name="reference" />
        </label>
        <button type="submit" disabled={action.busy}>
          Register and screen
        </button>
      </form>
      <ErrorNote error={action.error} />
    </section>
  );
}

/** CSV (name, dob, nationality, location, alias, reference) through POST /batch/clients/stream. */
function Import({ onDone }: { onDone: () => void }) {
  const action = useAction();
  const [progress, setProgress] = useState<Progress | null>(null);
  return (
    <section aria-labelledby="import">
      <h2 id="import">Import clients from CSV</h2>
      <p class="muted">
        Columns: name (required), dob, nationality, location, alias, reference. Up to 500 rows a file.
      </p>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          const file = (event.currentTarget.elements.namedItem('clients-csv') as HTMLInputElement).files?.[0];
          if (!file) return;
          void action.run(async () => {
            const rows = readSubjectRows(await file.text());
            const subjects = rows.map((row) => ({ ...subjectOf(row), reference: row.reference || null }));
            let state = progressOf(null, { event: 'start', data: { batch_id: '', total: subjects.length } });
            setProgress(state);
            await importRows(subjects, (message) => {
              state = progressOf(state, message);
              setProgress(state);
            });
            onDone();
          });
        }}
      >
        <label for="clients-csv">CSV file</label>
        <input id="clients-csv" name="clients-csv" type="file" accept=".csv,text/csv" required />
        <button type="submit" disabled={action.busy}>
          Import
        </button>
      </form>
      <ErrorNote error={action.error} />
      {progress ? <BatchProgress progress={progress} label="Import" /> : null}
    </section>
  );
}

type ClientRow = StreamBody<'/batch/clients/stream'>['subjects'][number];

/**
 * Streams the rows through /batch/clients/stream. The API checks the whole file first and names
 * the rows it refuses (`subjects[7].name: …`, five at a time); those rows are reported as row
 * errors, with the API's words, and the others are sent again without them. Events come back
 * numbered by the file's rows.
 */
async function importRows(rows: ClientRow[], onEvent: (message: BatchEvent) => void): Promise<void> {
  let remaining = rows.map((subject, row) => ({ subject, row }));
  for (;;) {
    try {
      await streamBatch('/batch/clients/stream', { subjects: remaining.map((r) => r.subject) }, (message) => {
        if (message.event === 'start') onEvent({ ...message, data: { ...message.data, total: rows.length } });
        else if (message.event === 'progress' || message.event === 'error')
          onEvent({
            ...message,
            data: { ...message.data, index: remaining[message.data.index].row },
          } as BatchEvent);
        else {
          const refusedRows = rows.length - remaining.length;
          onEvent({
            ...message,
            data: { ...message.data, total: rows.length, failed: message.data.failed + refusedRows },
          });
        }
      });
      return;
    } catch (error) {
      const refused = new Map<number, string>();
      if ((error as ApiError).status === 400)
        for (const [, index, problem] of (error as Error).message.matchAll(/subjects\[(\d+)\]\.?([^;]*)/g))
          refused.set(Number(index), problem.trim());
      if (refused.size === 0 || refused.size === remaining.length) throw error;
      for (const [index, problem] of refused)
        onEvent({
          event: 'error',
          data: { batch_id: '', index: remaining[index].row, detail: `not imported: ${problem}` },
        });
      remaining = remaining.filter((_, index) => !refused.has(index));
    }
  }
}

/** Starts the tenant's rescreen run and polls it until it finishes. */
function Rescreen() {
  const action = useAction();
  const [run, setRun] = useState<{ run_id: string; status: string; due: number; finished?: number } | null>(
    null,
  );
  return (
    <section aria-labelledby="rescreen">
      <h2 id="rescreen">Rescreen run</h2>
      <button
        type="button"
        disabled={action.busy}
        onClick={() =>
          action.run(async () => {
            const started = ok(await api.POST('/clients/rescreen/auto/trigger'));
            setRun(started);
            for (let status = started.status; status === 'running'; ) {
              await new Promise((settle) => setTimeout(settle, 1000));
              const now = ok(
                await api.GET('/clients/rescreen/runs/{run_id}', {
                  params: { path: { run_id: started.run_id } },
                }),
              );
              setRun(now);
              status = now.status;
            }
          })
        }
      >
        Rescreen clients that are due
      </button>
      <ErrorNote error={action.error} />
      {run ? (
        <div role="status" aria-live="polite">
          Run {run.run_id}: {run.status}, {run.finished ?? 0} of {run.due} due clients rescreened.
          <progress max={Math.max(run.due, 1)} value={run.finished ?? 0} aria-label="Rescreen run progress" />
        </div>
      ) : null}
    </section>
  );
}

/** A client: profile, open alert, its screens; stop monitoring. */
export function ClientPage({ clientId }: { clientId: string }) {
  const client = useLoad(
    async () => ok(await api.GET('/clients/{client_id}', { params: { path: { client_id: clientId } } })),
    [clientId],
  );
  const action = useAction();
  const data = client.data;
  return (
    <Page title={`Client ${clientId}`}>
      <ErrorNote error={client.error ?? action.error} />
      {client.loading && !data ? <Loading what="the client" /> : null}
      {data ? (
        <>
          <dl class="facts">
            <dt>Name</dt>
            <dd>{data.subject.name}</dd>
            <dt>Reference</dt>
            <dd>{data.reference ?? '—'}</dd>
            <dt>Risk</dt>
            <dd>
              <Risk level={data.risk_level} />
            </dd>
            <dt>Monitoring</dt>
            <dd>
              {data.status === 'active'
                ? `active, every ${data.rescreen_interval_days} days, next ${when(data.next_due_at)}`
                : `stopped ${when(data.stopped_at)}`}
            </dd>
            <dt>Open alert</dt>
            <dd>
              {data.open_alert?.raised_by_screen_id ? (
                <a href={href(`/screens/${data.open_alert.raised_by_screen_id}`)}>
                  {data.open_alert.raised_by_screen_id}
                </a>
              ) : (
                'none'
              )}
            </dd>
          </dl>
          {data.status === 'active' ? (
            <button
              type="button"
              class="danger"
              disabled={action.busy}
              onClick={() =>
                confirmed(
                  `Stop monitoring ${data.subject.name}? Scheduled rescreens end; history is kept.`,
                ) &&
                action.run(async () => {
                  ok(await api.DELETE('/clients/{client_id}', { params: { path: { client_id: clientId } } }));
                  client.reload();
                })
              }
            >
              Stop monitoring
            </button>
          ) : null}
          <h2>Screens</h2>
          <ul class="compact">
            {data.screens.map((screen) => (
              <li key={screen.screen_id}>
                <a href={href(`/screens/${screen.screen_id}`)}>{screen.screen_id}</a>{' '}
                <Risk level={screen.risk_level} /> {when(screen.screened_at)}
                {screen.disposition ? `, ${screen.disposition.disposition}` : ', undecided'}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </Page>
  );
}
