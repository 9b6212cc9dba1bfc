/**
 * Issue 36, item 1: a tenant's endpoint is named by a host name, and its deliveries arrive. The
 * whole delivery path runs as `npm start` runs it (the outbox, the drain on the scheduler, the
 * queue on fauxqs, the delivery function) with the REAL connector (lib/webhooks/connector.ts):
 * only the resolver is the test's, mapping made-up names to loopback (test/support/test-resolver.ts),
 * which the address guard lets through because WEBHOOK_ALLOW_LOOPBACK is set, explicitly, here.
 * Node 20 and later ask the connector's `lookup` for every address (`all: true`); a connector
 * that answered one address failed every such delivery with `Invalid IP address: undefined`.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setEnvironment } from '../../lib/common/config.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { setWebhookNetwork } from '../../lib/runtime/webhooks.ts';
import { OPERATIONS_ISSUER } from '../../lib/tenancy/key-lineage.ts';
import { addUser, createTenant } from '../../lib/tenancy/tenants.ts';
import { madeUpName, useLocalServer } from '../support/api-client.ts';
import { eventually } from '../support/eventually.ts';
import { TEST_HOSTS, testResolver } from '../support/test-resolver.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

// Loopback receivers are allowed only under this setting (the stack never sets it). Two quick
// retries, so a connector that cannot connect ends its delivery as failed within seconds.
setEnvironment({
  WEBHOOK_ALLOW_LOOPBACK: 'true',
  WEBHOOK_RETRY_DELAYS_SECONDS: '0,0',
  WEBHOOK_TIMEOUT_MS: '5000',
});
// The system resolver is replaced; the connector is not.
setWebhookNetwork({ resolve: testResolver });
const local = useLocalServer();
const receivers = {
  '127.0.0.1': await startReceiver({}, '127.0.0.1'),
  '::1': await startReceiver({}, '::1'),
};
afterAll(async () => {
  setWebhookNetwork();
  await Promise.all(Object.values(receivers).map((receiver) => receiver.close()));
  setEnvironment({
    WEBHOOK_ALLOW_LOOPBACK: undefined,
    WEBHOOK_RETRY_DELAYS_SECONDS: undefined,
    WEBHOOK_TIMEOUT_MS: undefined,
  });
});

// biome-ignore lint/suspicious/noExplicitAny: black-box tests read arbitrary JSON bodies
type Body = any;

describe('webhooks to endpoints named by a host name, through the real connector', {
  timeout: 120_000,
}, () => {
  let admin: string;
  let analyst: string;
  beforeAll(async () => {
    const { table } = getServices();
    const made = await createTenant(table, { name: 'Host Name Bank', plan: 'enterprise' });
    admin = made.admin.api_key;
    analyst = (
      await addUser(table, made.tenant.tenant_id, {
        name: 'Ana Analyst',
        role: 'analyst',
        issuer: OPERATIONS_ISSUER,
      })
    ).api_key;
  });

  it.each(Object.entries(TEST_HOSTS))(
    'delivers to %s (resolving to %s) a test event and a decision, each once, signed and verified',
    async (host, address) => {
      const receiver = receivers[address];
      const url = `http://${host}:${receiver.port}/in`;
      const created = await adminPost('/webhooks', { url, events: ['screen.decision_awaiting_approval'] });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const { webhook_id: webhookId } = created.body.webhook;
      const secret: string = created.body.secret;

      const tested = await adminPost(`/webhooks/${webhookId}/test`);
      expect(tested.status).toBe(202);
      const screen = (await local.api.post('/screen', analyst, { name: madeUpName() })).body;
      const decided = await local.api.post(`/screens/${screen.screen_id}/dispose`, analyst, {
        disposition: 'false_positive',
        note: 'Different person',
        approval_requested: true,
      });
      expect(decided.status, JSON.stringify(decided.body)).toBe(200);

      // Both deliveries settled (succeeded, or failed after every attempt), as the log shows them.
      const log = await eventually(
        async () => (await local.api.get(`/webhooks/${webhookId}/deliveries`, admin)).body,
        (b: Body) => b.deliveries?.length === 2 && b.deliveries.every((d: Body) => d.outcome !== 'pending'),
        60_000,
      );
      expect(
        log.deliveries.map((d: Body) => ({
          event: d.event_type,
          outcome: d.outcome,
          attempts: d.attempts.map((a: Body) => a.status_code ?? a.error),
        })),
      ).toEqual(
        expect.arrayContaining([
          { event: 'webhook.test', outcome: 'succeeded', attempts: [200] },
          { event: 'screen.decision_awaiting_approval', outcome: 'succeeded', attempts: [200] },
        ]),
      );

      // What arrived: the name in the Host header, a signature that verifies with the secret.
      const arrived = receiver.on('/in');
      expect(arrived).toHaveLength(2);
      const events = arrived.map((r) => {
        expect(r.headers.host).toBe(`${host}:${receiver.port}`);
        return new Webhook(secret).verify(r.body, r.headers) as Body;
      });
      expect(events.map((e) => e.type).sort()).toEqual(['screen.decision_awaiting_approval', 'webhook.test']);
      expect(events.find((e) => e.type === 'screen.decision_awaiting_approval').data).toMatchObject({
        screen_id: screen.screen_id,
        disposition: 'false_positive',
      });
      expect(new Set(arrived.map((r) => r.headers['webhook-id']))).toEqual(
        new Set(log.deliveries.map((d: Body) => d.delivery_id)),
      );
    },
  );

  it('refuses a made-up name that does not resolve, at registration', async () => {
    const { status, body } = await adminPost('/webhooks', {
      url: 'http://nowhere.tenant.test/in',
      events: ['batch.completed'],
    });
    expect(status).toBe(400);
    expect(body.detail).toBe('url: the host nowhere.tenant.test does not resolve');
  });

  function adminPost(path: string, body?: unknown) {
    return local.api.post(path, admin, body);
  }
});
