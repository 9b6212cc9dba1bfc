import { useState } from 'preact/hooks';
import { type Account, api, ok } from '../api.ts';
import { signIn } from '../session.ts';
import { confirmed, ErrorNote, Page, useAction, when } from '../ui.tsx';
import { AlertActivity } from './alert-activity.tsx';

const count = (n: number | null) => (n === null ? 'unlimited' : n.toLocaleString('en'));

/** Who you are: user, role, tenant, plan and this month's usage; and your own key's rotation. */
export function AccountPage({ account, onChanged }: { account: Account; onChanged: () => Promise<void> }) {
  const action = useAction();
  const [rotated, setRotated] = useState<{ api_key: string; detail: string } | null>(null);
  const { user, tenant, plan, usage } = account;
  return (
    <Page title="Your account">
      <dl class="facts">
        <dt>User</dt>
        <dd>
          {user.name} <span class="muted">({user.user_id})</span>
        </dd>
        <dt>Role</dt>
        <dd>{account.role}</dd>
        <dt>Tenant</dt>
        <dd>
          {tenant.name} <span class="muted">({tenant.tenant_id})</span>
        </dd>
        <dt>Plan</dt>
        <dd>
          {plan.name}: {count(plan.monthly_screens)} screens a month, batch{' '}
          {plan.batch ? 'included' : 'not included'}, {count(plan.analyst_seats)} analyst seats
        </dd>
        <dt>Usage ({usage.month})</dt>
        <dd>
          {usage.screens_used.toLocaleString('en')} screens used
          {usage.screens_allowed !== null ? ` of ${count(usage.screens_allowed)}` : ''}
          {usage.screens_allowed !== null ? (
            <progress
              max={usage.screens_allowed}
              value={usage.screens_used}
              aria-label="Screens used this month"
            />
          ) : null}
          {usage.screens_remaining !== null ? `, ${count(usage.screens_remaining)} remaining` : ''}
        </dd>
      </dl>
      <h2>Your API key</h2>
      <p>
        Rotating issues a new key and retires the one you signed in with; programs using it stop working. The
        console switches to the new key.
      </p>
      <button
        type="button"
        disabled={action.busy}
        onClick={() =>
          confirmed('Rotate your API key? The current key stops working at once.') &&
          action.run(async () => {
            const answer = ok(await api.POST('/me/rotate-key'));
            signIn(answer.api_key);
            setRotated(answer);
            await onChanged();
          })
        }
      >
        Rotate my key
      </button>
      <ErrorNote error={action.error} />
      {rotated ? (
        <div class="notice" role="status">
          <p>{rotated.detail}</p>
          <p>
            New key (shown once): <code class="secret">{rotated.api_key}</code>
          </p>
        </div>
      ) : null}
      <AlertActivity />
      <p class="muted">
        Signed in until you sign out or close this tab. Checked {when(new Date().toISOString())}.
      </p>
    </Page>
  );
}
