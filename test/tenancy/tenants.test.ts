import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, UnauthorizedError } from '../../lib/common/errors.ts';
import { parseApiKey } from '../../lib/tenancy/api-keys.ts';
import { authenticate, rotateApiKey } from '../../lib/tenancy/auth.ts';
import { OPERATIONS_ISSUER } from '../../lib/tenancy/key-lineage.ts';
import { addUser, changePlan, createTenant, listTenants } from '../../lib/tenancy/tenants.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store.close());

describe('tenants, users and keys', () => {
  it('creates a tenant whose admin key authenticates to that tenant, plan and role', async () => {
    const { tenant, admin } = await createTenant(store.table, { name: 'Harbour Bank', plan: 'growth' });

    const principal = await authenticate(store.table, admin.api_key);

    expect(principal).toMatchObject({
      tenantId: tenant.tenant_id,
      tenantName: 'Harbour Bank',
      role: 'admin',
    });
    expect(principal.plan).toMatchObject({
      id: 'growth',
      monthly_screens: 5000,
      analyst_seats: 5,
      batch: true,
    });
  });

  it('issues keys of a recognisable prefix with at least 32 random bytes, stored only as a hash', async () => {
    const { admin } = await createTenant(store.table, { name: 'Key Format Ltd', plan: 'starter' });

    expect(admin.api_key).toMatch(/^isk_[a-z0-9]+\.[a-z0-9]+\.[A-Za-z0-9_-]{43}$/);
    expect(parseApiKey(admin.api_key)).toBeDefined();
    expect(JSON.stringify(admin.user)).not.toContain(admin.api_key.split('.')[2]);
  });

  it('answers every bad key with the same 401', async () => {
    const { admin } = await createTenant(store.table, { name: 'Probe Target', plan: 'starter' });
    const [tenantPart, userPart] = admin.api_key.split('.');
    const guesses = [
      undefined,
      '',
      'not-a-key',
      `${tenantPart}.${userPart}.${'A'.repeat(43)}`,
      `isk_tnosuchtenant.unosuchuser.${'A'.repeat(43)}`,
    ];

    for (const guess of guesses) {
      const error = await authenticate(store.table, guess).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnauthorizedError);
      expect((error as UnauthorizedError).detail).toBe(new UnauthorizedError().detail);
    }
  });

  it('rotation invalidates the old key at once and the new key works', async () => {
    const { admin } = await createTenant(store.table, { name: 'Rotate Co', plan: 'starter' });
    const principal = await authenticate(store.table, admin.api_key);

    const rotated = await rotateApiKey(store.table, principal, admin.api_key);

    await expect(authenticate(store.table, admin.api_key)).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(authenticate(store.table, rotated.api_key)).resolves.toMatchObject({
      userId: principal.userId,
    });
  });

  it('two concurrent rotations leave exactly one working key', async () => {
    const { admin } = await createTenant(store.table, { name: 'Race Co', plan: 'starter' });
    const principal = await authenticate(store.table, admin.api_key);

    const outcomes = await Promise.allSettled([
      rotateApiKey(store.table, principal, admin.api_key),
      rotateApiKey(store.table, principal, admin.api_key),
    ]);

    const winners = outcomes.filter((o) => o.status === 'fulfilled');
    expect(winners).toHaveLength(1);
    const candidates = [
      admin.api_key,
      ...winners.map((w) => (w as PromiseFulfilledResult<{ api_key: string }>).value.api_key),
    ];
    const working = await Promise.all(
      candidates.map((key) =>
        authenticate(store.table, key).then(
          () => true,
          () => false,
        ),
      ),
    );
    expect(working.filter(Boolean)).toHaveLength(1);
  });

  it('refuses analysts beyond the plan seats, also when added concurrently', async () => {
    const { tenant } = await createTenant(store.table, { name: 'Small Shop', plan: 'starter' });

    const outcomes = await Promise.allSettled([
      addUser(store.table, tenant.tenant_id, { name: 'A', role: 'analyst', issuer: OPERATIONS_ISSUER }),
      addUser(store.table, tenant.tenant_id, { name: 'B', role: 'analyst', issuer: OPERATIONS_ISSUER }),
      addUser(store.table, tenant.tenant_id, { name: 'C', role: 'analyst', issuer: OPERATIONS_ISSUER }),
    ]);

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes.filter((o) => o.status === 'rejected')) {
      expect((o as PromiseRejectedResult).reason).toBeInstanceOf(ConflictError);
    }
    await expect(
      addUser(store.table, tenant.tenant_id, {
        name: 'Second admin',
        role: 'admin',
        issuer: OPERATIONS_ISSUER,
      }),
    ).resolves.toBeDefined();
  });

  it('changes a plan, refusing a downgrade below the analysts in use', async () => {
    const { tenant } = await createTenant(store.table, { name: 'Growing Co', plan: 'growth' });
    await addUser(store.table, tenant.tenant_id, { name: 'A', role: 'analyst', issuer: OPERATIONS_ISSUER });
    await addUser(store.table, tenant.tenant_id, { name: 'B', role: 'analyst', issuer: OPERATIONS_ISSUER });

    await expect(changePlan(store.table, tenant.tenant_id, 'starter')).rejects.toBeInstanceOf(ConflictError);
    await expect(changePlan(store.table, tenant.tenant_id, 'enterprise')).resolves.toMatchObject({
      plan: 'enterprise',
    });
    expect((await listTenants(store.table)).map((t) => t.tenant_id)).toContain(tenant.tenant_id);
  });
});
