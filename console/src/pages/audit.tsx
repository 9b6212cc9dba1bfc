import { useState } from 'preact/hooks';
import { api, errorOf, keyHeaders, ok } from '../api.ts';
import { download } from '../csv.ts';
import { ErrorNote, Loading, Page, Pager, TableFrame, useAction, useCursors, useLoad, when } from '../ui.tsx';

/** The audit trail: browse newest first, a page at a time; export a period as CSV. */
export function AuditPage() {
  const paging = useCursors();
  const { cursor } = paging;
  const page = useLoad(
    async () =>
      ok(await api.GET('/audit', { params: { query: { limit: 50, ...(cursor ? { cursor } : {}) } } })),
    [cursor],
  );
  const exporting = useAction();
  const [from, setFrom] = useState(new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10));
  const [to, setTo] = useState(new Date().toISOString().slice(0, 10));
  return (
    <Page title="Audit trail">
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          void exporting.run(async () => {
            const query = new URLSearchParams({ from, to, format: 'csv' });
            const response = await fetch(`/audit/export?${query}`, { headers: keyHeaders() });
            if (!response.ok) throw errorOf(response, await response.json().catch(() => undefined));
            download(`audit-${from}-${to}.csv`, await response.text());
          });
        }}
      >
        <label for="audit-from">From</label>
        <input id="audit-from" type="date" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
        <label for="audit-to">To</label>
        <input id="audit-to" type="date" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        <button type="submit" disabled={exporting.busy}>
          {exporting.busy ? 'Exporting…' : 'Export CSV'}
        </button>
      </form>
      <ErrorNote error={exporting.error ?? page.error} />
      {page.loading ? <Loading what="the audit trail" /> : null}
      {page.data ? (
        <>
          <TableFrame label="Audit entries">
            <table>
              <caption class="visually-hidden">Audit entries, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">When</th>
                  <th scope="col">Action</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Target</th>
                </tr>
              </thead>
              <tbody>
                {page.data.entries.map((entry) => (
                  <tr key={entry.entry_id}>
                    <td>{entry.seq}</td>
                    <td>{when(entry.at)}</td>
                    <td>{entry.action}</td>
                    <td>
                      {entry.outcome}
                      {entry.outcome_detail ? <div class="muted">{entry.outcome_detail}</div> : null}
                    </td>
                    <td>
                      {entry.actor.user_id} ({entry.actor.role})
                    </td>
                    <td>{Object.values(entry.target ?? {}).join(', ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
          <Pager paging={paging} next={page.data.next_cursor} labels={['Newer', 'Older']} />
        </>
      ) : null}
    </Page>
  );
}
