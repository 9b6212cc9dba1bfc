import { useState } from 'preact/hooks';
import { type Account, api, ok } from '../api.ts';
import {
  ActionButton,
  ErrorNote,
  Loading,
  Page,
  TableFrame,
  TableHead,
  useAction,
  useLoad,
  when,
} from '../ui.tsx';

/**
 * The account administration page: the tenant's users (add, disable, reset key). Only what the
 * API allows an admin is offered: an admin's key is reset by operations (POST
 * /users/{id}/revoke-key answers 403 to another admin), so no "Reset key" on admins.
 */
export function AdminPage({ account }: { account: Account }) {
  const users = useLoad(async () => ok(await api.GET('/users')).users, []);
  const action = useAction();
  const [name, setName] = useState('');
  const [issued, setIssued] = useState<{ who: string; api_key: string; detail: string } | null>(null);
  return (
    <Page title="Users">
      <p>
        Analysts are added here; admins are added by operations. A disabled user's key stops working at once.
        Plan: {account.plan.name}, {account.plan.analyst_seats ?? 'unlimited'} analyst seats.
      </p>
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          void action.run(async () => {
            const added = ok(await api.POST('/users', { body: { name: name.trim(), role: 'analyst' } }));
            setIssued({ who: added.user.name, api_key: added.api_key, detail: added.detail });
            setName('');
            users.reload();
          });
        }}
      >
        <label for="new-user">New analyst's name</label>
        <input
          id="new-user"
          required
          minLength={2}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <button type="submit" disabled={action.busy}>
          Add analyst
        </button>
      </form>
      <ErrorNote error={action.error ?? users.error} />
      {issued ? (
        <div class="notice" role="status">
          <p>
            Key for {issued.who} (shown once; hand it over securely):{' '}
            <code class="secret">{issued.api_key}</code>
          </p>
          <p class="muted">{issued.detail}</p>
        </div>
      ) : null}
      {users.loading && !users.data ? <Loading what="users" /> : null}
      {users.data ? (
        <TableFrame label="Users">
          <table>
            <caption class="visually-hidden">Users of {account.tenant.name}</caption>
            <TableHead columns={['Name', 'Role', 'Status', 'Key', 'Actions']} />
            <tbody>
              {users.data.map((user) => (
                <tr key={user.user_id}>
                  <th scope="row">
                    {user.name} <span class="muted">({user.user_id})</span>
                  </th>
                  <td>{user.role}</td>
                  <td>{user.status === 'disabled' ? `disabled ${when(user.disabled_at)}` : 'active'}</td>
                  <td>
                    <code>{user.key_hint ?? '—'}</code>
                    <div class="muted">issued {when(user.key_issued_at)}</div>
                  </td>
                  <td class="actions">
                    {user.status === 'active' && user.user_id !== account.user.user_id ? (
                      <>
                        {user.role === 'admin' ? null : (
                          <ActionButton
                            action={action}
                            label={`Reset key of ${user.name}`}
                            confirm={`Reset ${user.name}'s key? Their current key stops working at once.`}
                            act={async () => {
                              const answer = ok(
                                await api.POST('/users/{user_id}/revoke-key', {
                                  params: { path: { user_id: user.user_id } },
                                }),
                              );
                              setIssued({ who: user.name, api_key: answer.api_key, detail: answer.detail });
                              users.reload();
                            }}
                          >
                            Reset key
                          </ActionButton>
                        )}
                        <ActionButton
                          action={action}
                          danger
                          label={`Disable ${user.name}`}
                          confirm={`Disable ${user.name}? They can no longer sign in or call the API.`}
                          act={async () => {
                            ok(
                              await api.POST('/users/{user_id}/disable', {
                                params: { path: { user_id: user.user_id } },
                              }),
                            );
                            users.reload();
                          }}
                        >
                          Disable
                        </ActionButton>
                      </>
                    ) : user.user_id === account.user.user_id ? (
                      <span class="muted">you (rotate your key on Account)</span>
                    ) : null}
                    {user.role === 'admin' &&
                    user.user_id !== account.user.user_id &&
                    user.status === 'active' ? (
                      <div class="muted">An admin's key is reset by operations, not here.</div>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      ) : null}
    </Page>
  );
}
