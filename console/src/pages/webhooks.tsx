import { useState } from 'preact/hooks';
import {
  SUBSCRIBABLE_EVENTS,
  type SubscribableEvent,
  WEBHOOK_EVENT_TYPES,
} from '../../../lib/outbox/event-types.ts';
import { api, ok } from '../api.ts';
import type { paths } from '../generated/openapi.ts';
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

type DeliveryQuery = NonNullable<paths['/webhooks/{webhook_id}/deliveries']['get']['parameters']['query']>;

/** A secret the API shows once: the admin copies it now. */
function Secret({ shown }: { shown: { webhook_id: string; secret: string; detail: string } | null }) {
  if (!shown) return null;
  return (
    <div class="notice" role="status">
      <p>
        Signing secret of {shown.webhook_id} (shown once; store it with the receiver):{' '}
        <code class="secret">{shown.secret}</code>
      </p>
      <p class="muted">{shown.detail}</p>
    </div>
  );
}

/**
 * Webhook endpoints (admins): add, test, rotate the signing secret, enable or disable, delete;
 * an endpoint's deliveries by event and outcome, each replayable. Everything here is what
 * /webhooks lets an admin do; analysts do not see the page (the API refuses them).
 */
export function WebhooksPage() {
  const list = useLoad(async () => ok(await api.GET('/webhooks')), []);
  const action = useAction();
  const [secret, setSecret] = useState<{ webhook_id: string; secret: string; detail: string } | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<SubscribableEvent[]>(['monitoring.alert']);
  const hooks = list.data?.webhooks ?? [];
  return (
    <Page title="Webhooks">
      <p>
        The service POSTs events to these endpoints, signed (Standard Webhooks) with each endpoint's secret.
        {list.data ? ` ${hooks.length} of ${list.data.cap} endpoints in use.` : ''}
      </p>
      {list.data && hooks.length >= list.data.cap ? (
        <p class="notice">The plan's {list.data.cap} endpoints are in use: delete one to add another.</p>
      ) : (
        <form
          class="grid-form"
          onSubmit={(event) => {
            event.preventDefault();
            void action.run(async () => {
              const made = ok(
                await api.POST('/webhooks', {
                  body: {
                    url: url.trim(),
                    events,
                    ...(description.trim() ? { description: description.trim() } : {}),
                  },
                }),
              );
              setSecret({ webhook_id: made.webhook.webhook_id, secret: made.secret, detail: made.detail });
              setNote(null);
              setUrl('');
              setDescription('');
              list.reload();
            });
          }}
        >
          <label for="hook-url">Endpoint URL</label>
          <input
            id="hook-url"
            type="url"
            required
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
          <label for="hook-description">Description</label>
          <input
            id="hook-description"
            maxLength={500}
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
          <fieldset>
            <legend>Events</legend>
            {SUBSCRIBABLE_EVENTS.map((name) => (
              <label key={name} class="check">
                <input
                  type="checkbox"
                  checked={events.includes(name)}
                  onChange={(e) =>
                    setEvents(
                      e.currentTarget.checked ? [...events, name] : events.filter((other) => other !== name),
                    )
                  }
                />
                {name}
              </label>
            ))}
          </fieldset>
          <button type="submit" disabled={action.busy || events.length === 0}>
            Add endpoint
          </button>
        </form>
      )}
      <ErrorNote error={action.error ?? list.error} />
      <Secret shown={secret} />
      {note ? (
        <p class="notice" role="status">
          {note}
        </p>
      ) : null}
      {list.loading && !list.data ? <Loading what="webhook endpoints" /> : null}
      {list.data && hooks.length === 0 ? <p>No endpoints yet.</p> : null}
      {hooks.length > 0 ? (
        <TableFrame label="Webhook endpoints">
          <table>
            <caption class="visually-hidden">Webhook endpoints</caption>
            <TableHead columns={['Endpoint', 'Events', 'Status', 'Last delivery', 'Actions']} />
            <tbody>
              {hooks.map((hook) => (
                <tr key={hook.webhook_id}>
                  <th scope="row">
                    <code>{hook.url}</code>
                    <div class="muted">
                      {hook.webhook_id}
                      {hook.description ? ` · ${hook.description}` : ''}
                    </div>
                  </th>
                  <td>{hook.events.join(', ')}</td>
                  <td>
                    {hook.status}
                    {hook.disabled_reason ? <div class="error-text">{hook.disabled_reason}</div> : null}
                    {hook.previous_secret_expires_at ? (
                      <div class="muted">
                        previous secret signs until {when(hook.previous_secret_expires_at)}
                      </div>
                    ) : null}
                  </td>
                  <td>
                    {hook.last_success_at ? `succeeded ${when(hook.last_success_at)}` : 'no success yet'}
                    {hook.last_failure_at ? (
                      <div class="error-text">failed {when(hook.last_failure_at)}</div>
                    ) : null}
                  </td>
                  <td class="actions">
                    <button
                      type="button"
                      aria-expanded={open === hook.webhook_id}
                      aria-label={`Deliveries of ${hook.url}`}
                      onClick={() => setOpen(open === hook.webhook_id ? null : hook.webhook_id)}
                    >
                      Deliveries
                    </button>
                    {hook.enabled ? (
                      <ActionButton
                        action={action}
                        label={`Send test to ${hook.url}`}
                        act={async () => {
                          const sent = ok(
                            await api.POST('/webhooks/{webhook_id}/test', {
                              params: { path: { webhook_id: hook.webhook_id } },
                            }),
                          );
                          setNote(sent.detail);
                        }}
                      >
                        Send test
                      </ActionButton>
                    ) : null}
                    <ActionButton
                      action={action}
                      label={`Rotate secret of ${hook.url}`}
                      confirm={`Rotate the signing secret of ${hook.url}? The old secret keeps signing beside the new one for 24 hours.`}
                      act={async () => {
                        const rotated = ok(
                          await api.POST('/webhooks/{webhook_id}/rotate-secret', {
                            params: { path: { webhook_id: hook.webhook_id } },
                            body: {},
                          }),
                        );
                        setSecret({
                          webhook_id: hook.webhook_id,
                          secret: rotated.secret,
                          detail: rotated.detail,
                        });
                        list.reload();
                      }}
                    >
                      Rotate secret
                    </ActionButton>
                    <ActionButton
                      action={action}
                      label={`${hook.enabled ? 'Disable' : 'Enable'} ${hook.url}`}
                      act={async () => {
                        ok(
                          await api.PATCH('/webhooks/{webhook_id}', {
                            params: { path: { webhook_id: hook.webhook_id } },
                            body: { enabled: !hook.enabled },
                          }),
                        );
                        list.reload();
                      }}
                    >
                      {hook.enabled ? 'Disable' : 'Enable'}
                    </ActionButton>
                    <ActionButton
                      action={action}
                      danger
                      label={`Delete ${hook.url}`}
                      confirm={`Delete the endpoint ${hook.url}? No more events are sent to it.`}
                      act={async () => {
                        ok(
                          await api.DELETE('/webhooks/{webhook_id}', {
                            params: { path: { webhook_id: hook.webhook_id } },
                          }),
                        );
                        if (open === hook.webhook_id) setOpen(null);
                        list.reload();
                      }}
                    >
                      Delete
                    </ActionButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      ) : null}
      {open ? <Deliveries key={open} webhookId={open} /> : null}
    </Page>
  );
}

/** GET /webhooks/{id}/deliveries with its filters; each delivery can be sent again (replay). */
function Deliveries({ webhookId }: { webhookId: string }) {
  const [filters, setFilters] = useState<DeliveryQuery>({});
  const log = useLoad(
    async () =>
      ok(
        await api.GET('/webhooks/{webhook_id}/deliveries', {
          params: { path: { webhook_id: webhookId }, query: filters },
        }),
      ).deliveries,
    [webhookId, filters],
  );
  const action = useAction();
  const [note, setNote] = useState<string | null>(null);
  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">Deliveries of {webhookId}</h2>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const pick = (name: string) => (form.get(name) as string) || undefined;
          setFilters({
            event: pick('event') as DeliveryQuery['event'],
            outcome: pick('outcome') as DeliveryQuery['outcome'],
          });
        }}
      >
        <label>
          Event
          <select name="event" value={filters.event ?? ''}>
            <option value="">any</option>
            {WEBHOOK_EVENT_TYPES.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <label>
          Outcome
          <select name="outcome" value={filters.outcome ?? ''}>
            <option value="">any</option>
            <option>pending</option>
            <option>succeeded</option>
            <option>failed</option>
          </select>
        </label>
        <button type="submit">Filter</button>
        <button type="button" onClick={log.reload}>
          Refresh
        </button>
      </form>
      <ErrorNote error={action.error ?? log.error} />
      {note ? (
        <p class="notice" role="status">
          {note}
        </p>
      ) : null}
      {log.loading && !log.data ? <Loading what="deliveries" /> : null}
      {log.data && log.data.length === 0 ? <p role="status">No deliveries match.</p> : null}
      {log.data && log.data.length > 0 ? (
        <TableFrame label="Deliveries">
          <table>
            <caption class="visually-hidden">Deliveries, newest first</caption>
            <TableHead columns={['Delivery', 'Event', 'Outcome', 'Attempts', 'Actions']} />
            <tbody>
              {log.data.map((delivery) => (
                <tr key={delivery.delivery_id}>
                  <th scope="row">
                    <code>{delivery.delivery_id}</code>
                    <div class="muted">{when(delivery.created_at)}</div>
                  </th>
                  <td>{delivery.event_type}</td>
                  <td>
                    {delivery.outcome}
                    {delivery.last_status_code ? ` (HTTP ${delivery.last_status_code})` : ''}
                    {delivery.detail ? <div class="muted">{delivery.detail}</div> : null}
                  </td>
                  <td>
                    {delivery.attempt_count}
                    {delivery.replays ? `, ${delivery.replays} replayed` : ''}
                    {delivery.attempts.at(-1)?.error ? (
                      <div class="error-text">{delivery.attempts.at(-1)?.error}</div>
                    ) : null}
                  </td>
                  <td class="actions">
                    {delivery.outcome === 'pending' ? null : (
                      <ActionButton
                        action={action}
                        label={`Replay ${delivery.delivery_id}`}
                        act={async () => {
                          const replayed = ok(
                            await api.POST('/webhooks/{webhook_id}/deliveries/{delivery_id}/replay', {
                              params: {
                                path: { webhook_id: webhookId, delivery_id: delivery.delivery_id },
                              },
                            }),
                          );
                          setNote(replayed.detail);
                          log.reload();
                        }}
                      >
                        Replay
                      </ActionButton>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      ) : null}
    </section>
  );
}
