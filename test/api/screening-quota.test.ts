import { describe, expect, it } from 'vitest';
import { getServices } from '../../lib/runtime/services.ts';
import { chargeScreens } from '../../lib/tenancy/quota.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { demoKey, madeUpName, useLocalStack } from '../support/api-client.ts';

const local = useLocalStack();

async function starterTenantWithUsage(used: number) {
  const { table } = getServices();
  const { tenant, admin } = await createTenant(table, { name: `Quota Test ${used}`, plan: 'starter' });
  if (used > 0) await chargeScreens(table, tenant.tenant_id, used, 1000);
  return admin.api_key;
}

describe('monthly quota', () => {
  it('charges one screen per fresh screen and shows it in /me', async () => {
    const key = demoKey(local.stack, 'tdemostarter', 'analyst').api_key;
    const before = (await local.api.get('/me', key)).body.usage;

    expect((await local.api.post('/screen', key, { name: madeUpName() })).status).toBe(200);

    const after = (await local.api.get('/me', key)).body.usage;
    expect(after.screens_used).toBe(before.screens_used + 1);
    expect(after).toMatchObject({ screens_allowed: 1000, screens_remaining: 1000 - after.screens_used });
  });

  it('does not charge a refused request', async () => {
    const key = await starterTenantWithUsage(10);

    expect((await local.api.post('/screen', key, { name: 'x' })).status).toBe(400);
    expect((await local.api.post('/screen', key, { name: 'Jane Doe', dob: '1990-13-01' })).status).toBe(400);

    expect((await local.api.get('/me', key)).body.usage.screens_used).toBe(10);
  });

  it('over the limit → 429 with <used>/<allowed>; the refused screen is neither stored nor charged', async () => {
    const key = await starterTenantWithUsage(1000);

    const { status, body } = await local.api.post('/screen', key, { name: madeUpName(), force: true });

    expect(status).toBe(429);
    expect(body.detail).toBe(
      'Monthly screen limit reached: 1000/1000 screens used this month. Upgrade your plan to screen more.',
    );
    expect((await local.api.get('/screens', key)).body.screens).toEqual([]);
    expect((await local.api.get('/me', key)).body.usage).toMatchObject({
      screens_used: 1000,
      screens_remaining: 0,
    });
  });

  it('concurrent screens never push usage past the limit', async () => {
    const key = await starterTenantWithUsage(997);

    const results = await Promise.all(
      Array.from({ length: 8 }, () => local.api.post('/screen', key, { name: madeUpName(), force: true })),
    );

    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
    expect((await local.api.get('/me', key)).body.usage.screens_used).toBe(1000);
    const stored = (await local.api.get('/screens', key)).body.screens
      .map((s: { screen_id: string }) => s.screen_id)
      .sort();
    expect(stored).toEqual(
      results
        .filter((r) => r.status === 200)
        .map((r) => r.body.screen_id)
        .sort(),
    );
  });

  it('still returns a cached screen at the limit, because it charges nothing', async () => {
    const key = await starterTenantWithUsage(999);
    const name = madeUpName();
    const first = await local.api.post('/screen', key, { name });
    expect(first.status).toBe(200);

    const cached = await local.api.post('/screen', key, { name });
    const forced = await local.api.post('/screen', key, { name, force: true });

    expect(cached.status).toBe(200);
    expect(cached.body).toMatchObject({ skipped: true, screen_id: first.body.screen_id });
    expect(forced.status).toBe(429);
  });

  it('charges five identical screens sent at once one screen; the other four return it as skipped', async () => {
    const key = await starterTenantWithUsage(0);
    const name = madeUpName();

    const results = await Promise.all(
      Array.from({ length: 5 }, () => local.api.post('/screen', key, { name })),
    );

    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(results.filter((r) => r.body.skipped === false)).toHaveLength(1);
    expect(new Set(results.map((r) => r.body.screen_id)).size).toBe(1);
    expect((await local.api.get('/me', key)).body.usage.screens_used).toBe(1);
    expect((await local.api.get('/screens', key)).body.screens).toHaveLength(1);
  });

  it('at the limit, identical screens sent at once still get the one fresh screen, not a 429', async () => {
    const key = await starterTenantWithUsage(999);
    const name = madeUpName();

    const results = await Promise.all(
      Array.from({ length: 4 }, () => local.api.post('/screen', key, { name })),
    );

    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(results.map((r) => r.body.screen_id)).size).toBe(1);
    expect((await local.api.get('/me', key)).body.usage.screens_used).toBe(1000);
  });

  it('never limits Enterprise', async () => {
    const key = demoKey(local.stack, 'tdemoenterprise', 'analyst').api_key;
    await chargeScreens(getServices().table, 'tdemoenterprise', 1_000_000, null);

    const { status } = await local.api.post('/screen', key, { name: madeUpName() });

    expect(status).toBe(200);
    expect((await local.api.get('/me', key)).body.usage).toMatchObject({
      screens_used: 1_000_001,
      screens_allowed: null,
      screens_remaining: null,
    });
  });
});
