import { useState } from 'preact/hooks';
import { api, errorOf, keyHeaders, ok, RISK_LEVELS, type RiskLevel } from '../api.ts';
import { type Bar, BarChart } from '../charts.tsx';
import { download, readSubjectRows, subjectOf } from '../csv.ts';
import { href } from '../router.ts';
import { type BatchEvent, streamBatch } from '../stream.ts';
import {
  ErrorNote,
  Loading,
  Page,
  Pager,
  Risk,
  TableFrame,
  TableHead,
  useAction,
  useCursors,
  useLoad,
  when,
} from '../ui.tsx';

/** A batch as it streams: counts, each row's result or error, and the summary once complete. */
export interface Progress {
  batch_id: string;
  total: number;
  completed: number;
  results: Map<number, { screen_id: string; risk_level: string; client_id?: string }>;
  errors: { index: number; detail: string }[];
  summary: Extract<BatchEvent, { event: 'complete' }>['data'] | null;
}

export function progressOf(state: Progress | null, message: BatchEvent): Progress {
  const base: Progress = state ?? {
    batch_id: '',
    total: 0,
    completed: 0,
    results: new Map(),
    errors: [],
    summary: null,
  };
  switch (message.event) {
    case 'start':
      return { ...base, batch_id: message.data.batch_id, total: message.data.total };
    case 'progress': {
      const results = new Map(base.results);
      results.set(message.data.index, message.data);
      return { ...base, completed: message.data.completed, results };
    }
    case 'error':
      return {
        ...base,
        errors: [...base.errors, { index: message.data.index, detail: message.data.detail }],
      };
    case 'complete':
      return { ...base, completed: message.data.completed, summary: message.data };
  }
}

export function BatchProgress({ progress, label }: { progress: Progress; label: string }) {
  const done = progress.completed + progress.errors.length;
  return (
    <div class="batch-progress">
      <label>
        {label} progress
        <progress max={Math.max(progress.total, 1)} value={done} />
      </label>
      <p role="status" aria-live="polite">
        {progress.summary
          ? `Done: ${progress.summary.completed} of ${progress.summary.total} screened, ${progress.summary.failed} failed (CRITICAL ${progress.summary.risk_counts.CRITICAL}, HIGH ${progress.summary.risk_counts.HIGH}, MEDIUM ${progress.summary.risk_counts.MEDIUM}, LOW ${progress.summary.risk_counts.LOW}, CLEAR ${progress.summary.risk_counts.CLEAR}).`
          : `${done} of ${progress.total} rows processed…`}
      </p>
      {progress.errors.length > 0 ? (
        <div class="row-errors">
          <h3>Rows with errors</h3>
          <ul class="compact">
            {progress.errors.map((error) => (
              <li key={error.index}>
                Row {error.index + 1}: {error.detail}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

/** One row of GET /batch/{id}/results?format=ndjson (the document types the file as a string). */
export interface BatchResultRow {
  row: number;
  name: string;
  status: 'queued' | 'processing' | 'screened' | 'failed';
  screen_id: string | null;
  risk_level: RiskLevel | null;
  matches: number | null;
  best_match: { name: string; list_id: string; score: number; dobs: string[] } | null;
  error: string | null;
}

const RANK: Record<string, number> = Object.fromEntries(RISK_LEVELS.map((level, i) => [level, i]));

/** Riskiest first (CRITICAL … CLEAR), failed rows after, each in file order. */
export function byRisk(rows: BatchResultRow[]): BatchResultRow[] {
  const rank = (row: BatchResultRow) => (row.risk_level ? RANK[row.risk_level] : RISK_LEVELS.length);
  return [...rows].sort((a, b) => rank(a) - rank(b) || a.row - b.row);
}

/** A file of this origin read with the key (GET, not through openapi-fetch: it is not JSON). */
async function fetchText(path: string): Promise<string> {
  const response = await fetch(path, { headers: keyHeaders() });
  if (!response.ok) throw errorOf(response, await response.json().catch(() => null));
  return response.text();
}

async function batchRows(batchId: string): Promise<BatchResultRow[]> {
  const text = await fetchText(`/batch/${encodeURIComponent(batchId)}/results?format=ndjson`);
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as BatchResultRow);
}

/** The batch's results as the API exports them (best match columns, formula cells neutralised). */
export function BatchResults({ batchId, risk }: { batchId: string; risk: Record<RiskLevel, number> }) {
  const rows = useLoad(async () => byRisk(await batchRows(batchId)), [batchId]);
  const action = useAction();
  return (
    <section aria-labelledby="batch-results">
      <h2 id="batch-results">Results of {batchId}</h2>
      <BarChart
        title="Risk mix"
        bars={RISK_LEVELS.map((level) => ({
          label: level,
          value: risk[level],
          text: String(risk[level]),
          tone: `risk-${level.toLowerCase()}` as Bar['tone'],
        }))}
      />
      <button
        type="button"
        disabled={action.busy}
        onClick={() =>
          action.run(async () =>
            download(
              `${batchId}-results.csv`,
              await fetchText(`/batch/${encodeURIComponent(batchId)}/results?format=csv`),
            ),
          )
        }
      >
        Download results (CSV)
      </button>
      <ErrorNote error={action.error ?? rows.error} />
      {rows.loading && !rows.data ? <Loading what="results" /> : null}
      {rows.data ? (
        <TableFrame label="Batch results">
          <table>
            <caption class="visually-hidden">Batch results, riskiest first</caption>
            <TableHead columns={['Row', 'Name', 'Risk', 'Best match', 'List']} />
            <tbody>
              {rows.data.map((row) => (
                <tr key={row.row}>
                  <td>{row.row}</td>
                  <th scope="row">
                    {row.screen_id ? <a href={href(`/screens/${row.screen_id}`)}>{row.name}</a> : row.name}
                  </th>
                  <td>
                    {row.risk_level ? (
                      <Risk level={row.risk_level} />
                    ) : (
                      <span class="error-text">{row.error ?? row.status}</span>
                    )}
                  </td>
                  <td>
                    {row.best_match
                      ? `${row.best_match.name} (${Math.round(row.best_match.score * 100)}%)`
                      : '—'}
                    {row.matches && row.matches > 1 ? (
                      <span class="muted"> +{row.matches - 1} more</span>
                    ) : null}
                  </td>
                  <td>{row.best_match?.list_id ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      ) : null}
    </section>
  );
}

/** One earlier batch (/batch/{id}): its counts from GET /batch/{id}, then its results. */
function SavedBatch({ batchId }: { batchId: string }) {
  const batch = useLoad(
    async () => ok(await api.GET('/batch/{batch_id}', { params: { path: { batch_id: batchId } } })),
    [batchId],
  );
  return (
    <Page title={`Batch ${batchId}`}>
      <p>
        <a href={href('/batch')}>All batches</a>
      </p>
      <ErrorNote error={batch.error} />
      {batch.loading && !batch.data ? <Loading what="the batch" /> : null}
      {batch.data ? (
        <>
          <p>
            {batch.data.purpose === 'screen' ? 'Screening' : 'Client import'} of {batch.data.total} subjects,
            started {when(batch.data.created_at)} by {batch.data.created_by.user_id}: {batch.data.status},{' '}
            {batch.data.finished} finished, {batch.data.failed} failed.
          </p>
          <BatchResults batchId={batchId} risk={batch.data.risk_counts} />
        </>
      ) : null}
    </Page>
  );
}

/** The tenant's batches of the last week (GET /batch), newest first, each opening its results. */
function RecentBatches() {
  const paging = useCursors();
  const batches = useLoad(
    async () =>
      ok(await api.GET('/batch', { params: { query: { limit: 20, cursor: paging.cursor ?? undefined } } })),
    [paging.cursor],
  );
  return (
    <section aria-labelledby="recent-batches">
      <h2 id="recent-batches">Batches of the last week</h2>
      <ErrorNote error={batches.error} />
      {batches.data && batches.data.batches.length === 0 ? <p>No batches yet.</p> : null}
      {batches.data && batches.data.batches.length > 0 ? (
        <>
          <TableFrame label="Batches">
            <table>
              <caption class="visually-hidden">Batches, newest first</caption>
              <TableHead columns={['Batch', 'Started', 'Kind', 'Subjects', 'Status']} />
              <tbody>
                {batches.data.batches.map((batch) => (
                  <tr key={batch.batch_id}>
                    <th scope="row">
                      <a href={href(`/batch/${batch.batch_id}`)}>{batch.batch_id}</a>
                    </th>
                    <td>{when(batch.created_at)}</td>
                    <td>{batch.purpose === 'screen' ? 'screening' : 'client import'}</td>
                    <td>
                      {batch.total} ({batch.failed} failed)
                    </td>
                    <td>{batch.status}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
          <Pager paging={paging} next={batches.data.next_cursor} />
        </>
      ) : null}
    </section>
  );
}

/**
 * Screens a CSV of subjects through POST /batch/stream; the results table and CSV come from the
 * API; earlier batches are listed and reopened (/batch/{id}). A plan without batch screening is
 * refused by the API (403), so it is not offered.
 */
export function BatchPage({ included, batchId }: { included: boolean; batchId?: string }) {
  const action = useAction();
  const [progress, setProgress] = useState<Progress | null>(null);
  if (batchId) return <SavedBatch batchId={batchId} />;
  if (!included)
    return (
      <Page title="Batch screening">
        <p>
          Your plan does not include batch screening; screen one subject at a time, or ask for a plan with
          batch.
        </p>
      </Page>
    );
  return (
    <Page title="Batch screening">
      <p class="muted">
        Columns: name (required), dob, nationality, location, alias; separated by commas, semicolons or tabs.
        Up to 500 rows a file.
      </p>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          const file = (event.currentTarget.elements.namedItem('batch-csv') as HTMLInputElement).files?.[0];
          if (!file) return;
          void action.run(async () => {
            const rows = readSubjectRows(await file.text()).map(subjectOf);
            let state = progressOf(null, { event: 'start', data: { batch_id: '', total: rows.length } });
            setProgress(state);
            await streamBatch('/batch/stream', { subjects: rows }, (message) => {
              state = progressOf(state, message);
              setProgress(state);
            });
          });
        }}
      >
        <label for="batch-csv">CSV file</label>
        <input id="batch-csv" name="batch-csv" type="file" accept=".csv,.tsv,text/csv" required />
        <button type="submit" disabled={action.busy}>
          Screen
        </button>
      </form>
      <ErrorNote error={action.error} />
      {progress ? <BatchProgress progress={progress} label="Batch" /> : null}
      {progress?.summary && progress.batch_id ? (
        <BatchResults batchId={progress.batch_id} risk={progress.summary.risk_counts} />
      ) : null}
      <RecentBatches key={progress?.summary ? progress.batch_id : ''} />
    </Page>
  );
}
