import { useState } from 'preact/hooks';
import { type Account, api, ok, type Schemas, type Screen } from '../api.ts';
import { DECISIONS, type Decision, type DisposeBody } from '../bulk.ts';
import { type Check, matchesOf, nextInQueue, resultOf } from '../queue.ts';
import { href, navigate } from '../router.ts';
import { confirmed, ErrorNote, Loading, Page, Risk, useAction, useLoad, when } from '../ui.tsx';

type Match = Schemas['Match'];
const CHECKS: { check: Check; label: string }[] = [
  { check: 'sanctions', label: 'Sanctions' },
  { check: 'pep', label: 'Politically exposed persons' },
  { check: 'criminal', label: 'Criminal records' },
];

/** One screen: subject, each check's matches explained, narratives, receipt, history, and the decision. */
export function ScreenPage({ screenId, account }: { screenId: string; account: Account }) {
  const loaded = useLoad(async () => {
    const path = { params: { path: { screen_id: screenId } } };
    const [screen, history] = await Promise.all([
      api.GET('/screens/{screen_id}', path).then(ok),
      api.GET('/screens/{screen_id}/history', path).then(ok),
    ]);
    return { screen, history };
  }, [screenId]);
  if (!loaded.data)
    return (
      <Page title={`Screen ${screenId}`}>
        <ErrorNote error={loaded.error} />
        {loaded.loading ? <Loading what="the screen" /> : null}
      </Page>
    );
  const { screen, history } = loaded.data;
  return (
    <Page title={`Screen ${screen.screen_id}`}>
      <p>
        <Risk level={screen.risk_level} /> screened {when(screen.screened_at)} by {screen.created_by.user_id}{' '}
        ({screen.origin}){screen.alert_since ? `; monitoring alert since ${when(screen.alert_since)}` : ''}
        {screen.client_id ? (
          <>
            {' '}
            · client <a href={href(`/clients/${screen.client_id}`)}>{screen.client_id}</a>
          </>
        ) : null}
      </p>
      {screen.lists_stale?.length ? <StaleLists lists={screen.lists_stale} /> : null}
      {screen.alert ? <WhatChanged alert={screen.alert} /> : null}
      <section aria-labelledby="subject">
        <h2 id="subject">Subject</h2>
        <dl class="facts">
          {Object.entries(screen.subject).flatMap(([field, value]) => [
            <dt key={`${field}-t`}>{field}</dt>,
            <dd key={`${field}-d`}>{value}</dd>,
          ])}
        </dl>
      </section>
      {CHECKS.filter(({ check }) => screen.types.includes(check)).map(({ check, label }) => {
        const result = resultOf(screen, check);
        if (!result) return null;
        const matches = matchesOf(screen, check);
        return (
          <section key={check} aria-labelledby={`check-${check}`}>
            <h2 id={`check-${check}`}>
              {label}: <Risk level={result.risk_level} />
            </h2>
            <p class="narrative">{result.narrative}</p>
            {matches.length === 0 ? <p class="muted">No matches.</p> : null}
            {result.truncated && result.total ? (
              <p class="cut">
                Showing the {matches.length} strongest of {result.total} possible matches.
              </p>
            ) : null}
            {matches.map((match) => (
              <MatchCard key={`${match.list_id}-${match.entity_id}`} match={match} />
            ))}
            {result.truncated ? <TheRest screenId={screen.screen_id} check={check} label={label} /> : null}
          </section>
        );
      })}
      {screen.receipt ? (
        <section aria-labelledby="receipt">
          <h2 id="receipt">Receipt</h2>
          <p>
            Matched against snapshot <code>{screen.receipt.snapshot.version}</code> built{' '}
            {when(screen.receipt.snapshot.built_at)}:
          </p>
          <ul class="compact">
            {screen.receipt.snapshot.lists.map((list) => (
              <li key={list.id}>
                {list.id}: source {list.source_date ?? 'date unknown'}, synced {when(list.synced_at)},{' '}
                {list.individual_count.toLocaleString('en')} individuals
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <Decide screen={screen} account={account} onDecided={loaded.reload} />
      <section aria-labelledby="history">
        <h2 id="history">History</h2>
        {history.history.length === 0 ? <p class="muted">No decision recorded yet.</p> : null}
        <ol class="history">
          {history.history.map((entry) => (
            <li key={entry.version}>
              <strong>
                v{entry.version} {entry.disposition}
              </strong>{' '}
              by {entry.author.user_id} ({entry.author.role}) {when(entry.at)}
              {entry.override ? ', override' : ''}
              {entry.approval_requested ? ', approval requested' : ''}
              {entry.approved_by
                ? `, approved by ${entry.approved_by.user_id} ${when(entry.approved_at)}`
                : ''}
              {entry.approves
                ? `, approves v${entry.approves.version} by ${entry.approves.author.user_id}`
                : ''}
              {entry.superseded_by ? `, superseded by v${entry.superseded_by.version}` : ''}
              {entry.note ? <div class="note">{entry.note}</div> : null}
            </li>
          ))}
        </ol>
      </section>
    </Page>
  );
}

/** A screen made while lists it used were stale says so first, naming each list and why. */
function StaleLists({ lists }: { lists: NonNullable<Screen['lists_stale']> }) {
  return (
    <div class="warning stale-lists">
      <strong>Screened on stale lists.</strong> When this screen was made, these lists were behind their
      publishers:
      <ul class="compact">
        {lists.map((list) => (
          <li key={list.id}>
            <strong>{list.id}</strong>: {list.reasons.join('; ')}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The matches a cut check does not store, a page at a time (GET /screens/{screen_id}/matches:
 * computed again on the screen's snapshot and policy version).
 */
function TheRest({ screenId, check, label }: { screenId: string; check: Check; label: string }) {
  const [more, setMore] = useState<Match[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const { error, busy, run } = useAction();
  const next = () =>
    run(async () => {
      const page = await api
        .GET('/screens/{screen_id}/matches', {
          params: { path: { screen_id: screenId }, query: { check, limit: 10, cursor: cursor ?? undefined } },
        })
        .then(ok);
      setMore((shown) => [...shown, ...page.matches]);
      setCursor(page.next_cursor);
    });
  return (
    <>
      {more.map((match) => (
        <MatchCard key={`${match.list_id}-${match.entity_id}`} match={match} />
      ))}
      {cursor === null ? (
        <p class="muted">All {label.toLowerCase()} matches shown.</p>
      ) : (
        <button type="button" disabled={busy} onClick={next}>
          {cursor === undefined ? 'Show the rest' : 'Show more'}
        </button>
      )}
      <ErrorNote error={error} />
    </>
  );
}

type Alert = NonNullable<Screen['alert']>;

/** A monitoring alert opens with what changed since the client's last settled screen. */
function WhatChanged({ alert }: { alert: Alert }) {
  const refs = (label: string, matches: Alert['matches_added']) =>
    matches.length ? (
      <>
        <h3>{label}</h3>
        <ul class="compact">
          {matches.map((match) => (
            <li key={`${match.list_id}-${match.entity_id}`}>
              {match.primary_name} <span class="muted">({match.list_id})</span>{' '}
              <Risk level={match.risk_level} />
            </li>
          ))}
        </ul>
      </>
    ) : null;
  const previous = alert.baseline_screen_id ?? alert.previous_screen_id;
  return (
    <section aria-labelledby="what-changed" class="notice">
      <h2 id="what-changed">What changed</h2>
      <p>
        Monitoring alert since {when(alert.since)}: risk {alert.risk_before ?? 'none'} → {alert.risk_after}.
        {previous ? (
          <>
            {' '}
            Compared with <a href={href(`/screens/${previous}`)}>{previous}</a>
            {alert.previous_screen_id && alert.previous_screen_id !== previous ? (
              <>
                ; the client's screen before this one:{' '}
                <a href={href(`/screens/${alert.previous_screen_id}`)}>{alert.previous_screen_id}</a>
              </>
            ) : null}
            .
          </>
        ) : null}
      </p>
      {alert.reasons.length ? (
        <ul class="compact reasons">
          {alert.reasons.map((reason) => (
            <li key={reason}>{reason}</li>
          ))}
        </ul>
      ) : null}
      {refs('Matches added', alert.matches_added)}
      {refs('Matches removed', alert.matches_removed)}
      {refs('Listings changed (names, dates of birth or nationalities)', alert.matches_changed)}
    </section>
  );
}

function Verdict({ label, verdict }: { label: string; verdict: { status: string; detail: string } }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>
        <span class={`verdict verdict-${verdict.status}`}>{verdict.status}</span> {verdict.detail}
      </dd>
    </>
  );
}

/** A match and its structured explanation: which name, DOB and nationality verdicts, linked listings. */
function MatchCard({ match }: { match: Match }) {
  return (
    <article class="match">
      <h3>
        {match.primary_name} <span class="muted">({match.list_name})</span> <Risk level={match.risk_level} />
      </h3>
      <p>
        Matched {match.matched_input === 'alias' ? 'your alias' : 'your name'} to “{match.matched_name}”:
        score {match.score.toFixed(2)} (name {match.name_score.toFixed(2)}).
        {match.programmes.length ? ` Programmes: ${match.programmes.join(', ')}.` : ''}
      </p>
      <dl class="facts explanation">
        <Verdict label="Name" verdict={match.explanation.name} />
        <Verdict label="Date of birth" verdict={match.explanation.dob} />
        <Verdict label="Nationality" verdict={match.explanation.nationality} />
        <Verdict label="Location" verdict={match.explanation.location} />
        {match.pep ? (
          <>
            <dt>Position</dt>
            <dd>
              {match.pep.position} ({match.pep.tier_label}, {match.pep.current ? 'current' : 'former'})
            </dd>
          </>
        ) : null}
      </dl>
      {match.listings.length > 0 ? (
        <>
          <h4>Linked listings</h4>
          <ul class="compact">
            {match.listings.map((listing) => (
              <li key={`${listing.list_id}-${listing.entity_id}`}>
                {listing.list_name}: {listing.primary_name} ({listing.entity_id}), linked by{' '}
                {listing.linked_by}
                {listing.listed_on ? `, listed ${listing.listed_on}` : ''}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </article>
  );
}

/** Dispose, override, request approval; approve or send back (admins); the four-eyes rule shown. */
function Decide({ screen, account, onDecided }: { screen: Screen; account: Account; onDecided: () => void }) {
  const action = useAction();
  const [decision, setDecision] = useState<Decision>('needs_review');
  const [note, setNote] = useState('');
  const [requestApproval, setRequestApproval] = useState(false);
  const current = screen.disposition;
  const admin = account.role === 'admin';
  const mine = current?.author.user_id === account.user.user_id;
  // After an approval the value in force is `approved` by the admin; the decision signed off and its author are kept beside it.
  const decided = current?.approved_decision ?? current;
  const [queueDone, setQueueDone] = useState(false);
  const dispose = (body: DisposeBody, andNext = false) =>
    action.run(async () => {
      ok(
        await api.POST('/screens/{screen_id}/dispose', {
          params: { path: { screen_id: screen.screen_id } },
          body,
        }),
      );
      setNote('');
      if (andNext) {
        const next = await nextInQueue(screen.screen_id, { user_id: account.user.user_id, admin });
        if (next) return navigate(`/screens/${next}`);
        setQueueDone(true);
      }
      onDecided();
    });
  return (
    <section aria-labelledby="decision">
      <h2 id="decision">Decision</h2>
      {current ? (
        <p class="in-force">
          In force: <strong>{decided?.disposition}</strong> by {decided?.author.user_id} (
          {decided?.author.role}) {when(decided?.at)}
          {current.decision_version ? ` (v${current.decision_version})` : ''}
          {decided?.note ? `: “${decided.note}”` : ''}
          {current.approved_decision ? (
            <>
              ; approved by {current.author.user_id} {when(current.at)}
              {current.note ? `: “${current.note}”` : ''}
            </>
          ) : null}
          {current.awaiting_approval ? '; awaiting approval' : ''}
        </p>
      ) : (
        <p>No decision yet.</p>
      )}
      {current?.awaiting_approval ? (
        <div class="notice" role="status">
          {mine ? (
            <p>
              <strong>You made this decision; another admin must approve it.</strong> (four-eyes rule)
            </p>
          ) : (
            <p>Awaiting an admin's approval.</p>
          )}
          {admin && !mine ? (
            <div class="actions">
              <button
                type="button"
                disabled={action.busy}
                onClick={() =>
                  dispose({
                    disposition: 'approved',
                    approves_version: current.decision_version ?? null,
                    note: note || null,
                  })
                }
              >
                Approve {current.disposition}
              </button>
              <button
                type="button"
                class="danger"
                disabled={action.busy}
                onClick={() =>
                  confirmed('Send this decision back? It is replaced by "needs review" with your note.') &&
                  dispose({
                    disposition: 'needs_review',
                    override: true,
                    note: note || 'Sent back for review',
                  })
                }
              >
                Send back
              </button>
            </div>
          ) : null}
        </div>
      ) : null}
      <form
        class="decide"
        onSubmit={(event) => {
          event.preventDefault();
          const andNext = (event as SubmitEvent).submitter?.getAttribute('value') === 'next';
          if (
            current &&
            !confirmed(`Override the decision in force (${current.disposition}) with ${decision}?`)
          )
            return;
          void dispose(
            {
              disposition: decision,
              note: note || null,
              override: Boolean(current),
              approval_requested: requestApproval,
            },
            andNext,
          );
        }}
      >
        <label for="disposition">{current ? 'Override with' : 'Disposition'}</label>
        <select
          id="disposition"
          value={decision}
          onChange={(e) => setDecision(e.currentTarget.value as Decision)}
        >
          {DECISIONS.map((d) => (
            <option key={d.value} value={d.value}>
              {d.label}
            </option>
          ))}
        </select>
        <label for="note">Note</label>
        <textarea
          id="note"
          rows={3}
          maxLength={4000}
          value={note}
          onInput={(e) => setNote(e.currentTarget.value)}
        />
        <label class="check">
          <input
            type="checkbox"
            checked={requestApproval}
            onChange={(e) => setRequestApproval(e.currentTarget.checked)}
          />{' '}
          Request an admin's approval
        </label>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {current ? 'Override decision' : 'Record decision'}
          </button>
          {current ? null : (
            <button type="submit" value="next" disabled={action.busy}>
              Decide and next
            </button>
          )}
        </div>
      </form>
      {queueDone ? (
        <p class="ok" role="status">
          That was the last screen of the queue. <a href={href('/queue')}>Back to the queue</a>
        </p>
      ) : null}
      <ErrorNote error={action.error} />
    </section>
  );
}
