import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { BatchItemSubject } from '../../lib/batch/batch-table.ts';
import { startBatch } from '../../lib/batch/start-batch.ts';
import { logger } from '../../lib/common/log.ts';
import { encodeJob } from '../../lib/jobs/kinds.ts';
import { createQueueWorker } from '../../lib/jobs/queue-worker.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { keys } from '../../lib/store/schema.ts';
import { putRequests, readItem, writeAll } from '../../lib/store/table.ts';
import { OPERATIONS_ISSUER } from '../../lib/tenancy/key-lineage.ts';
import { PLANS } from '../../lib/tenancy/plans.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { addTenantUser, disableUser, revokeUserKey } from '../../lib/tenancy/users.ts';
import { CHECK_TYPES } from '../../lib/watchlists/types.ts';
import { madeUpName, useLocalStack } from '../support/api-client.ts';
import { sqsRecord } from '../support/sqs-record.ts';
import { readEvents } from '../support/sse.ts';

/**
 * Issue 35, item 5, "disabled means stopped", through the local stack: an export already open when
 * its admin is disabled (or their key revoked) ends within 5 s with a last record saying
 * `complete: false` and why; a disabled user's batch screens no more of its subjects, and gives
 * their charges back.
 */
const local = useLocalStack();

/** A tenant whose screens export runs to many megabytes: one real screen, stored again `copies` times. */
async function tenantWithManyScreens(copies: number) {
  const { table } = getServices();
  const { tenant, admin } = await createTenant(table, { name: 'Disabled stops', plan: 'enterprise' });
  const screened = await local.api.post('/screen', admin.api_key, {
    name: 'Vladimir Putin',
    dob: '1952-10-07',
    types: 'sanctions,pep',
    force: true,
  });
  expect(screened.status).toBe(200);
  const stored = await readItem(table, keys.screen(tenant.tenant_id, screened.body.screen_id));
  if (!stored) throw new Error('the screen was not stored');
  const day = String(screened.body.screen_id).split('-')[1];
  const copiesOf = Array.from({ length: copies }, (_, i) => {
    const screenId = `SCR-${day}-${String(100_000 + i).padStart(6, '0')}`;
    return { ...stored, sk: keys.screen(tenant.tenant_id, screenId).sk, screen_id: screenId };
  });
  await writeAll(table, putRequests(copiesOf), { what: 'copied screens' });
  return { tenant, admin, total: copies + 1 };
}

/**
 * Opens an export, reads its first bytes, then `cutOff()` while the export is still open, and reads
 * the rest as fast as it comes: the text, and how long after the cut-off the last record arrived.
 */
async function exportCutOff(path: string, key: string, cutOff: () => Promise<unknown>) {
  const response = await fetch(`${local.stack.url}${path}`, { headers: { 'x-api-key': key } });
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = decoder.decode((await reader.read()).value, { stream: true });
  await cutOff();
  const cutAt = Date.now();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return { text, msAfterCutOff: Date.now() - cutAt };
}

describe('an open export whose user loses access', () => {
  it('ends within 5 s with complete: false and the reason when its admin is disabled (NDJSON)', async () => {
    const { table } = getServices();
    const { tenant, admin, total } = await tenantWithManyScreens(1_000);

    const { text, msAfterCutOff } = await exportCutOff('/screens/export', admin.api_key, () =>
      disableUser(table, OPERATIONS_ISSUER, tenant.tenant_id, admin.user.user_id),
    );

    const lines = text.split('\n').filter(Boolean);
    const end = JSON.parse(lines.at(-1) ?? '{}');
    expect(end).toMatchObject({
      type: 'export_end',
      export: 'screens',
      complete: false,
      reason: 'the user was disabled',
    });
    expect(end.detail).toContain('the user was disabled');
    expect(end.count).toBe(lines.length - 1);
    expect(end.count).toBeLessThan(total);
    expect(msAfterCutOff).toBeLessThan(5_000);
    // The key stopped working at once for everything else.
    expect((await local.api.get('/me', admin.api_key)).status).toBe(401);
  });

  it('ends the same way, as CSV, when the admin’s key is revoked; the trail records the stop', async () => {
    const { table } = getServices();
    const { tenant, admin, total } = await tenantWithManyScreens(1_000);
    const second = await addTenantUser(table, OPERATIONS_ISSUER, tenant.tenant_id, {
      name: 'Second admin',
      role: 'admin',
    });

    const { text, msAfterCutOff } = await exportCutOff('/screens/export?format=csv', second.api_key, () =>
      revokeUserKey(table, OPERATIONS_ISSUER, tenant.tenant_id, second.user.user_id),
    );

    const rows = text.split('\r\n').filter(Boolean);
    const last = rows.at(-1) ?? '';
    expect(last.startsWith('export_end,')).toBe(true);
    const end = JSON.parse(JSON.parse(`"${last.slice('export_end,"'.length, -1).replaceAll('""', '\\"')}"`));
    expect(end).toMatchObject({ complete: false, reason: "the user's API key was rotated or revoked" });
    expect(end.count).toBeLessThan(total);
    expect(msAfterCutOff).toBeLessThan(5_000);

    const trail = await local.api.get('/audit?limit=20', admin.api_key);
    const done = trail.body.entries.find(
      (entry: { action: string; outcome: string; actor: { user_id: string } }) =>
        entry.action === 'screens.export' &&
        entry.outcome === 'done' &&
        entry.actor.user_id === second.user.user_id,
    );
    expect(done?.details).toMatchObject({
      complete: false,
      reason: "the user's API key was rotated or revoked",
    });
  });
});

/**
 * A tenant, an analyst of it, and a batch of `count` made-up subjects the analyst started, accepted
 * with a queue that holds its jobs, so the test delivers them (or none).
 */
async function analystBatch(name: string, count: number) {
  const services = getServices();
  const { tenant, admin } = await createTenant(services.table, { name, plan: 'enterprise' });
  const analyst = await local.api.post('/users', admin.api_key, { name: `${name} analyst` });
  expect(analyst.status).toBe(201);
  const subjects: BatchItemSubject[] = Array.from({ length: count }, () => ({ name: madeUpName() }));
  const held = { ...services.batchQueue(), sendAll: async () => ({ failed: [] as number[] }) };
  const usedBefore = (await local.api.get('/me', admin.api_key)).body.usage.screens_used;
  const batch = await startBatch(
    { ...services, batchQueue: () => held },
    {
      tenantId: tenant.tenant_id,
      tenantName: tenant.name,
      userId: analyst.body.user.user_id,
      userName: `${name} analyst`,
      role: 'analyst',
      plan: PLANS.enterprise,
    },
    { types: [...CHECK_TYPES], subjects },
    logger,
  );
  const disable = () => local.api.post(`/users/${analyst.body.user.user_id}/disable`, admin.api_key);
  return { tenant, admin, analystKey: analyst.body.api_key as string, batch, usedBefore, disable };
}

describe('a batch whose author is disabled', () => {
  it('screens none of its remaining subjects and refunds them; the stream says why', async () => {
    const { tenant, admin, batch, usedBefore, disable } = await analystBatch('Disabled batch', 4);
    expect((await local.api.get('/me', admin.api_key)).body.usage.screens_used).toBe(usedBefore + 4);
    const worker = createQueueWorker({ services: getServices });
    const deliver = (index: number) =>
      worker({
        Records: [
          sqsRecord(
            `m${index}`,
            encodeJob({
              kind: 'batch-subject',
              v: 2,
              tenant_id: tenant.tenant_id,
              batch_id: batch.batchId,
              index,
            }),
          ),
        ],
      });

    expect((await deliver(0)).batchItemFailures).toEqual([]);
    expect((await disable()).status).toBe(200);
    // The warm worker read the author's standing a moment ago; it reads it again after a second.
    await sleep(1_100);
    for (const index of [1, 2, 3]) expect((await deliver(index)).batchItemFailures).toEqual([]);

    // One subject screened and charged; three neither.
    expect((await local.api.get('/me', admin.api_key)).body.usage.screens_used).toBe(usedBefore + 1);
    const screens = await local.api.get('/screens?limit=50', admin.api_key);
    expect(screens.body.screens).toHaveLength(1);
    const events = await readEvents(
      await fetch(`${local.stack.url}/batch/${batch.batchId}/events`, {
        headers: { 'x-api-key': admin.api_key },
      }),
    );
    expect(events.filter((event) => event.event === 'progress')).toHaveLength(1);
    const errors = events.filter((event) => event.event === 'error');
    expect(errors.map((event) => event.data.index)).toEqual([1, 2, 3]);
    for (const error of errors) {
      expect(error.data.detail).toContain('the user was disabled');
      expect(error.data.detail).toContain('not charged');
    }
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { completed: 1, failed: 3 } });
  });

  it('a stream the user follows ends within 5 s of the disable, complete: false, naming why', async () => {
    const { analystKey, batch, disable } = await analystBatch('Disabled stream', 2);
    // Nothing is delivered: the stream stays open, sending heartbeats, until the disable ends it.
    const stream = fetch(`${local.stack.url}/batch/${batch.batchId}/events`, {
      headers: { 'x-api-key': analystKey },
    }).then(readEvents);
    await sleep(500);
    const disabledAt = Date.now();
    expect((await disable()).status).toBe(200);

    const events = await stream;
    expect(Date.now() - disabledAt).toBeLessThan(5_000);
    expect(events.at(-1)).toMatchObject({
      event: 'complete',
      data: { completed: 0, complete: false, reason: 'the user was disabled' },
    });
    expect(String(events.at(-1)?.data.detail)).toContain('are refunded');
  });
});
