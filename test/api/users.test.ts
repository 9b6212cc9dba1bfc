import { describe, expect, it } from 'vitest';
import { demoKey, madeUpName, useLocalStack } from '../support/api-client.ts';

/** User and key management through the API, black box: admins of a tenant manage its users only. */
const local = useLocalStack();

const starterAdmin = () => demoKey(local.stack, 'tdemostarter', 'admin');
const starterAnalyst = () => demoKey(local.stack, 'tdemostarter', 'analyst');
const enterpriseAdmin = () => demoKey(local.stack, 'tdemoenterprise', 'admin');

describe('user and key management', () => {
  it('GET /users lists the tenant’s own users, never a key; analysts get 403, no key 401', async () => {
    const { status, body } = await local.api.get('/users', enterpriseAdmin().api_key);

    expect(status).toBe(200);
    const enterpriseIds = local.stack.demoKeys
      .filter((k) => k.tenant_id === 'tdemoenterprise')
      .map((k) => k.user_id);
    expect(body.users.map((u: { user_id: string }) => u.user_id).sort()).toEqual([...enterpriseIds].sort());
    expect(body.users[0]).toMatchObject({ status: 'active', key_hint: expect.stringMatching(/…$/) });
    expect(JSON.stringify(body)).not.toMatch(/key_hash|isk_[^…"]{40,}/);
    const analyst = await local.api.get('/users', demoKey(local.stack, 'tdemoenterprise', 'analyst').api_key);
    expect(analyst.status).toBe(403);
    expect(analyst.body.detail).toMatch(/admin/);
    expect((await local.api.get('/users')).status).toBe(401);
  });

  it('disabling an analyst: their key fails at once, the seat is free for a new analyst, their screens and notes stay', async () => {
    const admin = starterAdmin().api_key;
    const analyst = starterAnalyst();
    const screen = (await local.api.post('/screen', analyst.api_key, { name: madeUpName() })).body;
    await local.api.post(`/screens/${screen.screen_id}/dispose`, analyst.api_key, {
      disposition: 'needs_review',
      note: 'check the passport',
    });
    const full = await local.api.post('/users', admin, { name: 'Second Analyst' });
    expect(full.status).toBe(409);
    expect(full.body.detail).toMatch(/seat/);

    const disabled = await local.api.post(`/users/${analyst.user_id}/disable`, admin);

    expect(disabled.status).toBe(200);
    expect(disabled.body.user).toMatchObject({
      user_id: analyst.user_id,
      status: 'disabled',
      key_hint: null,
    });
    expect((await local.api.get('/me', analyst.api_key)).status).toBe(401);
    const stored = await local.api.get(`/screens/${screen.screen_id}/history`, admin);
    expect(stored.body.history[0]).toMatchObject({
      note: 'check the passport',
      author: { user_id: analyst.user_id },
    });
    const added = await local.api.post('/users', admin, { name: 'Replacement Analyst' });
    expect(added.status).toBe(201);
    expect(added.body.user).toMatchObject({ name: 'Replacement Analyst', role: 'analyst', status: 'active' });
    expect((await local.api.get('/me', added.body.api_key)).body.user.user_id).toBe(added.body.user.user_id);
    expect((await local.api.post(`/users/${analyst.user_id}/disable`, admin)).status).toBe(409);

    const audit = await local.api.get('/audit?limit=50', admin);
    expect(audit.status).toBe(200);
    const outcomes = audit.body.entries.filter(
      (e: { action: string; outcome: string }) => e.action.startsWith('user.') && e.outcome !== 'started',
    );
    expect(
      outcomes.slice(0, 3).map((e: { action: string; outcome: string }) => `${e.action} ${e.outcome}`),
    ).toEqual(['user.disable refused', 'user.add done', 'user.disable done']);
    expect(outcomes[2]).toMatchObject({
      actor: { user_id: starterAdmin().user_id, role: 'admin' },
      target: { user_id: analyst.user_id },
    });
    expect((await local.api.get('/audit', added.body.api_key)).status).toBe(403);
  });

  it('every user.add entry names the user added, the write-ahead `started` one included', async () => {
    const admin = enterpriseAdmin().api_key;

    const added = await local.api.post('/users', admin, { name: 'Named In The Trail' });

    expect(added.status).toBe(201);
    const audit = await local.api.get('/audit?limit=20', admin);
    const entries = audit.body.entries.filter(
      (e: { action: string; target: { user_id?: string } }) =>
        e.action === 'user.add' && e.target.user_id === added.body.user.user_id,
    );
    expect(entries.map((e: { outcome: string }) => e.outcome).sort()).toEqual(['done', 'started']);
    expect(JSON.stringify(entries)).not.toContain('Named In The Trail');
  });

  it('revoking a key: the old key fails at once, the new one (shown once) works', async () => {
    const admin = enterpriseAdmin().api_key;
    const analyst = demoKey(local.stack, 'tdemoenterprise', 'analyst', 1);

    const revoked = await local.api.post(`/users/${analyst.user_id}/revoke-key`, admin);

    expect(revoked.status).toBe(200);
    expect(revoked.body.api_key).toMatch(/^isk_tdemoenterprise\./);
    expect((await local.api.get('/me', analyst.api_key)).status).toBe(401);
    expect((await local.api.get('/me', revoked.body.api_key)).status).toBe(200);
  });

  it('another tenant’s user is 404 and untouched; admins cannot add admins; bad input is 400', async () => {
    const admin = enterpriseAdmin().api_key;
    const theirs = starterAdmin();

    for (const action of ['disable', 'revoke-key']) {
      const refused = await local.api.post(`/users/${theirs.user_id}/${action}`, admin);
      expect(refused.status).toBe(404);
      expect(refused.body.detail).toBe(`User ${theirs.user_id} not found`);
      expect((await local.api.post(`/users/${'u'.repeat(1500)}/${action}`, admin)).status).toBe(404);
    }
    expect((await local.api.get('/me', theirs.api_key)).status).toBe(200);
    const self = await local.api.post(`/users/${enterpriseAdmin().user_id}/disable`, admin);
    expect(self.status).toBe(403);

    const asAdmin = await local.api.post('/users', admin, { name: 'Puppet Admin', role: 'admin' });
    expect(asAdmin.status).toBe(403);
    expect(asAdmin.body.detail).toMatch(/operations/);
    expect((await local.api.post('/users', admin, { name: 'X' })).body.detail).toBe(
      'name: must be at least 2 characters',
    );
    expect((await local.api.post('/users', admin, { name: 'Ann', seats: 3 })).body.detail).toMatch(
      /^seats: is not a known field/,
    );
    expect((await local.api.post('/users', admin, { name: 'Ann', role: 'owner' })).status).toBe(400);
    expect((await local.api.get('/audit?cursor=bogus', admin)).status).toBe(400);
  });

  it('a key is revoked by an admin only, and never for a disabled user', async () => {
    const admin = enterpriseAdmin().api_key;
    const added = (await local.api.post('/users', admin, { name: madeUpName() })).body;

    const byAnalyst = await local.api.post(
      `/users/${added.user.user_id}/revoke-key`,
      demoKey(local.stack, 'tdemoenterprise', 'analyst').api_key,
    );
    await local.api.post(`/users/${added.user.user_id}/disable`, admin);
    const ofDisabled = await local.api.post(`/users/${added.user.user_id}/revoke-key`, admin);

    expect(byAnalyst.status).toBe(403);
    expect(byAnalyst.body.detail).toMatch(/admin/);
    expect(ofDisabled.status).toBe(409);
    expect(ofDisabled.body.detail).toMatch(/disabled/);
    expect((await local.api.get('/me', added.api_key)).status).toBe(401);
  });
});
