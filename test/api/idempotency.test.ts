import { randomUUID } from 'node:crypto';
import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { getServices } from '../../lib/runtime/services.ts';
import { getMonthlyUsage } from '../../lib/tenancy/quota.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { madeUpName, useLocalStack } from '../support/api-client.ts';

const local = useLocalStack();

async function freshTenant(plan: 'growth' | 'starter' = 'growth') {
  const { tenant, admin } = await createTenant(getServices().table, { name: 'Idempotency Bank', plan });
  return { tenantId: tenant.tenant_id, key: admin.api_key };
}
const usage = (tenantId: string) => getMonthlyUsage(getServices().table, tenantId);

describe('Idempotency-Key on POST /screen', () => {
  it('returns the first response to a repeat with the same key and body, charging once', async () => {
    const { tenantId, key } = await freshTenant();
    const idempotencyKey = randomUUID();
    const body = { name: madeUpName(), force: true };

    const first = await local.api.post('/screen', key, body, { 'idempotency-key': idempotencyKey });
    const repeat = await local.api.post(
      '/screen',
      key,
      { force: true, name: body.name },
      { 'idempotency-key': idempotencyKey },
    );

    expect(first.status).toBe(200);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual(first.body);
    expect(await usage(tenantId)).toBe(1);
    expect((await local.api.get('/screens', key)).body.screens).toHaveLength(1);
  });

  it('refuses the same key with another body with 422, doing nothing', async () => {
    const { tenantId, key } = await freshTenant();
    const idempotencyKey = randomUUID();
    await local.api.post('/screen', key, { name: madeUpName() }, { 'idempotency-key': idempotencyKey });

    const other = await local.api.post(
      '/screen',
      key,
      { name: madeUpName() },
      { 'idempotency-key': idempotencyKey },
    );

    expect(other.status).toBe(422);
    expect(other.body.detail).toMatch(/Idempotency-Key was already used with a different request body/);
    expect(await usage(tenantId)).toBe(1);
  });

  it('runs concurrent repeats once: the others get the first response or a 409 to retry', async () => {
    const { tenantId, key } = await freshTenant();
    const idempotencyKey = randomUUID();
    const body = { name: madeUpName(), force: true };

    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        local.api.post('/screen', key, body, { 'idempotency-key': idempotencyKey }),
      ),
    );

    expect(results.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    expect(new Set(results.filter((r) => r.status === 200).map((r) => r.body.screen_id)).size).toBe(1);
    expect(await usage(tenantId)).toBe(1);
  });

  it('forgets a first request that failed, so the key can be retried', async () => {
    const { key } = await freshTenant();
    const idempotencyKey = randomUUID();

    const refused = await local.api.post(
      '/screen',
      key,
      { name: 'x' },
      { 'idempotency-key': idempotencyKey },
    );
    const retried = await local.api.post(
      '/screen',
      key,
      { name: 'x' },
      { 'idempotency-key': idempotencyKey },
    );

    expect(refused.status).toBe(400);
    expect(retried.status).toBe(400);
    expect(retried.body.detail).toMatch(/^name:/);
  });

  it('keeps keys per tenant: the same key elsewhere is another request', async () => {
    const a = await freshTenant();
    const b = await freshTenant();
    const idempotencyKey = randomUUID();

    await local.api.post('/screen', a.key, { name: madeUpName() }, { 'idempotency-key': idempotencyKey });
    const name = madeUpName();
    const elsewhere = await local.api.post('/screen', b.key, { name }, { 'idempotency-key': idempotencyKey });

    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.subject.name).toBe(name);
    expect(await usage(b.tenantId)).toBe(1);
  });

  it('never replays a screen deleted since: 410 naming the screen, nothing screened or charged again', async () => {
    const { tenantId, key } = await freshTenant();
    const idempotencyKey = randomUUID();
    const body = { name: madeUpName(), dob: '1971-04-02', nationality: 'Icelandic', force: true };
    const first = await local.api.post('/screen', key, body, { 'idempotency-key': idempotencyKey });
    expect((await local.api.delete(`/screens/${first.body.screen_id}`, key)).status).toBe(200);

    const repeat = await local.api.post('/screen', key, body, { 'idempotency-key': idempotencyKey });

    expect(repeat.status).toBe(410);
    expect(repeat.body.detail).toContain(first.body.screen_id);
    expect(repeat.body.detail).toMatch(/deleted/);
    expect(JSON.stringify(repeat.body)).not.toContain(body.name);
    expect(await usage(tenantId)).toBe(1);
    expect((await local.api.get('/screens', key)).body.screens).toHaveLength(0);
    const again = await local.api.post('/screen', key, body, { 'idempotency-key': idempotencyKey });
    expect(again.status).toBe(410);
    expect(JSON.stringify(again.body)).not.toContain(body.name);
    const otherBody = await local.api.post(
      '/screen',
      key,
      { name: madeUpName() },
      { 'idempotency-key': idempotencyKey },
    );
    expect(otherBody.status).toBe(422);
  });

  it('never replays a cached screen deleted since, either', async () => {
    const { key } = await freshTenant();
    const body = { name: madeUpName() };
    const screened = await local.api.post('/screen', key, body);
    const idempotencyKey = randomUUID();
    const cached = await local.api.post('/screen', key, body, { 'idempotency-key': idempotencyKey });
    expect(cached.body).toMatchObject({ screen_id: screened.body.screen_id, skipped: true });
    await local.api.delete(`/screens/${screened.body.screen_id}`, key);

    const repeat = await local.api.post('/screen', key, body, { 'idempotency-key': idempotencyKey });

    expect(repeat.status).toBe(410);
    expect(repeat.body.detail).toContain(screened.body.screen_id);
  });

  it('refuses a malformed key with 400 naming the header', async () => {
    const { key } = await freshTenant();

    const response = await local.api.post(
      '/screen',
      key,
      { name: madeUpName() },
      { 'idempotency-key': 'has spaces in it' },
    );

    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/^Idempotency-Key:/);
  });
});

describe('Idempotency-Key on the batch streams', () => {
  async function streamEvents(key: string, body: unknown, idempotencyKey: string, path = '/batch/stream') {
    const response = await fetch(`${local.stack.url}${path}`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    const events: { event: string; data: Record<string, unknown> }[] = [];
    const parser = createParser({
      onEvent: (message) =>
        events.push({ event: message.event ?? 'message', data: JSON.parse(message.data) }),
    });
    const decoder = new TextDecoder();
    for await (const chunk of response.body!)
      parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
    return events;
  }

  it('streams the first batch again to a repeat, charging and screening it once', async () => {
    const { tenantId, key } = await freshTenant();
    const idempotencyKey = randomUUID();
    const body = { subjects: [{ name: madeUpName() }, { name: madeUpName() }] };

    const first = await streamEvents(key, body, idempotencyKey);
    const repeat = await streamEvents(key, body, idempotencyKey);

    expect(repeat[0].data.batch_id).toBe(first[0].data.batch_id);
    expect(repeat.filter((e) => e.event === 'progress')).toHaveLength(2);
    expect(repeat.at(-1)).toMatchObject({ event: 'complete', data: { total: 2, completed: 2, failed: 0 } });
    expect(await usage(tenantId)).toBe(2);
    expect((await local.api.get('/screens', key)).body.screens).toHaveLength(2);
    const changed = await local.api.post(
      '/batch/stream',
      key,
      { subjects: [{ name: madeUpName() }] },
      {
        'idempotency-key': idempotencyKey,
      },
    );
    expect(changed.status).toBe(422);
  });

  it('registers a client batch once: a repeat streams the first batch again, a changed body is 422', async () => {
    const { tenantId, key } = await freshTenant();
    const idempotencyKey = randomUUID();
    const body = { subjects: [{ name: madeUpName(), reference: `IDEM-${idempotencyKey}` }] };

    const first = await streamEvents(key, body, idempotencyKey, '/batch/clients/stream');
    const repeat = await streamEvents(key, body, idempotencyKey, '/batch/clients/stream');
    const changed = await local.api.post(
      '/batch/clients/stream',
      key,
      { subjects: [{ name: madeUpName() }] },
      { 'idempotency-key': idempotencyKey },
    );

    expect(repeat[0].data.batch_id).toBe(first[0].data.batch_id);
    expect(repeat.at(-1)).toMatchObject({ event: 'complete', data: { total: 1, completed: 1, failed: 0 } });
    expect(await usage(tenantId)).toBe(1);
    expect((await local.api.get('/clients', key)).body.clients).toHaveLength(1);
    expect(changed.status).toBe(422);
    expect(changed.body.detail).toMatch(/^Idempotency-Key was already used with a different request body/);
  });
});
