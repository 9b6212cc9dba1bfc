import { beforeAll, describe, expect, it } from 'vitest';
import { getServices } from '../../lib/runtime/services.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { demoKey, madeUpName, useLocalStack } from '../support/api-client.ts';

const local = useLocalStack();
let ownerKey: string;
let otherAdmin: string;
let otherAnalyst: string;
let screenId: string;
let disposedId: string;
const name = madeUpName();

beforeAll(async () => {
  ownerKey = demoKey(local.stack, 'tdemoenterprise', 'admin').api_key;
  otherAdmin = demoKey(local.stack, 'tdemostarter', 'admin').api_key;
  otherAnalyst = demoKey(local.stack, 'tdemostarter', 'analyst').api_key;
  screenId = (await local.api.post('/screen', ownerKey, { name })).body.screen_id;
  disposedId = (await local.api.post('/screen', ownerKey, { name: madeUpName() })).body.screen_id;
  const analyst = demoKey(local.stack, 'tdemoenterprise', 'analyst').api_key;
  await local.api.post(`/screens/${disposedId}/dispose`, analyst, {
    disposition: 'cleared',
    note: 'private',
  });
}, 60_000);

describe('tenant isolation of the screening endpoints', () => {
  it('another tenant gets 404 for every per-screen endpoint and changes nothing', async () => {
    for (const key of [otherAdmin, otherAnalyst]) {
      for (const id of [screenId, disposedId]) {
        expect((await local.api.get(`/screens/${id}`, key)).status).toBe(404);
        expect((await local.api.get(`/screens/${id}/history`, key)).status).toBe(404);
        expect(
          (await local.api.post(`/screens/${id}/dispose`, key, { disposition: 'cleared', override: true }))
            .status,
        ).toBe(404);
        expect((await local.api.delete(`/screens/${id}`, key)).status).toBe(404);
      }
    }
    expect(
      (
        await local.api.post(`/screens/${disposedId}/dispose`, otherAdmin, {
          disposition: 'approved',
          approves_version: 1,
        })
      ).status,
    ).toBe(404);

    const owner = await local.api.get(`/screens/${disposedId}/history`, ownerKey);
    expect(owner.status).toBe(200);
    expect(owner.body.history).toHaveLength(1);
    expect((await local.api.get(`/screens/${screenId}`, ownerKey)).body.disposition).toBeNull();
  });

  it('never lists another tenant’s screens, pending or not', async () => {
    const fresh = await createTenant(getServices().table, { name: 'Isolation Third', plan: 'growth' });
    for (const key of [otherAdmin, otherAnalyst, fresh.admin.api_key]) {
      const all = (await local.api.get('/screens?limit=200', key)).body;
      const pending = (await local.api.get('/screens/pending?limit=200', key)).body;
      const ids = [...all.screens, ...pending.screens].map((s: { screen_id: string }) => s.screen_id);
      expect(ids).not.toContain(screenId);
      expect(ids).not.toContain(disposedId);
    }
    expect((await local.api.get('/screens', fresh.admin.api_key)).body).toEqual({
      screens: [],
      next_cursor: null,
    });
    expect((await local.api.get('/screens/pending', fresh.admin.api_key)).body).toEqual({
      screens: [],
      next_cursor: null,
    });
  });

  it('refuses another tenant’s cursor with 400 instead of paging through its data', async () => {
    await local.api.post('/screen', ownerKey, { name: madeUpName() });
    const page = (await local.api.get('/screens?limit=1', ownerKey)).body;
    expect(page.next_cursor).toEqual(expect.any(String));

    const refused = await local.api.get(`/screens?limit=1&cursor=${page.next_cursor}`, otherAdmin);

    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/^cursor:/);
  });

  it('keeps the rescreen window per tenant: the same subject elsewhere is a fresh, charged screen', async () => {
    const before = (await local.api.get('/me', otherAdmin)).body.usage.screens_used;

    const { status, body } = await local.api.post('/screen', otherAdmin, { name });

    expect(status).toBe(200);
    expect(body.skipped).toBe(false);
    expect(body.created_by.user_id).toBe(demoKey(local.stack, 'tdemostarter', 'admin').user_id);
    expect((await local.api.get('/me', otherAdmin)).body.usage.screens_used).toBe(before + 1);
    // Ids are per-tenant sequences, so the same id may exist in both tenants; each sees its own.
    expect((await local.api.get(`/screens/${screenId}`, ownerKey)).body.created_by.user_id).toBe(
      demoKey(local.stack, 'tdemoenterprise', 'admin').user_id,
    );
  });
});
