import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { handler as autoRescreen } from '../../functions/schedule/auto-rescreen.ts';
import { handler as retentionPurge } from '../../functions/schedule/retention-purge.ts';
import { scheduledEvent } from '../../infra/local/scheduler.ts';
import { scheduledJobs } from '../../lib/contract/routes.ts';
import { PURGE_PAGE_SIZE } from '../../lib/jobs/retention-purge.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { OPERATIONS_ISSUER } from '../../lib/tenancy/key-lineage.ts';
import { addUser, createTenant } from '../../lib/tenancy/tenants.ts';
import { madeUpName, useLocalStack } from '../support/api-client.ts';
import { eventually } from '../support/eventually.ts';

const local = useLocalStack();
const DAY = 86_400_000;

async function freshTenant(retentionDays?: number) {
  const { table } = getServices();
  const { tenant, admin } = await createTenant(table, { name: 'Purge Bank', plan: 'growth' });
  const analyst = await addUser(table, tenant.tenant_id, {
    name: 'Analyst',
    role: 'analyst',
    issuer: OPERATIONS_ISSUER,
  });
  if (retentionDays !== undefined) {
    const set = await local.api.patch('/settings', admin.api_key, { retention_days: retentionDays });
    expect(set.status).toBe(200);
  }
  return { tenantId: tenant.tenant_id, admin: admin.api_key, analyst: analyst.api_key };
}

const purgeAt = (time: Date) => retentionPurge(scheduledEvent({ id: 'retention-purge' }, time));

async function purgeEntries(adminKey: string) {
  const { entries } = (await local.api.get('/audit?limit=200', adminKey)).body;
  // Each pass's outcome entry (its `started` entry, written before it, precedes it in the trail).
  return entries.filter(
    (entry: { action: string; outcome: string }) =>
      entry.action === 'screens.purge' && entry.outcome !== 'started',
  );
}

const exists = async (key: string, screenId: string) =>
  (await local.api.get(`/screens/${screenId}`, key)).status === 200;

describe('the daily retention purge', () => {
  it('is a daily scheduled job', () => {
    expect(scheduledJobs.find((job) => job.id === 'retention-purge')).toMatchObject({
      everyMinutes: 24 * 60,
      entry: 'functions/schedule/retention-purge.ts',
    });
  });

  it('deletes decided and CLEAR screens past the period, keeps unreviewed hits and a client’s current screen, audited with counts', async () => {
    const tenant = await freshTenant(30);
    const untouched = await freshTenant();
    const decided = (await local.api.post('/screen', tenant.analyst, { name: madeUpName(), force: true }))
      .body;
    await local.api.post(`/screens/${decided.screen_id}/dispose`, tenant.analyst, { disposition: 'cleared' });
    const replayKey = randomUUID();
    const clear = (
      await local.api.post(
        '/screen',
        tenant.analyst,
        { name: madeUpName() },
        { 'idempotency-key': replayKey },
      )
    ).body;
    const hit = (
      await local.api.post('/screen', tenant.analyst, {
        name: 'Vladimir Putin',
        dob: '1952-10-07',
        force: true,
      })
    ).body;
    expect(hit.risk_level).not.toBe('CLEAR');
    const client = (await local.api.post('/clients', tenant.analyst, { name: madeUpName() })).body;
    const otherTenants = (
      await local.api.post('/screen', untouched.admin, { name: madeUpName(), force: true })
    ).body;

    // Day 10: nothing is past a 30-day period yet.
    await purgeAt(new Date(Date.now() + 10 * DAY));
    // Day 31, through the local scheduler as the daily rule would run it.
    await local.stack.scheduler.tick(new Date(Date.now() + 31 * DAY));

    expect(await exists(tenant.admin, decided.screen_id)).toBe(false);
    expect(await exists(tenant.admin, clear.screen_id)).toBe(false);
    expect(await exists(tenant.admin, hit.screen_id)).toBe(true);
    expect(await exists(tenant.admin, client.last_screen_id)).toBe(true);
    expect((await local.api.get(`/clients/${client.client_id}`, tenant.admin)).status).toBe(200);
    expect(await exists(untouched.admin, otherTenants.screen_id)).toBe(true);
    expect(await purgeEntries(untouched.admin)).toEqual([]);
    const [day31, day10] = await purgeEntries(tenant.admin);
    expect(day10).toMatchObject({
      actor: { user_id: 'retention-purge', role: 'system' },
      outcome: 'done',
      details: { retention_days: '30', deleted: '0', complete: 'true' },
    });
    expect(day31).toMatchObject({
      actor: { role: 'system' },
      outcome: 'done',
      details: {
        examined: '4',
        deleted: '2',
        kept_undecided_hit: '1',
        kept_client_screen: '1',
        kept_changed: '0',
        complete: 'true',
      },
    });
    // A purged screen is never replayed either.
    const replay = await local.api.post(
      '/screen',
      tenant.analyst,
      { name: clear.subject.name },
      { 'idempotency-key': replayKey },
    );
    expect(replay.status).toBe(410);
  });

  it('keeps the screen a client’s current one was compared with, and purges the client’s others', async () => {
    const tenant = await freshTenant(30);
    const client = (
      await local.api.post('/clients', tenant.analyst, { name: madeUpName(), rescreen_interval_days: 1 })
    ).body;
    const rescreenedAt = async (days: number, previous: string) => {
      await autoRescreen(scheduledEvent({ id: 'auto-rescreen' }, new Date(Date.now() + days * DAY)));
      const { body } = await eventually(
        () => local.api.get(`/clients/${client.client_id}`, tenant.admin),
        (read) => read.body.last_screen_id !== previous,
      );
      return body.last_screen_id as string;
    };
    const registration = client.last_screen_id as string;
    const second = await rescreenedAt(2, registration);
    const current = await rescreenedAt(4, second);

    await purgeAt(new Date(Date.now() + 31 * DAY));

    // Nothing was settled: the registration screen is the baseline the current one compares with.
    expect(await exists(tenant.admin, registration)).toBe(true);
    expect(await exists(tenant.admin, second)).toBe(false);
    expect(await exists(tenant.admin, current)).toBe(true);
    const [entry] = await purgeEntries(tenant.admin);
    expect(entry.details).toMatchObject({ deleted: '1', kept_client_screen: '2' });
  });

  it('is safe to re-run: a second run at the same time deletes nothing more', async () => {
    const tenant = await freshTenant(30);
    const screen = (await local.api.post('/screen', tenant.analyst, { name: madeUpName() })).body;
    const at = new Date(Date.now() + 31 * DAY);

    await purgeAt(at);
    await purgeAt(at);

    expect(await exists(tenant.admin, screen.screen_id)).toBe(false);
    const [second, first] = await purgeEntries(tenant.admin);
    expect(first.details).toMatchObject({ deleted: '1' });
    expect(second.details).toMatchObject({ examined: '0', deleted: '0' });
  });

  it('works through the screens a page at a time', async () => {
    const tenant = await freshTenant(30);
    const count = PURGE_PAGE_SIZE + 5;
    for (let i = 0; i < count; i += 15) {
      await Promise.all(
        Array.from({ length: Math.min(15, count - i) }, () =>
          local.api.post('/screen', tenant.analyst, { name: madeUpName() }),
        ),
      );
    }

    await purgeAt(new Date(Date.now() + 31 * DAY));

    expect((await local.api.get('/screens', tenant.admin)).body.screens).toEqual([]);
    const [entry] = await purgeEntries(tenant.admin);
    expect(entry.details).toMatchObject({ examined: String(count), deleted: String(count) });
  });
});
