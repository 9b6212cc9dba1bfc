import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { getServices } from '../../lib/runtime/services.ts';
import { OPERATIONS_ISSUER } from '../../lib/tenancy/key-lineage.ts';
import { addUser, createTenant } from '../../lib/tenancy/tenants.ts';
import { madeUpName, useLocalStack } from '../support/api-client.ts';

const local = useLocalStack();
const repoRoot = resolve(import.meta.dirname, '../..');

async function freshTenant() {
  const { table } = getServices();
  const { tenant, admin } = await createTenant(table, { name: 'Retention Bank', plan: 'growth' });
  const analyst = await addUser(table, tenant.tenant_id, {
    name: 'Analyst',
    role: 'analyst',
    issuer: OPERATIONS_ISSUER,
  });
  return { tenantId: tenant.tenant_id, admin: admin.api_key, analyst: analyst.api_key };
}

async function decidedScreen(key: string) {
  const screen = (await local.api.post('/screen', key, { name: madeUpName(), force: true })).body;
  const decided = await local.api.post(`/screens/${screen.screen_id}/dispose`, key, {
    disposition: 'cleared',
  });
  expect(decided.status).toBe(200);
  return { screenId: screen.screen_id as string, decidedAt: decided.body.disposition.at as string };
}

/** The ops CLI against the running local store, as operations would run it. */
async function opsCli(...args: string[]) {
  const run = promisify(execFile);
  const cli = [
    '--import',
    'tsx',
    resolve(repoRoot, 'scripts/admin.ts'),
    ...args,
    '--endpoint',
    process.env.DYNAMODB_ENDPOINT ?? '',
    '--table',
    process.env.TABLE_NAME ?? '',
  ];
  try {
    const { stdout } = await run(process.execPath, cli, { cwd: repoRoot });
    return { code: 0, output: JSON.parse(stdout), stderr: '' };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, output: undefined, stderr: failed.stderr };
  }
}

describe('GET and PATCH /settings: the retention period and lock', () => {
  it('defaults keep the contract: no period, no lock, and an admin deletes a decided screen', async () => {
    const tenant = await freshTenant();
    const { screenId } = await decidedScreen(tenant.analyst);

    const settings = await local.api.get('/settings', tenant.admin);
    const deleted = await local.api.delete(`/screens/${screenId}`, tenant.admin);

    expect(settings.status).toBe(200);
    expect(settings.body).toEqual({
      retention_days: null,
      retention_lock: false,
      changed_at: null,
      changed_by: null,
    });
    expect(deleted.status).toBe(200);
  });

  it('are for admins: an analyst reading or changing them gets 403', async () => {
    const tenant = await freshTenant();

    const read = await local.api.get('/settings', tenant.analyst);
    const change = await local.api.patch('/settings', tenant.analyst, { retention_lock: true });

    expect(read.status).toBe(403);
    expect(change.status).toBe(403);
    expect(change.body.detail).toMatch(/admin role/);
    expect((await local.api.get('/settings', tenant.admin)).body.retention_lock).toBe(false);
  });

  it('refuse a body that sets nothing, a period out of range, an unknown field, or a lock without a period', async () => {
    const tenant = await freshTenant();

    const empty = await local.api.patch('/settings', tenant.admin, {});
    const zero = await local.api.patch('/settings', tenant.admin, { retention_days: 0 });
    const typo = await local.api.patch('/settings', tenant.admin, { retention_period: 30 });
    const lockAlone = await local.api.patch('/settings', tenant.admin, { retention_lock: true });

    expect(empty.status).toBe(400);
    expect(empty.body.detail).toMatch(/retention_days, retention_lock or both/);
    expect(zero.status).toBe(400);
    expect(zero.body.detail).toMatch(/^retention_days:/);
    expect(typo.status).toBe(400);
    expect(typo.body.detail).toMatch(/^retention_period: is not a known field/);
    expect(lockAlone.status).toBe(400);
    expect(lockAlone.body.detail).toMatch(/^retention_lock: the lock needs a retention period/);
    expect((await local.api.get('/settings', tenant.admin)).body.retention_lock).toBe(false);
  });
});

describe('DELETE /screens/{id} under the retention lock', () => {
  it('refuses a decided screen with 403 naming the rule and the date; the screen stays', async () => {
    const tenant = await freshTenant();
    const locked = await local.api.patch('/settings', tenant.admin, {
      retention_days: 30,
      retention_lock: true,
    });
    expect(locked.status).toBe(200);
    expect(locked.body).toMatchObject({
      retention_days: 30,
      retention_lock: true,
      changed_by: { role: 'admin' },
    });
    const { screenId, decidedAt } = await decidedScreen(tenant.analyst);

    const byAdmin = await local.api.delete(`/screens/${screenId}`, tenant.admin);
    const byOwner = await local.api.delete(`/screens/${screenId}`, tenant.analyst);

    const deletableFrom = `${new Date(Date.parse(decidedAt) + 30 * 86_400_000).toISOString().slice(0, 19)}Z`;
    for (const refused of [byAdmin, byOwner]) {
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toMatch(/^Retention lock: the tenant keeps decided screens for 30 days/);
      expect(refused.body.detail).toContain(`can be deleted from ${deletableFrom}`);
    }
    expect((await local.api.get(`/screens/${screenId}`, tenant.admin)).status).toBe(200);
  });

  it('still deletes an undecided screen (the lock keeps decisions), and an analyst still only their own', async () => {
    const tenant = await freshTenant();
    await local.api.patch('/settings', tenant.admin, { retention_days: 30, retention_lock: true });
    const undecided = (await local.api.post('/screen', tenant.analyst, { name: madeUpName() })).body;
    const admins = (await local.api.post('/screen', tenant.admin, { name: madeUpName() })).body;

    const ownDelete = await local.api.delete(`/screens/${undecided.screen_id}`, tenant.analyst);
    const othersDelete = await local.api.delete(`/screens/${admins.screen_id}`, tenant.analyst);

    expect(ownDelete.status).toBe(200);
    expect(othersDelete.status).toBe(403);
    expect(othersDelete.body.detail).toMatch(/^Analysts may delete only screens they created/);
  });
});

describe('loosening the lock: operations only, audited', () => {
  it('an admin may lengthen the period but not shorten it or lift the lock; each attempt is in the audit trail', async () => {
    const tenant = await freshTenant();
    await local.api.patch('/settings', tenant.admin, { retention_days: 30, retention_lock: true });

    const lift = await local.api.patch('/settings', tenant.admin, { retention_lock: false });
    const shorten = await local.api.patch('/settings', tenant.admin, { retention_days: 10 });
    const unset = await local.api.patch('/settings', tenant.admin, { retention_days: null });
    const lengthen = await local.api.patch('/settings', tenant.admin, { retention_days: 60 });

    for (const refused of [lift, shorten, unset]) {
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toMatch(
        /^Retention lock: while the lock holds, the retention period \(30 days\)/,
      );
      expect(refused.body.detail).toMatch(/operations \(ops CLI\)/);
    }
    expect(lengthen.status).toBe(200);
    expect(lengthen.body).toMatchObject({ retention_days: 60, retention_lock: true });
    const trail = (await local.api.get('/audit', tenant.admin)).body.entries.filter(
      (entry: { action: string; outcome: string }) =>
        entry.action === 'tenant.set-retention' && entry.outcome !== 'started',
    );
    expect(trail.map((entry: { outcome: string }) => entry.outcome)).toEqual([
      'done',
      'refused',
      'refused',
      'refused',
      'done',
    ]);
    expect(trail[0].details).toEqual({
      retention_days_before: '30',
      retention_days_after: '60',
      retention_lock_before: 'true',
      retention_lock_after: 'true',
    });
    // A refusal's request is on the started entry it names.
    const asked = (await local.api.get('/audit', tenant.admin)).body.entries.find(
      (entry: { entry_id: string }) => entry.entry_id === trail[3].started_entry_id,
    );
    expect(asked.details).toMatchObject({ retention_lock_before: 'true', retention_lock_after: 'false' });
  });

  it('operations lift the lock through the CLI with a reason, recorded as ops; then deletes work again', async () => {
    const tenant = await freshTenant();
    await local.api.patch('/settings', tenant.admin, { retention_days: 30, retention_lock: true });
    const { screenId } = await decidedScreen(tenant.analyst);

    const withoutReason = await opsCli('set-retention', '--tenant', tenant.tenantId, '--lock', 'off');
    const lifted = await opsCli(
      'set-retention',
      '--tenant',
      tenant.tenantId,
      '--lock',
      'off',
      '--reason',
      'ticket OPS-4411: regulator approved erasure request',
    );

    expect(withoutReason.code).toBe(1);
    expect(withoutReason.stderr).toMatch(/^reason: lifting the retention lock/);
    expect(lifted.code).toBe(0);
    expect(lifted.output).toMatchObject({
      retention_days: 30,
      retention_lock: false,
      changed_by: { role: 'ops' },
    });
    expect((await local.api.delete(`/screens/${screenId}`, tenant.admin)).status).toBe(200);
    const entries = (await local.api.get('/audit', tenant.admin)).body.entries;
    expect(entries[0]).toMatchObject({ action: 'screen.delete', outcome: 'done' });
    const latest = entries.find(
      (entry: { action: string; outcome: string }) =>
        entry.action === 'tenant.set-retention' && entry.outcome !== 'started',
    );
    expect(latest).toMatchObject({
      action: 'tenant.set-retention',
      actor: { user_id: 'ops-cli', role: 'ops' },
      outcome: 'done',
      details: {
        retention_lock_after: 'false',
        reason: 'ticket OPS-4411: regulator approved erasure request',
      },
    });
  });
});
