import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/stack.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { keys } from '../../lib/store/schema.ts';
import { chargeScreens, getMonthlyUsage } from '../../lib/tenancy/quota.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { readEvents } from '../support/sse.ts';
import { UNSCREENABLE } from '../support/unscreenable-batch-worker.ts';

let stack: LocalStack;
let enterpriseKey: string;
let enterpriseTenant: string;
let starterKey: string;

beforeAll(async () => {
  stack = await startLocalStack({
    dataDir: null,
    batchWorkerEntry: 'test/support/unscreenable-batch-worker.ts',
  });
  const enterprise = stack.demoKeys.find((k) => k.plan === 'enterprise' && k.role === 'analyst')!;
  enterpriseKey = enterprise.api_key;
  enterpriseTenant = enterprise.tenant_id;
  starterKey = stack.demoKeys.find((k) => k.plan === 'starter')!.api_key;
}, 30_000);
afterAll(async () => stack?.close());

function postBatch(key: string | undefined, body: unknown, signal?: AbortSignal) {
  return fetch(`${stack.url}/batch/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
    body: JSON.stringify(body),
    signal,
  });
}

async function countScreens(tenantId: string): Promise<number> {
  const { table } = getServices();
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.doc.send(
      new QueryCommand({
        TableName: table.name,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :screen)',
        ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenantId), ':screen': 'SCREEN#' },
        Select: 'COUNT',
        ExclusiveStartKey: startKey,
      }),
    );
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}

const people = (count: number, tag: string) =>
  Array.from({ length: count }, (_, i) => ({
    name: `Batch ${tag} Person ${i}`,
    nationality: 'Irish',
    location: 'Cork',
  }));

describe('POST /batch/stream', () => {
  it('streams one start, a progress event per subject and one complete for 500 subjects, storing 500 screens', async () => {
    const before = await countScreens(enterpriseTenant);
    const usageBefore = await getMonthlyUsage(getServices().table, enterpriseTenant);

    const response = await postBatch(enterpriseKey, { subjects: people(500, 'large') });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readEvents(response);
    expect(events.filter((e) => e.event === 'start')).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: 'start', data: { total: 500 } });
    const batchId = events[0].data.batch_id;
    const progress = events.filter((e) => e.event === 'progress');
    expect(progress).toHaveLength(500);
    expect(new Set(progress.map((e) => e.data.index))).toEqual(
      new Set(Array.from({ length: 500 }, (_, i) => i)),
    );
    expect(new Set(progress.map((e) => e.data.screen_id)).size).toBe(500);
    expect(progress.map((e) => e.data.completed)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    for (const e of progress) {
      expect(e.data).toMatchObject({ batch_id: batchId, total: 500, skipped: false });
      expect(e.data.screen_id).toMatch(/^SCR-\d{8}-\d{6,}$/);
    }
    const complete = events.at(-1)!;
    expect(complete.event).toBe('complete');
    expect(complete.data).toMatchObject({ batch_id: batchId, total: 500, completed: 500, failed: 0 });
    const riskCounts = complete.data.risk_counts as Record<string, number>;
    expect(Object.keys(riskCounts).sort()).toEqual(['CLEAR', 'CRITICAL', 'HIGH', 'LOW', 'MEDIUM']);
    expect(Object.values(riskCounts).reduce((a, b) => a + b, 0)).toBe(500);

    expect(await countScreens(enterpriseTenant)).toBe(before + 500);
    expect(await getMonthlyUsage(getServices().table, enterpriseTenant)).toBe(usageBefore + 500);
    const screen = await fetch(`${stack.url}/screens/${progress[0].data.screen_id}`, {
      headers: { 'x-api-key': enterpriseKey },
    });
    expect(screen.status).toBe(200);
  }, 60_000);

  it('reports cached subjects as skipped and does not charge them', async () => {
    const subjects = people(3, 'cached');
    await readEvents(await postBatch(enterpriseKey, { subjects }));
    const usageBefore = await getMonthlyUsage(getServices().table, enterpriseTenant);

    const events = await readEvents(await postBatch(enterpriseKey, { subjects }));

    const progress = events.filter((e) => e.event === 'progress');
    expect(progress).toHaveLength(3);
    expect(progress.every((e) => e.data.skipped === true)).toBe(true);
    // The refund of a cached subject is written just after its progress item: look until it lands.
    await expect.poll(() => getMonthlyUsage(getServices().table, enterpriseTenant)).toBe(usageBefore);
  }, 30_000);

  it('ends a subject that keeps failing as an error event, refunds it and dead-letters its message', async () => {
    const usageBefore = await getMonthlyUsage(getServices().table, enterpriseTenant);
    const subjects = [...people(1, 'failing-a'), { name: UNSCREENABLE }, ...people(1, 'failing-b')];

    const events = await readEvents(await postBatch(enterpriseKey, { subjects }));

    expect(
      events
        .filter((e) => e.event === 'progress')
        .map((e) => e.data.index)
        .sort(),
    ).toEqual([0, 2]);
    const errors = events.filter((e) => e.event === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0].data).toMatchObject({ index: 1 });
    expect(String(errors[0].data.detail)).toMatch(/failed after 3 attempts; the subject was not charged/);
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { total: 3, completed: 2, failed: 1 } });
    expect(await getMonthlyUsage(getServices().table, enterpriseTenant)).toBe(usageBefore + 2);
    const batchId = events[0].data.batch_id;
    await expect
      .poll(async () => (await stack.batchQueue.deadLetterBodies()).map((body) => JSON.parse(body)), {
        timeout: 10_000,
      })
      .toContainEqual(expect.objectContaining({ batch_id: batchId, index: 1 }));
  }, 30_000);

  it('keeps screening after the client disconnects: every screen is stored', async () => {
    const before = await countScreens(enterpriseTenant);
    const controller = new AbortController();
    const response = await postBatch(
      enterpriseKey,
      { subjects: people(60, 'disconnect') },
      controller.signal,
    );
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    await reader.read(); // the start event
    controller.abort();

    await expect.poll(() => countScreens(enterpriseTenant), { timeout: 20_000 }).toBe(before + 60);
  }, 30_000);

  it('re-attaches to a batch after a disconnect: every event again from start to complete', async () => {
    const controller = new AbortController();
    const response = await postBatch(enterpriseKey, { subjects: people(20, 'reattach') }, controller.signal);
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const batchId = /"batch_id":"([^"]+)"/.exec(first)![1];
    controller.abort();

    const again = await fetch(`${stack.url}/batch/${batchId}/events`, {
      headers: { 'x-api-key': enterpriseKey },
    });

    expect(again.status).toBe(200);
    const events = await readEvents(again);
    expect(events[0]).toMatchObject({ event: 'start', data: { batch_id: batchId, total: 20 } });
    expect(new Set(events.filter((e) => e.event === 'progress').map((e) => e.data.index)).size).toBe(20);
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { total: 20, completed: 20, failed: 0 } });
  }, 30_000);

  it('answers 404 to a re-attach to an unknown batch or another tenant’s', async () => {
    const events = await readEvents(await postBatch(enterpriseKey, { subjects: people(1, 'own') }));
    const batchId = events[0].data.batch_id;
    const { table } = getServices();
    const other = await createTenant(table, { name: 'Other Bank', plan: 'growth' });

    for (const [key, id] of [
      [other.admin.api_key, batchId],
      [enterpriseKey, 'BAT-20250101-0000000000'],
      [enterpriseKey, 'not-a-batch'],
    ]) {
      const response = await fetch(`${stack.url}/batch/${id}/events`, {
        headers: { 'x-api-key': String(key) },
      });
      expect(response.status).toBe(404);
      expect((await response.json()).detail).toMatch(/^Batch .* not found$/);
    }
  }, 30_000);

  it('refuses a plan without batch screening with 403 naming the plan needed', async () => {
    const response = await postBatch(starterKey, { subjects: people(2, 'starter') });

    expect(response.status).toBe(403);
    expect((await response.json()).detail).toMatch(/requires the Growth plan or higher/);
  });

  it('refuses a batch larger than the remaining quota with 429 and charges nothing', async () => {
    const { table } = getServices();
    const growth = await createTenant(table, { name: 'Quota Bank', plan: 'growth' });
    await chargeScreens(table, growth.tenant.tenant_id, 4990, 5000);

    const response = await postBatch(growth.admin.api_key, { subjects: people(11, 'quota') });

    expect(response.status).toBe(429);
    expect((await response.json()).detail).toBe(
      'Monthly screen limit reached: 4990/5000 screens used this month; this batch of 11 subjects needs 11 and 10 remain. Upgrade your plan to screen more.',
    );
    expect(await getMonthlyUsage(table, growth.tenant.tenant_id)).toBe(4990);
    expect(await countScreens(growth.tenant.tenant_id)).toBe(0);
  });

  it('validates every subject before any work: 400 names the subject index and field', async () => {
    const usageBefore = await getMonthlyUsage(getServices().table, enterpriseTenant);
    const subjects = people(5, 'invalid');
    subjects[3].name = 'X';

    const response = await postBatch(enterpriseKey, { subjects });

    expect(response.status).toBe(400);
    expect((await response.json()).detail).toBe('subjects[3].name: must be at least 2 characters');
    const tooMany = await postBatch(enterpriseKey, { subjects: people(501, 'too-many') });
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).detail).toBe('subjects: must hold at most 500 subjects');
    const unknownField = await postBatch(enterpriseKey, {
      subjects: [{ name: 'Ann Example', dateOfBirth: '1990-01-01' }],
    });
    expect((await unknownField.json()).detail).toBe(
      'subjects[0].dateOfBirth: is not a known field (check the spelling)',
    );
    expect(await getMonthlyUsage(getServices().table, enterpriseTenant)).toBe(usageBefore);
  });

  it('answers any method but POST with 405, as the Function URL behind CloudFront does', async () => {
    const response = await fetch(`${stack.url}/batch/stream`, { headers: { 'x-api-key': enterpriseKey } });

    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect((await response.json()).detail).toMatch(/allowed: POST/);
  });

  it('answers 401 without a valid key', async () => {
    const response = await postBatch(undefined, { subjects: people(1, 'anonymous') });

    expect(response.status).toBe(401);
    expect((await response.json()).detail).toMatch(/X-API-Key/);
  });
});
