import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { getServices } from '../../lib/runtime/services.ts';
import { OPERATIONS_ISSUER } from '../../lib/tenancy/key-lineage.ts';
import { addUser, createTenant } from '../../lib/tenancy/tenants.ts';
import { madeUpName, useLocalStack } from '../support/api-client.ts';

/**
 * Issue 19, items 1 and 2, black box through the local stack: approval works for a client written
 * only to the contract and still binds to the decision reviewed; no person holds two identities in
 * a four-eyes pair (docs/api-guide.md#the-four-eyes-rule).
 */
const local = useLocalStack();
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

interface Person {
  id: string;
  key: string;
}

/** A fresh Enterprise tenant from operations: two admins and one analyst, keys handed over by ops. */
let tenants = 0;
async function tenant(): Promise<{ tenantId: string; adminA: Person; adminB: Person; analyst: Person }> {
  const table = getServices().table;
  tenants += 1;
  const made = await createTenant(table, { name: `Four Eyes Bank ${tenants}`, plan: 'enterprise' });
  const tenantId = made.tenant.tenant_id;
  const person = (user: { user: { user_id: string }; api_key: string }) => ({
    id: user.user.user_id,
    key: user.api_key,
  });
  const adminB = await addUser(table, tenantId, {
    name: 'Bea Admin',
    role: 'admin',
    issuer: OPERATIONS_ISSUER,
  });
  const analyst = await addUser(table, tenantId, {
    name: 'Olu Analyst',
    role: 'analyst',
    issuer: OPERATIONS_ISSUER,
  });
  return { tenantId, adminA: person(made.admin), adminB: person(adminB), analyst: person(analyst) };
}

async function newScreen(key: string): Promise<string> {
  const { status, body } = await local.api.post('/screen', key, { name: madeUpName() });
  expect(status).toBe(200);
  return body.screen_id;
}
const dispose = (id: string, key: string, body: unknown) =>
  local.api.post(`/screens/${id}/dispose`, key, body);
const screen = async (id: string, key: string) => (await local.api.get(`/screens/${id}`, key)).body;
const historyOf = async (id: string, key: string) =>
  (await local.api.get(`/screens/${id}/history`, key)).body;

/** `npm run admin -- <args>` in its own process, on the running stack's store. */
async function opsCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    LOG_LEVEL: 'silent',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', `${repoRoot}scripts/admin.ts`, ...args],
      { cwd: repoRoot, env },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('approval works for a client written to the contract, and still binds', () => {
  it('a contract-only client: an analyst disposes with approval_requested, a second admin approves with {"disposition":"approved"}: 200', async () => {
    const { adminA, adminB } = await tenant();
    // The analyst comes from the account administration page (POST /users), as a contract client's would.
    const added = await local.api.post('/users', adminA.key, { name: 'Ann Analyst' });
    expect(added.status).toBe(201);
    const analystKey = added.body.api_key;
    const id = await newScreen(analystKey);

    const decided = await dispose(id, analystKey, {
      disposition: 'false_positive',
      note: 'DOB differs by 20 years',
      override: false,
      approval_requested: true,
    });
    expect(decided.status).toBe(200);
    const approved = await dispose(id, adminB.key, { disposition: 'approved', note: 'Agreed' });

    expect(approved.status).toBe(200);
    expect(approved.body.disposition).toMatchObject({
      disposition: 'approved',
      note: 'Agreed',
      author: { user_id: adminB.id, role: 'admin' },
      awaiting_approval: false,
      decision_version: 1,
      approved_decision: { disposition: 'false_positive', author: { user_id: added.body.user.user_id } },
    });
    expect((await screen(id, analystKey)).disposition).toMatchObject({
      disposition: 'approved',
      author: { user_id: adminB.id },
    });
    // The sign-off is bound to the version it signed off, exactly as if it had been named.
    const stored = await historyOf(id, adminB.key);
    expect(stored.history[1]).toMatchObject({
      disposition: 'approved',
      approves_version: 1,
      approves: { version: 1, disposition: 'false_positive' },
    });
    const again = await dispose(id, adminA.key, { disposition: 'approved' });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/already approved/);
  });

  it('without approves_version and nothing awaiting approval → 409 naming the version to send; the named form still signs it off', async () => {
    const { adminB, analyst } = await tenant();
    const id = await newScreen(analyst.key);
    const pending = await dispose(id, adminB.key, { disposition: 'approved' });
    expect(pending.status).toBe(409);
    expect(pending.body.detail).toMatch(/pending/);
    await dispose(id, analyst.key, { disposition: 'cleared' });

    const refused = await dispose(id, adminB.key, { disposition: 'approved' });

    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('nothing awaits approval');
    expect(refused.body.detail).toContain('{"disposition":"approved","approves_version":1}');
    expect((await historyOf(id, adminB.key)).history).toHaveLength(1);
    expect((await dispose(id, adminB.key, { disposition: 'approved', approves_version: 1 })).status).toBe(
      200,
    );
  });

  it('the stale-approval attack fails in every form: the admin read A, an analyst overrode it to B', async () => {
    const { adminA, adminB, analyst } = await tenant();
    const other = (await local.api.post('/users', adminA.key, { name: 'Second Analyst' })).body;

    for (const bRequestsApproval of [false, true]) {
      const id = await newScreen(analyst.key);
      await dispose(id, analyst.key, { disposition: 'confirmed_hit', approval_requested: true });
      const seen = (await historyOf(id, adminB.key)).disposition;
      expect(seen).toMatchObject({
        disposition: 'confirmed_hit',
        decision_version: 1,
        awaiting_approval: true,
      });
      await dispose(id, other.api_key, {
        disposition: 'cleared',
        override: true,
        approval_requested: bRequestsApproval,
      });

      const named = await dispose(id, adminB.key, { disposition: 'approved', approves_version: 1 });
      const unnamed = await dispose(id, adminB.key, {
        disposition: 'approved',
        note: 'agree: confirmed hit',
      });

      expect(named.status).toBe(409);
      expect(named.body.detail).toContain('you reviewed decision_version 1 (confirmed_hit)');
      expect(named.body.detail).toContain('cleared (decision_version 2)');
      expect(unnamed.status).toBe(409);
      expect(unnamed.body.detail).toContain('{"disposition":"approved","approves_version":2}');
      expect(unnamed.body.detail).toMatch(
        bRequestsApproval ? /replaced an earlier decision \(confirmed_hit/ : /nothing awaits approval/,
      );
      const stored = await historyOf(id, adminB.key);
      expect(stored.history.map((e: { disposition: string }) => e.disposition)).toEqual([
        'confirmed_hit',
        'cleared',
      ]);
      expect(stored.disposition).toMatchObject({ disposition: 'cleared', decision_version: 2 });
      // Approving what is in force, by name, works.
      expect((await dispose(id, adminB.key, { disposition: 'approved', approves_version: 2 })).status).toBe(
        200,
      );
    }
  });

  it('an override of an approved decision that requests approval again is signed off by version only', async () => {
    const { adminB, analyst } = await tenant();
    const id = await newScreen(analyst.key);
    await dispose(id, analyst.key, { disposition: 'needs_review', approval_requested: true });
    expect((await dispose(id, adminB.key, { disposition: 'approved' })).status).toBe(200);
    await dispose(id, analyst.key, {
      disposition: 'confirmed_hit',
      override: true,
      approval_requested: true,
    });

    const unnamed = await dispose(id, adminB.key, { disposition: 'approved' });

    expect(unnamed.status).toBe(409);
    expect(unnamed.body.detail).toContain('"approves_version":3');
    expect((await dispose(id, adminB.key, { disposition: 'approved', approves_version: 3 })).status).toBe(
      200,
    );
  });

  it('an admin approving their own decision without a version → 403 (four eyes), another admin → 200', async () => {
    const { adminA, adminB } = await tenant();
    const id = await newScreen(adminA.key);
    await dispose(id, adminA.key, { disposition: 'confirmed_hit', approval_requested: true });

    const own = await dispose(id, adminA.key, { disposition: 'approved' });

    expect(own.status).toBe(403);
    expect(own.body.detail).toMatch(/another admin/);
    expect((await dispose(id, adminB.key, { disposition: 'approved' })).status).toBe(200);
  });
});

describe('no person holds two identities in a four-eyes pair', () => {
  it('an admin who added an analyst (POST /users hands them the key) cannot approve that analyst’s decisions; another admin can', async () => {
    const { adminA, adminB } = await tenant();
    const added = (await local.api.post('/users', adminA.key, { name: 'Puppet Analyst' })).body;
    expect(added.user).toMatchObject({ key_issued_by: adminA.id, key_lineage: [adminA.id] });
    const id = await newScreen(added.api_key);
    // The admin acts as the analyst with the key they were handed ...
    await dispose(id, added.api_key, { disposition: 'cleared', approval_requested: true });

    // ... and tries to approve as themselves, in both forms.
    const unnamed = await dispose(id, adminA.key, { disposition: 'approved' });
    const named = await dispose(id, adminA.key, { disposition: 'approved', approves_version: 1 });

    for (const refused of [unnamed, named]) {
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toContain('four-eyes principle');
      expect(refused.body.detail).toContain(`you (${adminA.id}) issued or could hold the API key`);
    }
    const stored = await historyOf(id, adminA.key);
    expect(stored.disposition).toMatchObject({ disposition: 'cleared', awaiting_approval: true });
    expect(stored.history[0].author_key_lineage).toEqual([adminA.id]);
    expect((await dispose(id, adminB.key, { disposition: 'approved' })).status).toBe(200);
  });

  it('an admin cannot reset another admin’s key (POST /users/{admin}/revoke-key → 403 naming the ops CLI); that admin’s key keeps working', async () => {
    const { tenantId, adminA, adminB } = await tenant();

    const other = await local.api.post(`/users/${adminB.id}/revoke-key`, adminA.key);
    const self = await local.api.post(`/users/${adminA.id}/revoke-key`, adminA.key);

    expect(other.status).toBe(403);
    expect(other.body.detail).toContain(
      `npm run admin -- revoke-key --tenant ${tenantId} --user ${adminB.id}`,
    );
    expect(other.body).not.toHaveProperty('api_key');
    expect(self.status).toBe(403);
    expect(self.body.detail).toContain('POST /me/rotate-key');
    expect((await local.api.get('/me', adminB.key)).status).toBe(200);
    expect((await local.api.get('/me', adminA.key)).status).toBe(200);
    const audit = (await local.api.get('/audit?limit=4', adminA.key)).body.entries;
    expect(audit.map((e: { action: string; outcome: string }) => `${e.action} ${e.outcome}`)).toEqual([
      'user.revoke-key refused',
      'user.revoke-key started',
      'user.revoke-key refused',
      'user.revoke-key started',
    ]);
  });

  it('an admin who reset an analyst’s key (and so received it) cannot approve decisions made with it', async () => {
    const { adminA, adminB, analyst } = await tenant();
    const reset = await local.api.post(`/users/${analyst.id}/revoke-key`, adminA.key);
    expect(reset.status).toBe(200);
    expect(reset.body.user).toMatchObject({ key_issued_by: adminA.id, key_lineage: [adminA.id] });
    const id = await newScreen(reset.body.api_key);
    await dispose(id, reset.body.api_key, { disposition: 'false_positive', approval_requested: true });

    const refused = await dispose(id, adminA.key, { disposition: 'approved' });

    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('four-eyes principle');
    expect((await dispose(id, adminB.key, { disposition: 'approved' })).status).toBe(200);
  });

  it('a rotation keeps the lineage: the admin held the key that authorised it, so holds the new one', async () => {
    const { adminA } = await tenant();
    const added = (await local.api.post('/users', adminA.key, { name: 'Rotating Analyst' })).body;
    const rotated = await local.api.post('/me/rotate-key', added.api_key);
    expect(rotated.status).toBe(200);
    const id = await newScreen(rotated.body.api_key);
    await dispose(id, rotated.body.api_key, { disposition: 'cleared', approval_requested: true });

    const refused = await dispose(id, adminA.key, { disposition: 'approved' });

    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain(`you (${adminA.id}) issued or could hold`);
    const listed = (await local.api.get('/users', adminA.key)).body.users.find(
      (u: { user_id: string }) => u.user_id === added.user.user_id,
    );
    expect(listed).toMatchObject({ key_issued_by: added.user.user_id, key_lineage: [adminA.id] });
  });

  it('an admin who took over an analyst’s current key cannot approve that analyst’s earlier decisions either', async () => {
    const { adminA, adminB, analyst } = await tenant();
    const id = await newScreen(analyst.key);
    // A decision the analyst made with the key operations handed them ...
    await dispose(id, analyst.key, { disposition: 'cleared', approval_requested: true });
    // ... then an admin resets the analyst's key and now holds the only one that works.
    expect((await local.api.post(`/users/${analyst.id}/revoke-key`, adminA.key)).status).toBe(200);

    const refused = await dispose(id, adminA.key, { disposition: 'approved' });

    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('four-eyes principle');
    expect((await dispose(id, adminB.key, { disposition: 'approved' })).status).toBe(200);
  });

  it('operations resets an admin’s key with the ops CLI (audited as ops, lineage cleared); a decision made with an admin-issued key stays unapprovable by that admin', async () => {
    const { tenantId, adminA, adminB } = await tenant();
    const added = (await local.api.post('/users', adminA.key, { name: 'Reset Analyst' })).body;
    const analystId = added.user.user_id;
    const id = await newScreen(added.api_key);
    await dispose(id, added.api_key, { disposition: 'confirmed_hit', approval_requested: true });

    // Operations resets the analyst's key and hands it to them: nobody in the tenant held it.
    const analystReset = await opsCli('revoke-key', '--tenant', tenantId, '--user', analystId);
    expect(analystReset.code).toBe(0);
    const analystKey = JSON.parse(analystReset.stdout).api_key;
    expect(JSON.parse(analystReset.stdout).user).toMatchObject({ key_issued_by: 'ops-cli', key_lineage: [] });
    expect((await local.api.get('/me', added.api_key)).status).toBe(401);

    // The decision was made with the key the admin was handed: still refused to that admin.
    const old = await dispose(id, adminA.key, { disposition: 'approved' });
    expect(old.status).toBe(403);
    // The analyst decides again with their own key: now that admin may sign off.
    await dispose(id, analystKey, { disposition: 'confirmed_hit', override: true, approval_requested: true });
    expect((await dispose(id, adminA.key, { disposition: 'approved', approves_version: 2 })).status).toBe(
      200,
    );

    // An admin's key: only operations resets it.
    const adminReset = await opsCli('revoke-key', '--tenant', tenantId, '--user', adminB.id);
    expect(adminReset.code).toBe(0);
    const newAdminKey = JSON.parse(adminReset.stdout).api_key;
    expect((await local.api.get('/me', adminB.key)).status).toBe(401);
    expect((await local.api.get('/me', newAdminKey)).status).toBe(200);
    const audit = (await local.api.get('/audit?limit=1', adminA.key)).body.entries[0];
    expect(audit).toMatchObject({
      action: 'user.revoke-key',
      outcome: 'done',
      actor: { user_id: 'ops-cli', role: 'ops' },
      target: { user_id: adminB.id },
    });
  });
});
