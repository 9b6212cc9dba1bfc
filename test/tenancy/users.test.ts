import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit, OPS_ACTOR } from '../../lib/audit/trail.ts';
import { authenticate } from '../../lib/tenancy/auth.ts';
import { createTenant, getTenant } from '../../lib/tenancy/tenants.ts';
import { addTenantUser, disableUser, listUsers, revokeUserKey } from '../../lib/tenancy/users.ts';
import { chainAudit } from '../support/audit-chain.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store.close());

async function tenantWithAdmin(plan: 'starter' | 'growth' = 'starter') {
  const { tenant, admin } = await createTenant(store.table, { name: 'Users Bank', plan });
  const actor = { user_id: admin.user.user_id, role: 'admin' as const };
  return { tenantId: tenant.tenant_id, admin, actor };
}

describe('user and key management', () => {
  it('adds analysts within the plan’s seats, lists them, and audits each attempt', async () => {
    const { tenantId, admin, actor } = await tenantWithAdmin('starter');

    const added = await addTenantUser(store.table, actor, tenantId, { name: 'Ann Analyst', role: 'analyst' });
    await expect(
      addTenantUser(store.table, actor, tenantId, { name: 'Bob Analyst', role: 'analyst' }),
    ).rejects.toMatchObject({ status: 409, detail: expect.stringMatching(/1 analyst seat/) });

    expect((await authenticate(store.table, added.api_key)).role).toBe('analyst');
    const { users } = await listUsers(store.table, tenantId);
    expect(users.map((u) => [u.user_id, u.role, u.status])).toEqual([
      [admin.user.user_id, 'admin', 'active'],
      [added.user.user_id, 'analyst', 'active'],
    ]);
    expect(JSON.stringify(users)).not.toContain('key_hash');
    await chainAudit(store.table, tenantId);
    const { entries } = await listAudit(store.table, tenantId);
    const seqOf = new Map(entries.map((e) => [e.entry_id, e.seq]));
    // Newest first: each attempt's started entry, then its outcome naming it.
    expect(
      entries.map((e) => [
        e.seq,
        e.action,
        e.outcome,
        e.started_entry_id && seqOf.get(e.started_entry_id),
        e.actor.user_id,
      ]),
    ).toEqual([
      [4, 'user.add', 'refused', 3, actor.user_id],
      [3, 'user.add', 'started', undefined, actor.user_id],
      [2, 'user.add', 'done', 1, actor.user_id],
      [1, 'user.add', 'started', undefined, actor.user_id],
    ]);
    expect(entries[0].outcome_detail).toMatch(/seat/);
    expect(entries[2].target).toEqual({ user_id: added.user.user_id });
  });

  it('disabling a user stops their key at once and frees their seat; the user stays listed', async () => {
    const { tenantId, actor } = await tenantWithAdmin('starter');
    const analyst = await addTenantUser(store.table, actor, tenantId, { name: 'Ann', role: 'analyst' });

    const { user } = await disableUser(store.table, actor, tenantId, analyst.user.user_id);

    expect(user).toMatchObject({ status: 'disabled', disabled_by: actor.user_id, key_hint: null });
    await expect(authenticate(store.table, analyst.api_key)).rejects.toMatchObject({ status: 401 });
    expect((await getTenant(store.table, tenantId))?.analyst_count).toBe(0);
    const next = await addTenantUser(store.table, actor, tenantId, { name: 'Cy', role: 'analyst' });
    expect((await authenticate(store.table, next.api_key)).userId).toBe(next.user.user_id);
    expect(
      (await listUsers(store.table, tenantId)).users.find((u) => u.user_id === user.user_id)?.status,
    ).toBe('disabled');
  });

  it('two concurrent disables of one analyst: one succeeds, the other is 409, the seat is freed once', async () => {
    const { tenantId, actor } = await tenantWithAdmin('growth');
    await addTenantUser(store.table, actor, tenantId, { name: 'Keep', role: 'analyst' });
    const analyst = await addTenantUser(store.table, actor, tenantId, { name: 'Go', role: 'analyst' });

    const results = await Promise.allSettled([
      disableUser(store.table, actor, tenantId, analyst.user.user_id),
      disableUser(store.table, OPS_ACTOR, tenantId, analyst.user.user_id),
    ]);

    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ status: 409, detail: expect.stringMatching(/is disabled/) });
    expect((await getTenant(store.table, tenantId))?.analyst_count).toBe(1);
  });

  it('refuses disabling yourself (403), an unknown or another tenant’s user (404)', async () => {
    const { tenantId, admin, actor } = await tenantWithAdmin();
    const other = await tenantWithAdmin();
    const otherAnalyst = await addTenantUser(store.table, other.actor, other.tenantId, {
      name: 'Theirs',
      role: 'analyst',
    });

    await expect(disableUser(store.table, actor, tenantId, admin.user.user_id)).rejects.toMatchObject({
      status: 403,
    });
    for (const userId of ['unobody', otherAnalyst.user.user_id, '../x', 'u'.repeat(2000)]) {
      await expect(disableUser(store.table, actor, tenantId, userId)).rejects.toMatchObject({ status: 404 });
      await expect(revokeUserKey(store.table, actor, tenantId, userId)).rejects.toMatchObject({
        status: 404,
      });
    }
    expect((await authenticate(store.table, otherAnalyst.api_key)).tenantId).toBe(other.tenantId);
  });

  it('revoking a key issues a new one: the old key is refused, the new one works; a disabled user’s is 409', async () => {
    const { tenantId, actor } = await tenantWithAdmin('growth');
    const analyst = await addTenantUser(store.table, actor, tenantId, { name: 'Ann', role: 'analyst' });

    const revoked = await revokeUserKey(store.table, actor, tenantId, analyst.user.user_id);

    await expect(authenticate(store.table, analyst.api_key)).rejects.toMatchObject({ status: 401 });
    expect((await authenticate(store.table, revoked.api_key)).userId).toBe(analyst.user.user_id);
    expect(revoked.api_key).not.toBe(analyst.api_key);
    await disableUser(store.table, actor, tenantId, analyst.user.user_id);
    await expect(revokeUserKey(store.table, actor, tenantId, analyst.user.user_id)).rejects.toMatchObject({
      status: 409,
    });
    await expect(authenticate(store.table, revoked.api_key)).rejects.toMatchObject({ status: 401 });
    await chainAudit(store.table, tenantId);
    const actions = (await listAudit(store.table, tenantId)).entries
      .filter((e) => e.outcome !== 'started')
      .map((e) => `${e.action} ${e.outcome}`);
    expect(actions).toEqual([
      'user.revoke-key refused',
      'user.disable done',
      'user.revoke-key done',
      'user.add done',
    ]);
  });

  it('pages the audit trail newest first with a cursor bound to the tenant', async () => {
    const { tenantId, actor } = await tenantWithAdmin('growth');
    const other = await tenantWithAdmin('growth');
    for (const name of ['A1', 'A2', 'A3']) {
      await addTenantUser(store.table, actor, tenantId, { name, role: 'analyst' });
    }

    // Three additions, each a started and a done entry: six in all.
    await chainAudit(store.table, tenantId);
    const first = await listAudit(store.table, tenantId, 4);
    const second = await listAudit(store.table, tenantId, 4, first.next_cursor!);

    expect(first.entries).toHaveLength(4);
    expect(second.entries).toHaveLength(2);
    expect(second.next_cursor).toBeNull();
    expect([...first.entries, ...second.entries].map((e) => e.seq)).toEqual([6, 5, 4, 3, 2, 1]);
    await expect(listAudit(store.table, other.tenantId, 2, first.next_cursor!)).rejects.toMatchObject({
      status: 400,
    });
    expect((await listAudit(store.table, other.tenantId)).entries).toEqual([]);
  });
});
