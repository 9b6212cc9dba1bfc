import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../lib/common/errors.ts';
import { outboxEvent } from '../../lib/outbox/outbox.ts';
import { keys } from '../../lib/store/schema.ts';
import type { Table } from '../../lib/store/table.ts';
import { sendWrite, transact } from '../../lib/store/write.ts';
import { createTenantItem } from '../../lib/tenancy/tenant-table.ts';
import {
  listWebhookItems,
  nextWebhookSequence,
  readWebhookItem,
  recordDeadLettered,
  type WebhookItem,
  webhookWrites,
} from '../../lib/webhooks/webhook-table.ts';
import { readItem, startTestStore, type TestStore } from '../support/dynamo.ts';

/**
 * The webhook endpoint item, its slot of the plan's cap on the tenant item, and the tenant's event
 * sequence on DynamoDB Local: the cap's last slot taken once, a PATCH or a rotation refused once
 * the endpoint changed, a deleted endpoint answered 404.
 */
/** A PATCH's write sent alone, and the endpoint as it left it (endpoints.ts joins it with its audit entry). */
async function changeWebhookItem(table: Table, ...change: Parameters<typeof webhookWrites.change>) {
  await sendWrite(table, webhookWrites.change(...change));
  return readWebhookItem(table, change[0], change[1]);
}

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store?.close());

const CREATED = '2026-12-01T12:00:00.000Z';
const LATER = '2026-12-01T13:00:00.000Z';
let tenants = 0;

/** A tenant of its own per test, with its tenant item (the cap is counted on it). */
async function newTenant(): Promise<string> {
  const tenantId = `twebhook${++tenants}`;
  await createTenantItem(store.table, {
    tenant_id: tenantId,
    name: tenantId,
    plan: 'growth',
    analyst_count: 0,
    created_at: CREATED,
  });
  return tenantId;
}

function endpointOf(tenantId: string, webhookId = 'whk_0000000000000001'): WebhookItem {
  return {
    entity: 'webhook',
    tenant_id: tenantId,
    webhook_id: webhookId,
    url: 'https://hooks.example.com/screening',
    events: ['screen.completed'],
    description: 'Case system',
    enabled: true,
    secrets: [{ sealed: 'sealed-secret', created_at: CREATED, expires_at: null }],
    created_at: CREATED,
    created_by: 'u1',
    updated_at: CREATED,
    failing_since: null,
    disabled_reason: null,
    last_success_at: null,
    last_failure_at: null,
  };
}

async function newEndpoint() {
  const tenantId = await newTenant();
  const endpoint = endpointOf(tenantId);
  await sendWrite(store.table, webhookWrites.create(endpoint));
  return endpoint;
}

const stored = (endpoint: WebhookItem) =>
  readItem(store.table, keys.webhook(endpoint.tenant_id, endpoint.webhook_id));
const slotsTaken = async (tenantId: string) =>
  (await readItem(store.table, keys.tenant(tenantId)))?.webhook_count;
const CAP_REFUSAL = 'Your plan (Growth) allows 3 webhook endpoints; delete one or change plan';

describe('an endpoint as written', () => {
  it('reads back parsed, alone and in the list of its tenant', async () => {
    const endpoint = await newEndpoint();

    expect(await readWebhookItem(store.table, endpoint.tenant_id, endpoint.webhook_id)).toEqual(endpoint);
    expect(await listWebhookItems(store.table, endpoint.tenant_id)).toEqual([endpoint]);
  });

  it('is never written over by a second one with its id', async () => {
    const endpoint = await newEndpoint();
    const before = await stored(endpoint);

    await expect(
      sendWrite(store.table, webhookWrites.create({ ...endpoint, url: 'https://evil.example.com' })),
    ).rejects.toThrow(`Webhook ${endpoint.webhook_id} already exists`);
    expect(await stored(endpoint)).toEqual(before);
  });
});

describe("the plan's cap", () => {
  it('refuses a slot past the cap with a 409 naming the plan, counting nothing', async () => {
    const tenantId = await newTenant();
    for (let i = 0; i < 3; i++) await sendWrite(store.table, webhookWrites.takeSlot(tenantId, 3, 'Growth'));

    const refusal = sendWrite(store.table, webhookWrites.takeSlot(tenantId, 3, 'Growth'));

    await expect(refusal).rejects.toThrow(CAP_REFUSAL);
    await expect(refusal).rejects.toBeInstanceOf(ConflictError);
    expect(await slotsTaken(tenantId)).toBe(3);
  });

  it('gives a slot back when an endpoint is deleted', async () => {
    const tenantId = await newTenant();
    for (let i = 0; i < 3; i++) await sendWrite(store.table, webhookWrites.takeSlot(tenantId, 3, 'Growth'));

    await sendWrite(store.table, webhookWrites.freeSlot(tenantId));

    await sendWrite(store.table, webhookWrites.takeSlot(tenantId, 3, 'Growth'));
    expect(await slotsTaken(tenantId)).toBe(3);
  });

  it('refuses a tenant that has no tenant item, creating none', async () => {
    await expect(sendWrite(store.table, webhookWrites.takeSlot('tnobody', 3, 'Growth'))).rejects.toThrow(
      CAP_REFUSAL,
    );
    expect(await readItem(store.table, keys.tenant('tnobody'))).toBeUndefined();
  });

  it('lets exactly 3 of 20 concurrent registrations take a slot of a cap of 3', async () => {
    const tenantId = await newTenant();

    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () => sendWrite(store.table, webhookWrites.takeSlot(tenantId, 3, 'Growth'))),
    );

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    for (const refused of outcomes.filter((o) => o.status === 'rejected'))
      expect((refused as PromiseRejectedResult).reason).toMatchObject({ detail: CAP_REFUSAL });
    expect(await slotsTaken(tenantId)).toBe(3);
  });
});

describe('a change (PATCH)', () => {
  it('applies to the endpoint as read and returns it as it left it', async () => {
    const endpoint = await newEndpoint();

    const changed = await changeWebhookItem(
      store.table,
      endpoint.tenant_id,
      endpoint.webhook_id,
      CREATED,
      { url: 'https://hooks.example.com/v2', events: ['screen.completed', 'batch.completed'] },
      LATER,
    );

    expect(changed).toEqual({
      ...endpoint,
      url: 'https://hooks.example.com/v2',
      events: ['screen.completed', 'batch.completed'],
      updated_at: LATER,
    });
    expect(await readWebhookItem(store.table, endpoint.tenant_id, endpoint.webhook_id)).toEqual(changed);
  });

  it('that enables the endpoint clears its failing state', async () => {
    const endpoint = await newEndpoint();
    await recordDeadLettered(store.table, endpoint, CREATED);
    await sendWrite(store.table, webhookWrites.disable(endpoint, 'Failing for 72 hours'));

    const changed = await changeWebhookItem(
      store.table,
      endpoint.tenant_id,
      endpoint.webhook_id,
      CREATED,
      { enabled: true },
      LATER,
    );

    expect(changed).toMatchObject({ enabled: true, failing_since: null, disabled_reason: null });
  });

  it('is refused with a 409 once the endpoint changed since it was read, which keeps the other change', async () => {
    const endpoint = await newEndpoint();
    await changeWebhookItem(
      store.table,
      endpoint.tenant_id,
      endpoint.webhook_id,
      CREATED,
      { description: 'First' },
      LATER,
    );
    const before = await stored(endpoint);

    const refusal = changeWebhookItem(
      store.table,
      endpoint.tenant_id,
      endpoint.webhook_id,
      CREATED,
      { description: 'Second' },
      LATER,
    );

    await expect(refusal).rejects.toBeInstanceOf(ConflictError);
    await expect(refusal).rejects.toThrow(`Webhook ${endpoint.webhook_id} changed meanwhile; read it again`);
    expect(await stored(endpoint)).toEqual(before);
  });

  it('is refused with a 409 on a deleted endpoint, creating nothing', async () => {
    const endpoint = await newEndpoint();
    await sendWrite(store.table, webhookWrites.remove(endpoint.tenant_id, endpoint.webhook_id));

    const refusal = changeWebhookItem(
      store.table,
      endpoint.tenant_id,
      endpoint.webhook_id,
      CREATED,
      { description: 'Late' },
      LATER,
    );

    await expect(refusal).rejects.toBeInstanceOf(ConflictError);
    expect(await stored(endpoint)).toBeUndefined();
  });

  it('is applied once when 10 PATCHes read the same endpoint and send at once', async () => {
    const endpoint = await newEndpoint();

    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        changeWebhookItem(
          store.table,
          endpoint.tenant_id,
          endpoint.webhook_id,
          CREATED,
          { description: `Change ${i}` },
          `2026-12-01T13:00:0${i}.000Z`,
        ),
      ),
    );

    const applied = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect(applied).toHaveLength(1);
    for (const refused of outcomes.filter((o) => o.status === 'rejected'))
      expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(ConflictError);
    expect(await readWebhookItem(store.table, endpoint.tenant_id, endpoint.webhook_id)).toEqual(applied[0]);
  });
});

describe('a secret rotation', () => {
  it('replaces the secrets of the endpoint as read, and is refused with a 409 once it changed', async () => {
    const endpoint = await newEndpoint();
    const secrets = [...endpoint.secrets, { sealed: 'sealed-next', created_at: LATER, expires_at: null }];

    await sendWrite(
      store.table,
      webhookWrites.rotateSecrets(endpoint.tenant_id, endpoint.webhook_id, CREATED, secrets, LATER),
    );
    const again = sendWrite(
      store.table,
      webhookWrites.rotateSecrets(endpoint.tenant_id, endpoint.webhook_id, CREATED, [], LATER),
    );

    await expect(again).rejects.toThrow(`Webhook ${endpoint.webhook_id} changed meanwhile; rotate again`);
    expect(await readWebhookItem(store.table, endpoint.tenant_id, endpoint.webhook_id)).toMatchObject({
      secrets,
      updated_at: LATER,
    });
  });
});

describe('deleting an endpoint', () => {
  it('removes it, and a second delete is a 404', async () => {
    const endpoint = await newEndpoint();

    await sendWrite(store.table, webhookWrites.remove(endpoint.tenant_id, endpoint.webhook_id));
    const again = sendWrite(store.table, webhookWrites.remove(endpoint.tenant_id, endpoint.webhook_id));

    await expect(again).rejects.toBeInstanceOf(NotFoundError);
    await expect(again).rejects.toThrow(`No webhook ${endpoint.webhook_id} in your tenant`);
    expect(await listWebhookItems(store.table, endpoint.tenant_id)).toEqual([]);
  });
});

describe('a test event appended to an endpoint', () => {
  it('is carried by the endpoint item, and a 404 on an endpoint that is not there, creating nothing', async () => {
    const endpoint = await newEndpoint();
    const event = outboxEvent('webhook.test', endpoint.tenant_id, { webhook_id: endpoint.webhook_id });

    await sendWrite(
      store.table,
      webhookWrites.appendEvents(endpoint.tenant_id, endpoint.webhook_id, [event]),
    );
    const missing = sendWrite(
      store.table,
      webhookWrites.appendEvents(endpoint.tenant_id, 'whk_0000000000000009', [event]),
    );

    await expect(missing).rejects.toBeInstanceOf(NotFoundError);
    expect((await stored(endpoint))?.webhook_events).toEqual([event]);
    expect(
      await readItem(store.table, keys.webhook(endpoint.tenant_id, 'whk_0000000000000009')),
    ).toBeUndefined();
  });
});

describe("an endpoint's delivery state", () => {
  it('keeps failing since its first dead-lettered delivery, until a success clears it', async () => {
    const endpoint = await newEndpoint();

    // Stored as null (a new endpoint, or a success), which if_not_exists keeps: the caller sets it.
    const first = await recordDeadLettered(store.table, endpoint, CREATED);
    await sendWrite(store.table, webhookWrites.failingSince(endpoint, CREATED));
    const second = await recordDeadLettered(store.table, endpoint, LATER);
    await sendWrite(store.table, webhookWrites.succeeded(endpoint, LATER));
    const afterSuccess = await recordDeadLettered(store.table, endpoint, LATER);

    expect([first, second, afterSuccess]).toEqual([null, CREATED, null]);
    expect(await stored(endpoint)).toMatchObject({
      dead_lettered: 3,
      last_success_at: LATER,
      last_failure_at: LATER,
    });
  });

  it('is disabled once, with its reason; a second disable is refused and keeps the first reason', async () => {
    const endpoint = await newEndpoint();

    await sendWrite(store.table, webhookWrites.disable(endpoint, 'First reason'));
    const again = sendWrite(store.table, webhookWrites.disable(endpoint, 'Second reason'));

    await expect(again).rejects.toBeInstanceOf(ConflictError);
    expect(await readWebhookItem(store.table, endpoint.tenant_id, endpoint.webhook_id)).toMatchObject({
      enabled: false,
      disabled_reason: 'First reason',
    });
  });

  it('is not recorded on a deleted endpoint, which stays deleted', async () => {
    const endpoint = await newEndpoint();
    await sendWrite(store.table, webhookWrites.remove(endpoint.tenant_id, endpoint.webhook_id));

    await expect(sendWrite(store.table, webhookWrites.succeeded(endpoint, LATER))).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(recordDeadLettered(store.table, endpoint, LATER)).rejects.toBeInstanceOf(ConflictError);
    // The second write of a dead letter, when a success had cleared failing_since: it once created
    // a stub of the endpoint that no reader could parse (GET /webhooks and the drain then failed).
    await expect(sendWrite(store.table, webhookWrites.failingSince(endpoint, LATER))).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(await stored(endpoint)).toBeUndefined();
    expect(await listWebhookItems(store.table, endpoint.tenant_id)).toEqual([]);
  });
});

describe("the tenant's event sequence", () => {
  it('gives 20 concurrent drains 20 distinct numbers from 1', async () => {
    const tenantId = await newTenant();

    const numbers = await Promise.all(
      Array.from({ length: 20 }, () => nextWebhookSequence(store.table, tenantId)),
    );

    expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await readItem(store.table, keys.webhookSequence(tenantId))).toMatchObject({
      entity: 'webhook-seq',
      sequence: 20,
    });
  });
});

describe('in a transaction', () => {
  it('stores neither the slot nor the endpoint when the cap is full', async () => {
    const tenantId = await newTenant();
    for (let i = 0; i < 3; i++) await sendWrite(store.table, webhookWrites.takeSlot(tenantId, 3, 'Growth'));
    const endpoint = endpointOf(tenantId, 'whk_0000000000000004');

    const refusal = transact(store.table, [
      webhookWrites.takeSlot(tenantId, 3, 'Growth'),
      webhookWrites.create(endpoint),
    ]);

    await expect(refusal).rejects.toThrow(CAP_REFUSAL);
    expect(await slotsTaken(tenantId)).toBe(3);
    expect(await stored(endpoint)).toBeUndefined();
  });
});
