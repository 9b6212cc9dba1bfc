import { useState } from 'preact/hooks';
import { download, readSubjectRows, subjectOf, toCsv } from '../csv.ts';
import { href } from '../router.ts';
import { type BatchEvent, streamBatch } from '../stream.ts';
import { ErrorNote, Page, useAction } from '../ui.tsx';

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

/** Screens a CSV of subjects through POST /batch/stream; the results download as CSV. */
export function BatchPage() {
  const action = useAction();
  const [progress, setProgress] = useState<Progress | null>(null);
  const [subjects, setSubjects] = useState<ReturnType<typeof subjectOf>[]>([]);
  return (
    <Page title="Batch screening">
      <p class="muted">Columns: name (required), dob, nationality, location, alias. Up to 500 rows a file.</p>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          const file = (event.currentTarget.elements.namedItem('batch-csv') as HTMLInputElement).files?.[0];
          if (!file) return;
          void action.run(async () => {
            const rows = readSubjectRows(await file.text()).map(subjectOf);
            setSubjects(rows);
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
        <input id="batch-csv" name="batch-csv" type="file" accept=".csv,text/csv" required />
        <button type="submit" disabled={action.busy}>
          Screen
        </button>
      </form>
      <ErrorNote error={action.error} />
      {progress ? <BatchProgress progress={progress} label="Batch" /> : null}
      {progress?.summary ? (
        <>
          <button
            type="button"
            onClick={() =>
              download(
                `${progress.batch_id || 'batch'}-results.csv`,
                toCsv(
                  ['row', 'name', 'screen_id', 'risk_level', 'error'],
                  subjects.map((subject, index) => {
                    const result = progress.results.get(index);
                    const error = progress.errors.find((e) => e.index === index);
                    return [index + 1, subject.name, result?.screen_id, result?.risk_level, error?.detail];
                  }),
                ),
              )
            }
          >
            Download results (CSV)
          </button>
          <ul class="compact">
            {[...progress.results.values()]
              .filter((result) => result.risk_level !== 'CLEAR')
              .map((result) => (
                <li key={result.screen_id}>
                  <a href={href(`/screens/${result.screen_id}`)}>{result.screen_id}</a> {result.risk_level}
                </li>
              ))}
          </ul>
        </>
      ) : null}
    </Page>
  );
}
