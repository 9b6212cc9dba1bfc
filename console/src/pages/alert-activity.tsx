import { api, ok } from '../api.ts';
import { DailyChart, type DayCounts, lastDays } from '../charts.tsx';
import { ErrorNote, Loading, TableFrame, useLoad } from '../ui.tsx';

const DAYS = 14;
/** At most this many pages of GET /alerts (200 rows each) are read for the chart. */
const MAX_PAGES = 10;

/**
 * Monitoring alerts raised and decided per day over the last two weeks, from GET /alerts (open and
 * closed, raised since the first day): raised on `raised_at`'s day, decided on the day of the
 * settled decision that closed it.
 */
export function AlertActivity() {
  const activity = useLoad(async () => {
    const days = lastDays(DAYS);
    const counts = new Map<string, DayCounts>(days.map((day) => [day, { day, raised: 0, decided: 0 }]));
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = ok(
        await api.GET('/alerts', {
          params: { query: { status: 'open,closed', since: days[0], limit: 200, cursor } },
        }),
      );
      for (const alert of page.alerts) {
        const raised = counts.get(alert.raised_at.slice(0, 10));
        if (raised) raised.raised++;
        const decided =
          alert.status === 'closed' ? counts.get(alert.disposition?.at.slice(0, 10) ?? '') : null;
        if (decided) decided.decided++;
      }
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor && pages < MAX_PAGES);
    return { days: [...counts.values()], complete: !cursor };
  }, []);
  const data = activity.data;
  return (
    <section aria-labelledby="alert-activity">
      <h2 id="alert-activity">Monitoring alerts, last {DAYS} days</h2>
      <ErrorNote error={activity.error} />
      {!data ? (
        activity.loading && <Loading what="alert activity" />
      ) : (
        <>
          <DailyChart title="Alerts raised and decided per day" days={data.days} />
          {data.complete ? null : <p class="muted">Only the newest {MAX_PAGES * 200} alerts are counted.</p>}
          <details>
            <summary>Alerts per day as a table</summary>
            <TableFrame label="Alerts per day">
              <table>
                <caption class="visually-hidden">Alerts raised and decided per day</caption>
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    <th scope="col">Raised</th>
                    <th scope="col">Decided</th>
                  </tr>
                </thead>
                <tbody>
                  {data.days.map((d) => (
                    <tr key={d.day}>
                      <th scope="row">{d.day}</th>
                      <td>{d.raised}</td>
                      <td>{d.decided}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableFrame>
          </details>
        </>
      )}
    </section>
  );
}
