/**
 * Issue 23, Done when: webhooks end to end on the local stack (`npm start`'s queue code on fauxqs,
 * the drain on the scheduler) with a real HTTP receiver on 127.0.0.1; every body verified with the
 * `standardwebhooks` package. Retries are shortened (two waits of 0 s) and the timeout to 2 s.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as autoRescreen } from '../../functions/schedule/auto-rescreen.ts';
import { scheduledEvent } from '../../infra/local/scheduler.ts';
import { setEnvironment } from '../../lib/common/config.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { setWebhookNetwork } from '../../lib/runtime/webhooks.ts';
import { keys } from '../../lib/store/schema.ts';
import { OPERATIONS_ISSUER } from '../../lib/tenancy/key-lineage.ts';
import { addUser, createTenant } from '../../lib/tenancy/tenants.ts';
import { madeUpName, useLocalStack } from '../support/api-client.ts';
import { eventually } from '../support/eventually.ts';
import { screenBeforeListing } from '../support/screen-before-listing.ts';
import { type Received, startReceiver } from '../support/webhook-receiver.ts';

// The timeout is short so a hanging receiver dead-letters quickly, but not so short that a
// receiver in this busy process answering a burst late counts as no answer (a retry is a second
// delivery: at 500 ms the burst below got 151 of its 150 on a loaded 2-core machine).
setEnvironment({ WEBHOOK_RETRY_DELAYS_SECONDS: '0,0', WEBHOOK_TIMEOUT_MS: '2000' });
const local = useLocalStack();
const receiver = await startReceiver({ '/flaky': [500, 500, 200], '/never': 'hang' });
afterAll(async () => {
  setWebhookNetwork();
  await receiver.close();
  setEnvironment({ WEBHOOK_RETRY_DELAYS_SECONDS: undefined, WEBHOOK_TIMEOUT_MS: undefined });
});

// biome-ignore lint/suspicious/noExplicitAny: black-box tests read arbitrary JSON bodies
type Body = any;
const ALL_EVENTS = [
  'monitoring.alert',
  'screen.decision_awaiting_approval',
  'screen.approved',
  'batch.completed',
  'rescreen_run.completed',
  'lists.updated',
];

async function bank(name: string, plan: 'starter' | 'enterprise' = 'enterprise') {
  const table = getServices().table;
  const made = await createTenant(table, { name, plan });
  const adminB = await addUser(table, made.tenant.tenant_id, {
    name: 'Bea Admin',
    role: 'admin',
    issuer: OPERATIONS_ISSUER,
  });
  const analyst = await addUser(table, made.tenant.tenant_id, {
    name: 'Olu Analyst',
    role: 'analyst',
    issuer: OPERATIONS_ISSUER,
  });
  return {
    tenantId: made.tenant.tenant_id,
    admin: made.admin.api_key,
    adminB: adminB.api_key,
    analyst: analyst.api_key,
  };
}

async function register(
  key: string,
  path: string,
  events = ALL_EVENTS,
): Promise<{ id: string; secret: string }> {
  const { status, body } = await local.api.post('/webhooks', key, { url: receiver.url(path), events });
  expect(status, JSON.stringify(body)).toBe(201);
  return { id: body.webhook.webhook_id, secret: body.secret };
}

/** The tenant's audit entries of `webhook.*` actions, oldest first. */
async function webhookEntries(key: string): Promise<Body[]> {
  const trail = await local.api.get('/audit?limit=200', key);
  expect(trail.status, JSON.stringify(trail.body)).toBe(200);
  return (trail.body.entries as Body[])
    .filter((e) => e.action.startsWith('webhook.'))
    .sort((a, b) => a.seq - b.seq);
}

/** The tenant item's count of endpoint slots taken, as stored. */
async function slotsTaken(tenantId: string): Promise<unknown> {
  const { table } = getServices();
  const { Item } = await table.doc.send(
    new GetCommand({ TableName: table.name, Key: keys.tenant(tenantId), ConsistentRead: true }),
  );
  return Item?.webhook_count;
}

const verified = (secret: string, r: Received): Body => new Webhook(secret).verify(r.body, r.headers);
const ofType = (path: string, type: string) =>
  receiver.on(path).filter((r) => JSON.parse(r.body).type === type);

describe('webhooks on the local stack', { timeout: 180_000 }, () => {
  let bankA: Awaited<ReturnType<typeof bank>>;
  let hook: { id: string; secret: string };
  beforeAll(async () => {
    bankA = await bank('Webhook Bank');
    hook = await register(bankA.admin, '/ok');
  });

  it('shows the secret once: never in a read, and sealed in the table', async () => {
    const read = await local.api.get(`/webhooks/${hook.id}`, bankA.admin);
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).not.toContain(hook.secret.slice(6, 30));
    const list = await local.api.get('/webhooks', bankA.admin);
    expect(list.body).toMatchObject({ cap: 25, webhooks: [{ webhook_id: hook.id, status: 'active' }] });
    const { Item } = await getServices().table.doc.send(
      new GetCommand({ TableName: getServices().table.name, Key: keys.webhook(bankA.tenantId, hook.id) }),
    );
    expect(JSON.stringify(Item)).not.toContain(hook.secret.slice(6, 30));
    // An analyst may not see or register endpoints.
    expect((await local.api.get('/webhooks', bankA.analyst)).status).toBe(403);
  });

  it('delivers a monitoring alert and the run’s completion, once each, signed', async () => {
    const registered = (
      await local.api.post('/clients', bankA.admin, {
        name: 'Vladimir Putin',
        dob: '1952-10-07',
        types: 'sanctions,pep',
        rescreen_interval_days: 1,
      })
    ).body;
    // The registration screen as it would have read before the listing: the re-screen then raises an alert.
    await screenBeforeListing(bankA.tenantId, registered.last_screen_id);
    await autoRescreen(scheduledEvent({ id: 'auto-rescreen' }, new Date(Date.now() + 2 * 86_400_000)));
    const [alert] = await eventually(
      async () => ofType('/ok', 'monitoring.alert'),
      (list) => list.length > 0,
    );
    const payload = verified(hook.secret, alert);
    expect(payload).toMatchObject({
      type: 'monitoring.alert',
      tenant_id: bankA.tenantId,
      data: { client_id: registered.client_id, risk_before: 'CLEAR' },
    });
    expect(payload.data.matches_added).toBeGreaterThan(0);
    expect(alert.headers['webhook-id']).toMatch(/^msg_/);
    const [run] = await eventually(
      async () => ofType('/ok', 'rescreen_run.completed'),
      (list) => list.length > 0,
    );
    expect(verified(hook.secret, run).data).toMatchObject({ total: 1 });
    // No personal data beyond ids: the client's name is not in the payload.
    expect(alert.body).not.toContain('Putin');
  });

  it('delivers a decision awaiting approval and its approval', async () => {
    const screen = (await local.api.post('/screen', bankA.analyst, { name: madeUpName() })).body;
    const decided = await local.api.post(`/screens/${screen.screen_id}/dispose`, bankA.analyst, {
      disposition: 'false_positive',
      note: 'Different person',
      approval_requested: true,
    });
    expect(decided.status).toBe(200);
    const [awaiting] = await eventually(
      async () => ofType('/ok', 'screen.decision_awaiting_approval'),
      (l) => l.length > 0,
    );
    expect(verified(hook.secret, awaiting).data).toMatchObject({
      screen_id: screen.screen_id,
      disposition: 'false_positive',
    });
    const approved = await local.api.post(`/screens/${screen.screen_id}/dispose`, bankA.adminB, {
      disposition: 'approved',
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const [signed] = await eventually(
      async () => ofType('/ok', 'screen.approved'),
      (l) => l.length > 0,
    );
    expect(verified(hook.secret, signed).data).toMatchObject({ screen_id: screen.screen_id });
  });

  it('delivers a finished batch', async () => {
    const response = await fetch(`${local.stack.url}/batch/stream`, {
      method: 'POST',
      headers: { 'x-api-key': bankA.admin, 'content-type': 'application/json' },
      body: JSON.stringify({ subjects: [{ name: madeUpName() }, { name: madeUpName() }] }),
    });
    const text = await response.text();
    const batchId = /"batch_id":"([^"]+)"/.exec(text)?.[1];
    const [done] = await eventually(
      async () => ofType('/ok', 'batch.completed'),
      (l) => l.length > 0,
    );
    expect(verified(hook.secret, done).data).toMatchObject({ batch_id: batchId, total: 2 });
  });

  it('sent each event once, with sequences that order them', async () => {
    await sleep(2_500);
    const ids = receiver.on('/ok').map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
    const sequences = receiver.on('/ok').map((r) => JSON.parse(r.body).sequence as number);
    expect(new Set(sequences).size).toBe(sequences.length);
  });

  it('retries a receiver that answers 500 twice with the same webhook-id, and logs the attempts', async () => {
    const flaky = await register(bankA.admin, '/flaky', ['batch.completed']);
    expect((await local.api.post(`/webhooks/${flaky.id}/test`, bankA.admin)).status).toBe(202);
    const got = await eventually(
      async () => receiver.on('/flaky'),
      (l) => l.length >= 3,
    );
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const r of got) verified(flaky.secret, r);
    const log = await eventually(
      async () => (await local.api.get(`/webhooks/${flaky.id}/deliveries`, bankA.admin)).body,
      (b: Body) => b.deliveries?.[0]?.outcome === 'succeeded',
    );
    expect(log.deliveries[0].attempts.map((a: Body) => a.status_code)).toEqual([500, 500, 200]);
    expect(log.deliveries[0].delivery_id).toBe(got[0].headers['webhook-id']);
    // Filtered by outcome, and replayed with the same id.
    expect(
      (await local.api.get(`/webhooks/${flaky.id}/deliveries?outcome=failed`, bankA.admin)).body.deliveries,
    ).toEqual([]);
    const replay = await local.api.post(
      `/webhooks/${flaky.id}/deliveries/${log.deliveries[0].delivery_id}/replay`,
      bankA.admin,
    );
    expect(replay.status).toBe(202);
    const again = await eventually(
      async () => receiver.on('/flaky'),
      (l) => l.length >= 4,
    );
    expect(again[3].headers['webhook-id']).toBe(got[0].headers['webhook-id']);
    // The test event and the replay are each on the audit trail (issue 35, item 4); a replay of a
    // delivery the endpoint does not have is a 404, writes nothing, and is one `refused` entry.
    const missing = await local.api.post(
      `/webhooks/${flaky.id}/deliveries/no-such-delivery/replay`,
      bankA.admin,
    );
    expect(missing.status).toBe(404);
    const trail: Body[] = (await local.api.get('/audit?limit=50', bankA.admin)).body.entries;
    const of = (action: string, outcome: string) =>
      trail.filter((entry) => entry.action === action && entry.outcome === outcome);
    expect(of('webhook.test', 'done').some((entry) => entry.details.webhook_id === flaky.id)).toBe(true);
    expect(of('webhook.replay', 'done')).toContainEqual(
      expect.objectContaining({
        details: expect.objectContaining({
          webhook_id: flaky.id,
          delivery_id: log.deliveries[0].delivery_id,
          replays: 1,
        }),
      }),
    );
    expect(of('webhook.replay', 'refused')).toContainEqual(
      expect.objectContaining({ details: expect.objectContaining({ delivery_id: 'no-such-delivery' }) }),
    );
  });

  it('delivers a burst of 150 test events on one endpoint once each, and empties the outbox', async () => {
    // All on one item. The drain's removal once named every drained id (over DynamoDB's 4 KB
    // expression limit for a burst), then removed list elements by index (wrong elements on
    // dynalite, the local store of the time: 60 of these 150 were dropped from the outbox unsent).
    const burst = await register(bankA.admin, '/burst', ['batch.completed']);
    const sent: string[] = [];
    for (let i = 0; i < 150; i += 10) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => local.api.post(`/webhooks/${burst.id}/test`, bankA.admin)),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(202);
        sent.push(answer.body.event_id);
      }
    }
    await eventually(
      async () => receiver.on('/burst').length,
      (n) => n >= 150,
      60_000,
    );
    const { table } = getServices();
    const key = keys.webhook(bankA.tenantId, burst.id);
    await eventually(
      async () =>
        (await table.doc.send(new GetCommand({ TableName: table.name, Key: key }))).Item?.webhook_events
          ?.length ?? 0,
      (waiting) => waiting === 0,
      30_000,
    );
    // Two more drain passes: nothing is sent again.
    await sleep(2_500);
    const events = receiver.on('/burst').map((r) => verified(burst.secret, r).event_id);
    expect(events).toHaveLength(150);
    expect(new Set(receiver.on('/burst').map((r) => r.headers['webhook-id'])).size).toBe(150);
    expect(new Set(events)).toEqual(new Set(sent));
  });

  it('dead-letters a receiver that never answers and marks the endpoint failing', async () => {
    const never = await register(bankA.admin, '/never', ['batch.completed']);
    await local.api.post(`/webhooks/${never.id}/test`, bankA.admin);
    const endpoint = await eventually(
      async () => (await local.api.get(`/webhooks/${never.id}`, bankA.admin)).body.webhook,
      (w: Body) => w.status === 'failing',
      60_000,
    );
    expect(endpoint.failing_since).toBeTruthy();
    const dead = await eventually(
      () => local.stack.webhookQueue.deadLetterBodies(),
      (bodies) => bodies.some((b) => JSON.parse(b).webhook_id === never.id),
      30_000,
    );
    expect(dead.length).toBeGreaterThan(0);
    const log = (await local.api.get(`/webhooks/${never.id}/deliveries?outcome=failed`, bankA.admin)).body;
    expect(log.deliveries[0].attempts).toHaveLength(3);
    expect(log.deliveries[0].attempts[0].error).toMatch(/no answer within 2000 ms/);
  });

  it('signs with both secrets during a rotation’s overlap', async () => {
    const rotated = (
      await local.api.post(`/webhooks/${hook.id}/rotate-secret`, bankA.admin, { overlap_hours: 1 })
    ).body;
    expect(rotated.previous_secret_expires_at).toBeTruthy();
    const before = ofType('/ok', 'webhook.test').length;
    await local.api.post(`/webhooks/${hook.id}/test`, bankA.admin);
    const tests = await eventually(
      async () => ofType('/ok', 'webhook.test'),
      (l) => l.length > before,
    );
    const sent = tests.at(-1) as Received;
    expect(sent.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verified(hook.secret, sent).type).toBe('webhook.test');
    expect(verified(rotated.secret, sent).type).toBe('webhook.test');
  });

  it('refuses a private address at registration, before any connection', async () => {
    for (const url of [
      'https://10.0.0.1/hook',
      'https://169.254.169.254/latest',
      'http://[fd00:ec2::254]/',
      'https://192.168.1.1/',
    ]) {
      const { status, body } = await local.api.post('/webhooks', bankA.admin, {
        url,
        events: ['batch.completed'],
      });
      expect(status, url).toBe(400);
      expect(body.detail).toMatch(/url:/);
    }
  });

  it('refuses at delivery a name that now resolves to a private address (DNS rebinding), never connecting', async () => {
    let answer = '93.184.216.34';
    const connections: string[] = [];
    setWebhookNetwork({
      resolve: async () => [{ address: answer, family: 4 }],
      connect: async (target) => {
        connections.push(target.address.address);
        return { status: 200, body: '' };
      },
    });
    try {
      const created = await local.api.post('/webhooks', bankA.admin, {
        url: 'https://hooks.example.test/in',
        events: ['batch.completed'],
      });
      expect(created.status).toBe(201);
      answer = '10.1.2.3';
      await local.api.post(`/webhooks/${created.body.webhook.webhook_id}/test`, bankA.admin);
      const log = await eventually(
        async () =>
          (await local.api.get(`/webhooks/${created.body.webhook.webhook_id}/deliveries`, bankA.admin)).body,
        (b: Body) => b.deliveries?.[0]?.outcome === 'failed',
      );
      expect(log.deliveries[0].attempts[0]).toMatchObject({ outcome: 'refused', status_code: null });
      expect(log.deliveries[0].attempts[0].error).toMatch(/10\.1\.2\.3/);
      expect(connections).toEqual([]);
    } finally {
      setWebhookNetwork();
    }
  });

  it('records each admin change to an endpoint in the audit trail, without its secret', async () => {
    const bankC = await bank('Audited Bank');
    const made = await register(bankC.admin, '/audited', ['batch.completed']);
    expect(
      (await local.api.patch(`/webhooks/${made.id}`, bankC.admin, { events: ['lists.updated'] })).status,
    ).toBe(200);
    const rotated = await local.api.post(`/webhooks/${made.id}/rotate-secret`, bankC.admin, {});
    expect(rotated.status).toBe(200);
    const tested = await local.api.post(`/webhooks/${made.id}/test`, bankC.admin);
    expect(tested.status).toBe(202);
    expect((await local.api.delete(`/webhooks/${made.id}`, bankC.admin)).status).toBe(200);
    // Each change and its entry are one transaction: one `done` entry each, no `started` before it.
    const entries = await webhookEntries(bankC.admin);
    expect(entries.map((e) => [e.action, e.outcome, e.details.webhook_id])).toEqual([
      ['webhook.create', 'done', made.id],
      ['webhook.update', 'done', made.id],
      ['webhook.rotate-secret', 'done', made.id],
      ['webhook.test', 'done', made.id],
      ['webhook.delete', 'done', made.id],
    ]);
    // What was asked and what changed, on the one entry.
    expect(entries[0].details).toMatchObject({
      host: new URL(receiver.url('/')).host,
      events: 'batch.completed',
    });
    expect(entries[1].details).toMatchObject({ events: 'lists.updated', updated_at: expect.any(String) });
    expect(entries[2].details).toMatchObject({
      overlap_hours: 24,
      previous_secret_expires_at: rotated.body.previous_secret_expires_at,
    });
    expect(entries[3].details.event_id).toBe(tested.body.event_id);
    const trail = await local.api.get('/audit', bankC.admin);
    const text = JSON.stringify(trail.body);
    expect(text).not.toContain(made.secret.slice(6, 30));
    expect(text).not.toContain(rotated.body.secret.slice(6, 30));
    expect(text).not.toContain('/audited');
  });

  it('a refused endpoint change writes nothing and is one `refused` entry; a change is one `done` entry', async () => {
    // Starter: one endpoint. Three registrations at once: the slot and the endpoint are one
    // transaction with the entry, so exactly one lands and the others leave no endpoint behind.
    const bankS = await bank('Starter Webhook Bank', 'starter');
    const answers = await Promise.all(
      ['/s1', '/s2', '/s3'].map((path) =>
        local.api.post('/webhooks', bankS.admin, { url: receiver.url(path), events: ['batch.completed'] }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    const made = answers.find((a) => a.status === 201)?.body.webhook.webhook_id as string;
    const refusal = answers.find((a) => a.status === 409)?.body.detail;
    expect(refusal).toBe('Your plan (Starter) allows 1 webhook endpoint; delete one or change plan');
    expect(await slotsTaken(bankS.tenantId)).toBe(1);
    const listed = (await local.api.get('/webhooks', bankS.admin)).body.webhooks as Body[];
    expect(listed.map((w) => w.webhook_id)).toEqual([made]);
    let entries = await webhookEntries(bankS.admin);
    expect(entries.map((e) => [e.action, e.outcome])).toEqual([
      ['webhook.create', 'done'],
      ['webhook.create', 'refused'],
      ['webhook.create', 'refused'],
    ]);
    expect(entries[0].details.webhook_id).toBe(made);
    for (const refused of entries.slice(1)) {
      expect(refused.outcome_detail).toBe(refusal);
      expect(refused.details.webhook_id).toBeUndefined();
    }

    // Deleted once, then again: the second is a 404 that frees no slot (the count stays 0, not -1).
    expect((await local.api.delete(`/webhooks/${made}`, bankS.admin)).status).toBe(200);
    expect(await slotsTaken(bankS.tenantId)).toBe(0);
    const again = await local.api.delete(`/webhooks/${made}`, bankS.admin);
    expect(again.status).toBe(404);
    expect(again.body.detail).toBe(`No webhook ${made} in your tenant`);
    expect(await slotsTaken(bankS.tenantId)).toBe(0);
    // A test event to the deleted endpoint: a 404 that writes no item.
    expect((await local.api.post(`/webhooks/${made}/test`, bankS.admin)).status).toBe(404);
    const { table } = getServices();
    const { Item } = await table.doc.send(
      new GetCommand({
        TableName: table.name,
        Key: keys.webhook(bankS.tenantId, made),
        ConsistentRead: true,
      }),
    );
    expect(Item).toBeUndefined();
    entries = await webhookEntries(bankS.admin);
    expect(entries.slice(3).map((e) => [e.action, e.outcome, e.outcome_detail ?? null])).toEqual([
      ['webhook.delete', 'done', null],
      ['webhook.delete', 'refused', `No webhook ${made} in your tenant`],
      ['webhook.test', 'refused', `No webhook ${made} in your tenant`],
    ]);
    // The freed slot takes a new endpoint.
    await register(bankS.admin, '/s4', ['batch.completed']);
    expect(await slotsTaken(bankS.tenantId)).toBe(1);
    expect((await webhookEntries(bankS.admin)).filter((e) => e.outcome === 'started')).toEqual([]);
  });

  it('answers a URL that is not one with a 400, recorded as refused', async () => {
    const bankU = await bank('Unparsed URL Bank');
    const { status, body } = await local.api.post('/webhooks', bankU.admin, {
      url: 'not a url',
      events: ['batch.completed'],
    });
    expect(status, JSON.stringify(body)).toBe(400);
    const entries = await webhookEntries(bankU.admin);
    expect(entries.map((e) => [e.action, e.outcome, e.details.host])).toEqual([
      ['webhook.create', 'refused', null],
    ]);
    expect(entries[0].outcome_detail).toBe(body.detail);
  });

  it('keeps tenants apart', async () => {
    const other = await bank('Other Bank');
    expect((await local.api.get(`/webhooks/${hook.id}`, other.admin)).status).toBe(404);
    expect((await local.api.get(`/webhooks/${hook.id}/deliveries`, other.admin)).status).toBe(404);
  });
});
