import { useState } from 'preact/hooks';
import { api, ok, RISK_LEVELS } from '../api.ts';
import { href } from '../router.ts';
import { ErrorNote, Loading, Page, TableFrame, useAction, useLoad, when } from '../ui.tsx';

/**
 * The tenant's settings (admins): the retention period and lock (PATCH /settings), and the queue's
 * SLA targets of the policy in force (GET /settings/policy), shown read-only: a policy changes only
 * through a proposal another admin approves, never from this page. Under the lock the API lets an
 * admin only lengthen the period; lifting the lock or shortening it is for operations, so neither
 * is offered then.
 */
export function SettingsPage() {
  const settings = useLoad(async () => ok(await api.GET('/settings')), []);
  const policy = useLoad(async () => ok(await api.GET('/settings/policy')), []);
  const action = useAction();
  const [days, setDays] = useState<string | null>(null);
  const [lock, setLock] = useState(false);
  const current = settings.data;
  const shownDays = days ?? (current?.retention_days === null ? '' : String(current?.retention_days ?? ''));
  return (
    <Page title="Settings">
      <ErrorNote error={settings.error ?? policy.error} />
      <section aria-labelledby="retention">
        <h2 id="retention">Retention</h2>
        {!current ? (
          settings.loading && <Loading what="retention settings" />
        ) : (
          <>
            <p>
              {current.retention_days === null
                ? 'Screens are kept until deleted.'
                : `Screens are kept ${current.retention_days} days after their last decision.`}{' '}
              {current.retention_lock
                ? 'The retention lock is on: decided screens cannot be deleted before then. Only operations can lift the lock or shorten the period; here it can only be lengthened.'
                : 'The retention lock is off.'}{' '}
              <span class="muted">
                {current.changed_at
                  ? `Last changed ${when(current.changed_at)}${current.changed_by ? ` by ${current.changed_by.user_id}` : ''}.`
                  : 'Never changed.'}
              </span>
            </p>
            <form
              class="grid-form"
              onSubmit={(event) => {
                event.preventDefault();
                void action.run(async () => {
                  const retention_days = shownDays.trim() === '' ? null : Number(shownDays);
                  ok(
                    await api.PATCH('/settings', {
                      body: {
                        retention_days,
                        ...(lock && !current.retention_lock ? { retention_lock: true } : {}),
                      },
                    }),
                  );
                  setDays(null);
                  setLock(false);
                  settings.reload();
                });
              }}
            >
              <label for="retention-days">
                Retention period in days ({current.retention_lock ? current.retention_days : 1} to 3650
                {current.retention_lock ? '' : '; empty keeps screens until deleted'})
              </label>
              <input
                id="retention-days"
                type="number"
                inputMode="numeric"
                min={current.retention_lock ? (current.retention_days ?? 1) : 1}
                max={3650}
                required={current.retention_lock || lock}
                value={shownDays}
                onInput={(e) => setDays(e.currentTarget.value)}
              />
              {current.retention_lock ? null : (
                <label class="check">
                  <input type="checkbox" checked={lock} onChange={(e) => setLock(e.currentTarget.checked)} />
                  Turn the retention lock on (only operations can lift it)
                </label>
              )}
              <button type="submit" disabled={action.busy}>
                Save retention
              </button>
            </form>
            <ErrorNote error={action.error} />
          </>
        )}
      </section>
      <section aria-labelledby="sla">
        <h2 id="sla">Queue SLA targets</h2>
        {!policy.data ? (
          policy.loading && <Loading what="the policy" />
        ) : (
          <>
            <p>
              Policy version {policy.data.version}
              {policy.data.version === 0
                ? " (the service's own)"
                : `, adopted ${when(policy.data.adopted_at)}`}
              . The queue shows a screen as overdue once it has waited longer than its risk level's target.
              Targets change through a policy proposal that another admin approves, on the{' '}
              <a href={href('/policy')}>Policy page</a>, not on this page.
            </p>
            <TableFrame label="SLA targets">
              <table>
                <caption class="visually-hidden">Hours a screen may wait, by risk level</caption>
                <thead>
                  <tr>
                    <th scope="col">Risk level</th>
                    <th scope="col">Target</th>
                  </tr>
                </thead>
                <tbody>
                  {RISK_LEVELS.map((level) => {
                    const hours = policy.data?.policy.queue_sla_hours[level];
                    return (
                      <tr key={level}>
                        <th scope="row">{level}</th>
                        <td>{hours === null || hours === undefined ? 'none' : `${hours} hours`}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </TableFrame>
          </>
        )}
      </section>
    </Page>
  );
}
