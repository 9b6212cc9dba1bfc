import { useEffect, useState } from 'preact/hooks';
import { type Account, ApiError, api, ok, RISK_LEVELS, type RiskLevel } from '../api.ts';
import type { paths } from '../generated/openapi.ts';
import { href, navigate } from '../router.ts';
import {
  confirmed,
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

type InForce = Awaited<ReturnType<typeof readInForce>>;
type Proposal = Awaited<ReturnType<typeof readProposal>>;
type ProposedPolicy =
  paths['/settings/policy/proposals']['post']['requestBody']['content']['application/json']['policy'];
type Decided = NonNullable<Proposal['report']>['confirmed_hits_no_longer_alerting'][number];

const readInForce = async () => ok(await api.GET('/settings/policy'));
const readProposal = async (id: string) =>
  ok(await api.GET('/settings/policy/proposals/{proposal_id}', { params: { path: { proposal_id: id } } }));
const POLL_MS = 2000;
const MATCHER_LEVELS = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;

/**
 * The policy in force, the tenant's proposals and a form to propose one (admins). A policy changes
 * only through a proposal: its sandbox replays past screens under it, and another admin applies it.
 */
export function PolicyPage() {
  const inForce = useLoad(readInForce, []);
  const paging = useCursors();
  const proposals = useLoad(
    async () =>
      ok(
        await api.GET('/settings/policy/proposals', {
          params: { query: { limit: 25, ...(paging.cursor ? { cursor: paging.cursor } : {}) } },
        }),
      ),
    [paging.cursor],
  );
  return (
    <Page title="Policy">
      <ErrorNote error={inForce.error ?? proposals.error} />
      <section aria-labelledby="in-force">
        <h2 id="in-force">The policy in force</h2>
        {inForce.data ? (
          <PolicyInForce policy={inForce.data} />
        ) : (
          inForce.loading && <Loading what="the policy" />
        )}
      </section>
      <section aria-labelledby="proposals">
        <h2 id="proposals">Proposals</h2>
        {!proposals.data ? (
          proposals.loading && <Loading what="proposals" />
        ) : proposals.data.proposals.length === 0 ? (
          <p>No proposal yet.</p>
        ) : (
          <TableFrame label="Policy proposals">
            <table>
              <TableHead columns={['Proposal', 'Status', 'Author', 'Created', 'Progress']} />
              <tbody>
                {proposals.data.proposals.map((row) => (
                  <tr key={row.proposal_id}>
                    <td>
                      <a href={href(`/policy/${encodeURIComponent(row.proposal_id)}`)}>{row.proposal_id}</a>
                    </td>
                    <td>
                      {row.status}
                      {row.applied ? ` (version ${row.applied.version})` : ''}
                    </td>
                    <td>{row.author.user_id}</td>
                    <td>{when(row.created_at)}</td>
                    <td>{progressText(row.progress)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        )}
        {proposals.data ? <Pager paging={paging} next={proposals.data.next_cursor} /> : null}
      </section>
      {inForce.data ? <ProposeForm inForce={inForce.data} /> : null}
    </Page>
  );
}

function progressText(progress: { done: number; total: number | null }): string {
  return progress.total === null
    ? `${progress.done} screens, counting…`
    : `${progress.done} of ${progress.total} screens`;
}

function PolicyInForce({ policy }: { policy: InForce }) {
  const { screening, risk_bands, approval, retention, queue_sla_hours } = policy.policy;
  const levels = (list: string[]) => (list.length ? list.join(', ') : 'none');
  return (
    <>
      <p>
        <strong>Version {policy.version}</strong>
        {policy.version === 0
          ? " (the service's own)"
          : `, adopted ${when(policy.adopted_at)}${policy.adopted_by ? ` by ${policy.adopted_by.user_id}` : ''}`}
        {policy.proposal_id ? (
          <>
            {' '}
            from proposal{' '}
            <a href={href(`/policy/${encodeURIComponent(policy.proposal_id)}`)}>{policy.proposal_id}</a>
          </>
        ) : null}
        .
      </p>
      <dl class="facts">
        <dt>Checks run by default</dt>
        <dd>{screening.default_types.join(', ')}</dd>
        <dt>Lists left out</dt>
        <dd>{levels(screening.excluded_lists)}</dd>
        <dt>PEP tiers screened</dt>
        <dd>{screening.pep_tiers.join(', ')}</dd>
        <dt>A second admin signs off</dt>
        <dd>
          false positive at {levels(approval.false_positive)}; cleared at {levels(approval.cleared)}; deleting
          a decided screen{' '}
          {approval.delete_decided.approval_required ? 'needs an approval' : 'needs no approval'},{' '}
          {approval.delete_decided.reason_required ? 'with a reason' : 'no reason asked'}
        </dd>
        <dt>Decided screens locked</dt>
        <dd>{retention.decided_lock_days === null ? 'no' : `${retention.decided_lock_days} days`}</dd>
        <dt>Queue targets</dt>
        <dd>
          {(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const)
            .map(
              (level) =>
                `${level} ${queue_sla_hours[level] ?? 'none'}${queue_sla_hours[level] === null ? '' : ' h'}`,
            )
            .join(', ')}
        </dd>
      </dl>
      <TableFrame label="Risk bands">
        <table>
          <caption>Risk bands: the level a match takes, by the matcher's level</caption>
          <TableHead columns={['Check', ...MATCHER_LEVELS]} />
          <tbody>
            {(['sanctions', 'pep', 'criminal'] as const).map((check) => (
              <tr key={check}>
                <th scope="row">{check}</th>
                {MATCHER_LEVELS.map((level) => (
                  <td key={level}>{risk_bands[check][level]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableFrame>
    </>
  );
}

/** The policy in force as JSON to edit; the API validates it and names each broken field. */
function ProposeForm({ inForce }: { inForce: InForce }) {
  const [text, setText] = useState(() => JSON.stringify(inForce.policy, null, 2));
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const action = useAction();
  const fieldErrors = action.error instanceof ApiError ? action.error.errors : [];
  return (
    <section aria-labelledby="propose">
      <h2 id="propose">Propose a policy</h2>
      <p>
        Edit the policy in force below. The sandbox replays the period's screens under it (by default the last
        90 days) and reports what would change; another admin then applies it.
      </p>
      <form
        class="grid-form wide"
        onSubmit={(event) => {
          event.preventDefault();
          void action.run(async () => {
            let policy: ProposedPolicy;
            try {
              policy = JSON.parse(text) as ProposedPolicy;
            } catch (caught) {
              throw new Error(`The policy is not valid JSON: ${(caught as Error).message}`);
            }
            const body = {
              policy,
              ...(since.trim() ? { since: since.trim() } : {}),
              ...(until.trim() ? { until: until.trim() } : {}),
            };
            const made = ok(await api.POST('/settings/policy/proposals', { body }));
            navigate(`/policy/${encodeURIComponent(made.proposal_id)}`);
          });
        }}
      >
        <label for="proposed-policy">Proposed policy (JSON)</label>
        <textarea
          id="proposed-policy"
          rows={16}
          spellcheck={false}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
          aria-describedby={fieldErrors.length ? 'policy-errors' : undefined}
        />
        <label>
          Replay screens since (optional: a date or an ISO 8601 time)
          <input value={since} onInput={(e) => setSince(e.currentTarget.value)} />
        </label>
        <label>
          Until, exclusive (optional; default now)
          <input value={until} onInput={(e) => setUntil(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={action.busy}>
          Propose
        </button>
      </form>
      <ErrorNote error={action.error} />
      {fieldErrors.length ? (
        <ul id="policy-errors" class="error-text">
          {fieldErrors.map((error) => (
            <li key={error.field + error.message}>
              <code>{error.field}</code>: {error.message}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/**
 * One proposal: its progress while the sandbox runs (read every 2 s), then its report, the decided
 * confirmed hits that would no longer alert first; Apply is offered only where the API would take it
 * (an admin other than the author, on a reported proposal); once applied, who applied it and the version.
 */
export function ProposalPage({ proposalId, account }: { proposalId: string; account: Account }) {
  const proposal = useLoad(() => readProposal(proposalId), [proposalId]);
  const action = useAction();
  const current = proposal.data;
  const running = current?.status === 'running';
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(proposal.reload, POLL_MS);
    return () => clearTimeout(timer);
  });
  const mine = current?.author.user_id === account.user.user_id;
  return (
    <Page title={`Policy proposal ${proposalId}`}>
      <p>
        <a href={href('/policy')}>Back to the policy</a>
      </p>
      <ErrorNote error={proposal.error} />
      {!current ? (
        proposal.loading && <Loading what="the proposal" />
      ) : (
        <div class="proposal">
          <p>
            Status <strong>{current.status}</strong>. Proposed by {current.author.user_id}{' '}
            {when(current.created_at)} on version {current.based_on_version}; replays the screens from{' '}
            {when(current.period.since)} to {when(current.period.until)}.
          </p>
          {running ? (
            <div class="batch-progress">
              <label>
                Sandbox progress
                <progress max={Math.max(current.progress.total ?? 1, 1)} value={current.progress.done} />
              </label>
              <p role="status" aria-live="polite">
                Replaying: {progressText(current.progress)}…
              </p>
            </div>
          ) : null}
          {current.status === 'failed' ? (
            <p class="error">The sandbox failed: {current.failure ?? 'no reason kept'}. Propose again.</p>
          ) : null}
          {current.status === 'superseded' ? (
            <p class="warning">
              Another version was adopted since this was proposed: it can no longer be applied.
            </p>
          ) : null}
          {current.report ? <Report proposal={current} /> : null}
          <section aria-labelledby="approval">
            <h2 id="approval">Approval</h2>
            {current.applied ? (
              <p class="ok" role="status">
                Applied by {current.applied.by.user_id} {when(current.applied.at)}: adopted as version{' '}
                {current.applied.version}.
              </p>
            ) : current.status !== 'reported' ? (
              <p>It can be applied once its report exists and while no other version was adopted.</p>
            ) : mine ? (
              <p>You proposed this policy; another admin must apply it.</p>
            ) : (
              <button
                type="button"
                disabled={action.busy}
                onClick={() => {
                  if (!confirmed('Apply this policy? It becomes the next version in force for every screen.'))
                    return;
                  void action.run(async () => {
                    ok(
                      await api.POST('/settings/policy/proposals/{proposal_id}/apply', {
                        params: { path: { proposal_id: proposalId } },
                      }),
                    );
                    proposal.reload();
                  });
                }}
              >
                Apply
              </button>
            )}
            <ErrorNote error={action.error} />
          </section>
        </div>
      )}
    </Page>
  );
}

function Report({ proposal }: { proposal: Proposal }) {
  const report = proposal.report!;
  const confirmedHits = report.confirmed_hits_no_longer_alerting;
  return (
    <>
      <section aria-labelledby="missed" class={confirmedHits.length ? 'warning' : 'ok'}>
        <h2 id="missed">Decided confirmed hits that would no longer alert ({confirmedHits.length})</h2>
        {confirmedHits.length ? (
          <DecidedTable rows={confirmedHits} label="Confirmed hits that would no longer alert" />
        ) : (
          <p>None: every decided confirmed hit of the period would still alert.</p>
        )}
      </section>
      <section aria-labelledby="report">
        <h2 id="report">Report</h2>
        <p>
          {report.screens_replayed} screens replayed, {report.screens_skipped.length} skipped (no receipt, or
          a snapshot no longer kept). Reported {when(proposal.reported_at)}.
        </p>
        <p>
          Report digest (SHA-256): <code class="secret">{proposal.report_digest}</code>
        </p>
        <TableFrame label="Alerts gained and lost">
          <table>
            <caption>Alerts gained (by the level they would have) and lost (by the level they had)</caption>
            <TableHead columns={['Risk level', 'Gained', 'Lost']} />
            <tbody>
              {RISK_LEVELS.filter((level) => level !== 'CLEAR').map((level) => (
                <tr key={level}>
                  <th scope="row">{level}</th>
                  <td>{report.alerts_gained[level]}</td>
                  <td>{report.alerts_lost[level]}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
        <h3>
          Decided false positives that would no longer alert (
          {report.false_positives_no_longer_alerting.length})
        </h3>
        {report.false_positives_no_longer_alerting.length ? (
          <DecidedTable
            rows={report.false_positives_no_longer_alerting}
            label="False positives that would no longer alert"
          />
        ) : (
          <p>None.</p>
        )}
        <h3>Screens whose level changes ({report.level_changes_total})</h3>
        {report.level_changes.length ? (
          <TableFrame label="Level changes">
            <table>
              <TableHead columns={['Screen', 'Before', 'After']} />
              <tbody>
                {report.level_changes.map((change) => (
                  <tr key={change.screen_id}>
                    <td>
                      <ScreenLink id={change.screen_id} />
                    </td>
                    <td>
                      <Risk level={change.before as RiskLevel} />
                    </td>
                    <td>
                      <Risk level={change.after as RiskLevel} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        ) : (
          <p>None.</p>
        )}
        {report.level_changes_total > report.level_changes.length ? (
          <p class="muted">The first {report.level_changes.length} are listed.</p>
        ) : null}
      </section>
    </>
  );
}

function ScreenLink({ id, text }: { id: string; text?: string }) {
  return <a href={href(`/screens/${encodeURIComponent(id)}`)}>{text ?? id}</a>;
}

function DecidedTable({ rows, label }: { rows: Decided[]; label: string }) {
  return (
    <TableFrame label={label}>
      <table>
        <TableHead columns={['Name', 'Decided by', 'Decided', 'Level before', 'Level after']} />
        <tbody>
          {rows.map((row) => (
            <tr key={row.screen_id}>
              <td>
                <ScreenLink id={row.screen_id} text={row.name} />
              </td>
              <td>{row.decided_by}</td>
              <td>{when(row.decided_at)}</td>
              <td>
                <Risk level={row.level_before} />
              </td>
              <td>
                <Risk level={row.level_after} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}
