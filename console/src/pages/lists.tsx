import { api, ok } from '../api.ts';
import { BarChart } from '../charts.tsx';
import { ErrorNote, Loading, Page, TableFrame, useLoad, when } from '../ui.tsx';

/** GET /dbstatus: every list's date and last sync, stale lists called out first. */
export function ListsPage() {
  const status = useLoad(async () => ok(await api.GET('/dbstatus')), []);
  const data = status.data;
  return (
    <Page title="Lists">
      <ErrorNote error={status.error} />
      {!data ? (
        status.loading && <Loading what="list status" />
      ) : (
        <>
          {data.stale ? (
            <div class="warning" role="alert">
              <strong>
                {data.stale_lists.length} stale {data.stale_lists.length === 1 ? 'list' : 'lists'}:
              </strong>{' '}
              {data.lists
                .filter((list) => list.stale)
                .map((list) => list.name)
                .join(', ')}
              . <span class="muted">{data.staleness_rule}</span>
            </div>
          ) : (
            <p class="ok" role="status">
              Every list is current. <span class="muted">{data.staleness_rule}</span>
            </p>
          )}
          <p>
            {data.totals.lists} lists, {data.totals.individuals.toLocaleString('en')} listed individuals; last
            sync {when(data.last_sync)}.
          </p>
          <BarChart
            title="Age of each list's data against its limit (days since the publisher's date)"
            bars={[...data.lists]
              .sort(
                (a, b) =>
                  (b.age_days ?? Infinity) / b.age_limit_days - (a.age_days ?? Infinity) / a.age_limit_days,
              )
              .map((list) => ({
                label: list.name,
                value: list.age_days ?? list.age_limit_days,
                limit: list.age_limit_days,
                text:
                  list.age_days === null
                    ? `date unknown (limit ${list.age_limit_days})`
                    : `${list.age_days} of ${list.age_limit_days} days`,
                tone: list.stale ? 'bad' : 'good',
              }))}
          />
          <TableFrame label="Watchlists">
            <table>
              <caption class="visually-hidden">Watchlists and their freshness</caption>
              <thead>
                <tr>
                  <th scope="col">List</th>
                  <th scope="col">Category</th>
                  <th scope="col">Individuals</th>
                  <th scope="col">Source date</th>
                  <th scope="col">Last successful sync</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {[...data.lists]
                  .sort((a, b) => Number(b.stale) - Number(a.stale))
                  .map((list) => (
                    <tr key={list.id} class={list.stale ? 'stale' : undefined}>
                      <th scope="row">
                        {list.name} <span class="muted">({list.id})</span>
                      </th>
                      <td>{list.category}</td>
                      <td>{list.individual_count.toLocaleString('en')}</td>
                      <td>
                        {list.source_date === null
                          ? 'unknown'
                          : `${list.source_date} (${list.age_days} days)`}
                      </td>
                      <td>{when(list.last_successful_sync)}</td>
                      <td>
                        {list.stale ? (
                          <strong class="stale-flag">Stale: {list.stale_reasons.join('; ')}</strong>
                        ) : (
                          'Current'
                        )}
                        {list.sync_error ? (
                          <div class="error-text">Last sync failed: {list.sync_error}</div>
                        ) : null}
                      </td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </TableFrame>
        </>
      )}
    </Page>
  );
}
