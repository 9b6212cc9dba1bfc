import { createParser } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import type { BatchItemSubject } from '../../lib/batch/batch-table.ts';
import { startBatch } from '../../lib/batch/start-batch.ts';
import { logger } from '../../lib/common/log.ts';
import { encodeJob } from '../../lib/jobs/kinds.ts';
import { createQueueWorker } from '../../lib/jobs/queue-worker.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { PLANS } from '../../lib/tenancy/plans.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { CHECK_TYPES } from '../../lib/watchlists/types.ts';
import { madeUpName, useLocalServer } from '../support/api-client.ts';
import { failOnce } from '../support/flaky-table.ts';
import { sqsRecord } from '../support/sqs-record.ts';
import { readEvents } from '../support/sse.ts';

const local = useLocalServer();

interface SseEvent {
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: black-box tests read arbitrary JSON payloads
  data: any;
}

async function postStream(
  key: string,
  body: unknown,
): Promise<{ status: number; events: SseEvent[]; json?: unknown }> {
  const response = await fetch(`${local.stack.url}/batch/clients/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return { status: response.status, events: [], json: await response.json() };
  }
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (message) => events.push({ event: message.event ?? 'message', data: JSON.parse(message.data) }),
  });
  const decoder = new TextDecoder();
  for await (const chunk of response.body!)
    parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
  return { status: response.status, events };
}

async function tenantKey(plan: 'starter' | 'growth') {
  const { admin } = await createTenant(getServices().table, { name: `Batch clients ${plan}`, plan });
  return admin.api_key;
}

describe('POST /batch/clients/stream', () => {
  it('registers every subject as a client; progress carries client_id; a taken reference is an error event, not charged', async () => {
    const key = await tenantKey('growth');
    const existing = (await local.api.post('/clients', key, { name: madeUpName(), reference: 'TAKEN-1' }))
      .body;
    const names = [madeUpName(), madeUpName(), madeUpName()];

    const { status, events } = await postStream(key, {
      subjects: [
        { name: names[0], reference: 'NEW-1', rescreen_interval_days: 30 },
        { name: names[1], reference: 'TAKEN-1' },
        { name: names[2], dob: '1975-05-05' },
      ],
      types: 'sanctions',
    });

    expect(status).toBe(200);
    const progress = events.filter((e) => e.event === 'progress');
    const errors = events.filter((e) => e.event === 'error');
    expect(progress.map((e) => e.data.index).sort()).toEqual([0, 2]);
    expect(errors).toHaveLength(1);
    expect(errors[0].data.index).toBe(1);
    expect(errors[0].data.detail).toContain(existing.client_id);
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { total: 3, completed: 2, failed: 1 } });

    const clients = (await local.api.get('/clients', key)).body.clients;
    for (const event of progress) {
      const client = clients.find((c: { client_id: string }) => c.client_id === event.data.client_id);
      expect(client).toMatchObject({ last_screen_id: event.data.screen_id, types: ['sanctions'] });
    }
    expect(clients.find((c: { reference: string }) => c.reference === 'NEW-1').rescreen_interval_days).toBe(
      30,
    );
    // One registration before, two screened in the batch; the refused subject was refunded.
    expect((await local.api.get('/me', key)).body.usage.screens_used).toBe(3);
    // Batch screens keep the per-subject rows too.
    const screened = (await local.api.get('/clients/screened', key)).body.subjects.map(
      (row: { subject: { name: string } }) => row.subject.name,
    );
    expect(screened).toEqual(expect.arrayContaining([names[0], names[2]]));
  });

  it("a subject who is already a monitored client is that row's error event naming the client; the rest register", async () => {
    const key = await tenantKey('growth');
    const person = { name: madeUpName(), dob: '1961-01-01', nationality: 'Irish' };
    const existing = (await local.api.post('/clients', key, person)).body;
    const newcomer = madeUpName();

    const { status, events } = await postStream(key, {
      subjects: [{ ...person, name: person.name.toLowerCase() }, { name: newcomer }, { name: newcomer }],
    });

    expect(status).toBe(200);
    const errors = events.filter((e) => e.event === 'error');
    expect(errors.map((e) => e.data.index).sort()).toEqual([0, expect.any(Number)]);
    expect(errors.find((e) => e.data.index === 0)?.data.detail).toContain(existing.client_id);
    // The two copies of the newcomer: one registers, the other is refused naming it.
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { total: 3, completed: 1, failed: 2 } });
    const clients = (await local.api.get('/clients', key)).body.clients;
    expect(clients).toHaveLength(2);
    // One registration before, one in the batch; the refused subjects were refunded.
    expect((await local.api.get('/me', key)).body.usage.screens_used).toBe(2);
  });

  it('refuses a repeated reference, a bad field and a plan without batch before any work', async () => {
    const growth = await tenantKey('growth');
    const starter = await tenantKey('starter');

    const repeated = await postStream(growth, {
      subjects: [
        { name: madeUpName(), reference: 'R' },
        { name: madeUpName(), reference: 'R' },
      ],
    });
    const badField = await postStream(growth, {
      subjects: [{ name: madeUpName(), rescreen_interval_days: 0 }],
    });
    const noPlan = await postStream(starter, { subjects: [{ name: madeUpName() }] });

    expect(repeated.status).toBe(400);
    expect(repeated.json).toMatchObject({
      code: 'invalid_request',
      detail: 'subjects[1].reference: repeats the reference of subjects[0]',
    });
    expect(badField.status).toBe(400);
    expect((badField.json as { detail: string }).detail).toContain('subjects[0].rescreen_interval_days');
    expect(noPlan.status).toBe(403);
    expect((await local.api.get('/me', growth)).body.usage.screens_used).toBe(0);
  });

  it('a subject retried after its client was written keeps that client: no second client, no refund', async () => {
    const services = getServices();
    const { tenant, admin } = await createTenant(services.table, {
      name: 'Batch clients retry',
      plan: 'enterprise',
    });
    const key = admin.api_key;
    const subjects: BatchItemSubject[] = [{ name: madeUpName(), reference: 'CUST-RETRY-1' }];
    const request = { types: [...CHECK_TYPES], subjects, purpose: 'register-clients' as const };
    // Accepted with a queue that holds the job, so this test delivers it.
    const held = { ...services.batchQueue(), sendAll: async () => ({ failed: [] as number[] }) };
    const batch = await startBatch(
      { ...services, batchQueue: () => held },
      {
        tenantId: tenant.tenant_id,
        tenantName: tenant.name,
        userId: admin.user.user_id,
        userName: admin.user.name,
        role: 'admin',
        plan: PLANS.enterprise,
      },
      request,
      logger,
    );
    const usedBefore = (await local.api.get('/me', key)).body.usage.screens_used;

    // First delivery: the client is written, then recording the batch item fails.
    const flaky = failOnce(services.table, (input) =>
      String(input.UpdateExpression).startsWith('ADD finished'),
    );
    const body = encodeJob({
      kind: 'batch-subject',
      v: 2,
      tenant_id: tenant.tenant_id,
      batch_id: batch.batchId,
      index: 0,
    });
    const first = await createQueueWorker({ services: () => ({ ...services, table: flaky.table }) })({
      Records: [sqsRecord('first', body, 1)],
    });
    expect(flaky.failed()).toBe(true);
    expect(first.batchItemFailures).toHaveLength(1);
    const written = (await local.api.get('/clients?reference=CUST-RETRY-1', key)).body.clients;
    expect(written).toHaveLength(1);

    const second = await createQueueWorker({ services: getServices })({
      Records: [sqsRecord('first', body, 2)],
    });
    expect(second.batchItemFailures).toEqual([]);
    const events = await readEvents(
      await fetch(`${local.stack.url}/batch/${batch.batchId}/events`, { headers: { 'x-api-key': key } }),
    );
    const progress = events.filter((event) => event.event === 'progress');
    expect(events.filter((event) => event.event === 'error')).toEqual([]);
    expect(progress.map((event) => event.data.client_id as string)).toEqual([written[0].client_id]);
    expect((await local.api.get('/clients', key)).body.clients).toHaveLength(1);
    expect((await local.api.get('/me', key)).body.usage.screens_used).toBe(usedBefore);
  });
});
