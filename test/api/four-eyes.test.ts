import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { getServices } from '../../lib/runtime/services.ts';
import { OPERATIONS_ISSUER } from '../../lib/tenancy/key-lineage.ts';
import { addUser, createTenant } from '../../lib/tenancy/tenants.ts';
import { madeUpName, useLocalStack } from '../support/api-client.ts';
import { scheduledRescreenRun } from '../support/scheduled-rescreen.ts';

/**
 * Issue 19, items 1 and 2, black box through the local stack: approval works for a client written
 * only to the contract and still binds to the decision reviewed; no person holds two identities in
 * a four-eyes pair (docs/api-guide.md#the-four-eyes-rule). Issue 35, item 1: the contract's
 * sign-off of the decision in force, and four eyes following a decision the system carries to a
 * monitored client's newer screen.
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

  it('without approves_version, a decision nobody asked to have approved is signed off as it stands (the contract’s sign-off), bound to its version; a pending screen → 409', async () => {
    const { adminB, analyst } = await tenant();
    const id = await newScreen(analyst.key);
    const pending = await dispose(id, adminB.key, { disposition: 'approved' });
    expect(pending.status).toBe(409);
    expect(pending.body.detail).toMatch(/pending/);
    await dispose(id, analyst.key, { disposition: 'cleared' });

    const signed = await dispose(id, adminB.key, { disposition: 'approved', note: 'Signed off' });

    expect(signed.status).toBe(200);
    expect(signed.body.disposition).toMatchObject({
      disposition: 'approved',
      decision_version: 1,
      approved_decision: { disposition: 'cleared', author: { user_id: analyst.id } },
    });
    expect((await historyOf(id, adminB.key)).history[1]).toMatchObject({
      disposition: 'approved',
      approves_version: 1,
      approves: { version: 1, disposition: 'cleared' },
    });
  });

  it('the stale approval: the admin read A, an analyst overrode it to B: approving A by version → 409; the contract’s body signs off B, the decision in force, and names it', async () => {
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

      expect(named.status).toBe(409);
      expect(named.body.detail).toContain('you reviewed decision_version 1 (confirmed_hit)');
      expect(named.body.detail).toContain('cleared (decision_version 2)');
      const stored = await historyOf(id, adminB.key);
      expect(stored.history.map((e: { disposition: string }) => e.disposition)).toEqual([
        'confirmed_hit',
        'cleared',
      ]);
      expect(stored.disposition).toMatchObject({ disposition: 'cleared', decision_version: 2 });

      // The contract's body signs off what is in force when it arrives, and the answer says what that is.
      const unnamed = await dispose(id, adminB.key, { disposition: 'approved', note: 'Signed off' });
      expect(unnamed.status).toBe(200);
      expect(unnamed.body.disposition).toMatchObject({
        disposition: 'approved',
        decision_version: 2,
        approved_decision: { disposition: 'cleared', author: { user_id: other.user.user_id } },
      });
      expect(unnamed.body.history[2]).toMatchObject({
        approves_version: 2,
        approves: { version: 2, disposition: 'cleared' },
      });
    }
  });

  it('an override of an approved decision that requests approval again: the contract’s body signs off the new decision', async () => {
    const { adminB, analyst } = await tenant();
    const id = await newScreen(analyst.key);
    await dispose(id, analyst.key, { disposition: 'needs_review', approval_requested: true });
    expect((await dispose(id, adminB.key, { disposition: 'approved' })).status).toBe(200);
    await dispose(id, analyst.key, {
      disposition: 'confirmed_hit',
      override: true,
      approval_requested: true,
    });

    const signed = await dispose(id, adminB.key, { disposition: 'approved' });

    expect(signed.status).toBe(200);
    expect(signed.body.disposition).toMatchObject({
      decision_version: 3,
      approved_decision: { disposition: 'confirmed_hit' },
    });
    expect(signed.body.history[3]).toMatchObject({ disposition: 'approved', approves_version: 3 });
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

describe('the contract’s sign-off, written only to the contract (its dispositions, state table and errors)', () => {
  it('an analyst disposes, another analyst overrides, an admin signs off: 200, three entries oldest first; an admin signing off their own decision: 403; a pending screen: 409', async () => {
    const { adminA, adminB, analyst } = await tenant();
    const second = (await local.api.post('/users', adminA.key, { name: 'Second Analyst' })).body.api_key;
    const id = await newScreen(analyst.key);

    const first = await dispose(id, analyst.key, { disposition: 'false_positive', note: 'DOB differs' });
    const overridden = await dispose(id, second, {
      disposition: 'confirmed_hit',
      note: 'Same passport number',
      override: true,
    });
    const signed = await dispose(id, adminB.key, { disposition: 'approved', note: 'Signed off' });

    expect([first.status, overridden.status, signed.status]).toEqual([200, 200, 200]);
    const { history } = await historyOf(id, analyst.key);
    expect(
      history.map((entry: { disposition: string; note: string }) => [entry.disposition, entry.note]),
    ).toEqual([
      ['false_positive', 'DOB differs'],
      ['confirmed_hit', 'Same passport number'],
      ['approved', 'Signed off'],
    ]);

    const own = await newScreen(adminA.key);
    expect((await dispose(own, adminA.key, { disposition: 'approved', note: 'Signed off' })).status).toBe(
      409,
    );
    await dispose(own, adminA.key, { disposition: 'cleared', note: 'No concern' });
    const refused = await dispose(own, adminA.key, { disposition: 'approved', note: 'Signed off' });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/four-eyes/);
    expect((await historyOf(own, adminA.key)).history).toHaveLength(1);
  });
});

/**
 * Issue 35, item 1: a decision the system carries to a monitored client's newer screen keeps the
 * person who made it as its author (and their key lineage); `system` is only its carrier. So the
 * admin who decided cannot sign it off on the newer screen either, on either path a decision takes
 * there, and each carry is on the audit trail.
 */
describe('four eyes follows a decision the system carries to a client’s newer screen', {
  timeout: 120_000,
}, () => {
  const registerPutin = async (key: string) => {
    const registered = await local.api.post('/clients', key, {
      name: 'Vladimir Putin',
      dob: '1952-10-07',
      types: 'sanctions,pep',
      rescreen_interval_days: 1,
    });
    expect(registered.status).toBe(201);
    expect(registered.body.risk_level).toBe('CRITICAL');
    return registered.body as { client_id: string; last_screen_id: string };
  };
  const currentScreenOf = async (clientId: string, key: string) =>
    screen((await local.api.get(`/clients/${clientId}`, key)).body.last_screen_id, key);
  /** The admin's `cleared` (version 1 of `source`), carried by the system and still theirs. */
  const expectCarried = (disposition: unknown, adminId: string, source: string) =>
    expect(disposition).toMatchObject({
      disposition: 'cleared',
      decision_version: 1,
      author: { user_id: adminId, role: 'admin' },
      carried_by: { user_id: 'system', role: 'system' },
      carried_from: { screen_id: source, decision_version: 1 },
    });
  const carriesOn = async (screenId: string, key: string) =>
    (await local.api.get('/audit?limit=200', key)).body.entries.filter(
      (entry: { action: string; target: { screen_id?: string } }) =>
        entry.action === 'screen.carry' && entry.target.screen_id === screenId,
    );

  it('a re-screen carries an admin’s cleared to the new screen: the same admin approving it (approves_version 1, or the contract’s body) → 403 four_eyes_required; another admin → 200', async () => {
    const { adminA, adminB } = await tenant();
    const client = await registerPutin(adminA.key);
    expect((await dispose(client.last_screen_id, adminA.key, { disposition: 'cleared' })).status).toBe(200);

    await scheduledRescreenRun(local.api, adminA.key);
    const carried = await currentScreenOf(client.client_id, adminA.key);

    expect(carried.screen_id).not.toBe(client.last_screen_id);
    expect(carried.disposition).toMatchObject({ disposition: 'cleared', decision_version: 1 });
    for (const body of [
      { disposition: 'approved', approves_version: 1 },
      { disposition: 'approved', note: 'Signed off' },
    ]) {
      const own = await dispose(carried.screen_id, adminA.key, body);
      expect(own.status).toBe(403);
      expect(own.body.code).toBe('four_eyes_required');
    }
    expect((await historyOf(carried.screen_id, adminA.key)).history).toHaveLength(1);
    expectCarried(carried.disposition, adminA.id, client.last_screen_id);
    expect(await carriesOn(carried.screen_id, adminA.key)).toMatchObject([
      {
        outcome: 'done',
        actor: { user_id: 'system', role: 'system' },
        target: { screen_id: carried.screen_id, client_id: client.client_id },
        details: {
          disposition: 'cleared',
          carried_from_screen_id: client.last_screen_id,
          carried_from_version: 1,
          decided_by: adminA.id,
          decided_by_role: 'admin',
          version: 1,
        },
      },
    ]);
    expect(
      (await dispose(carried.screen_id, adminB.key, { disposition: 'approved', approves_version: 1 })).status,
    ).toBe(200);
  });

  it('the settled-decision follow-up carries an admin’s decision on an older screen to the current one: the same admin approving it → 403 four_eyes_required', async () => {
    const { adminA, adminB } = await tenant();
    const client = await registerPutin(adminA.key);
    await scheduledRescreenRun(local.api, adminA.key);
    const current = await currentScreenOf(client.client_id, adminA.key);
    expect(current.screen_id).not.toBe(client.last_screen_id);
    expect(current.disposition).toBeNull();

    // The admin decides the older (registration) screen; the follow-up carries it to the current one.
    expect((await dispose(client.last_screen_id, adminA.key, { disposition: 'cleared' })).status).toBe(200);
    const carried = await screen(current.screen_id, adminA.key);
    expect(carried.disposition).toMatchObject({ disposition: 'cleared', decision_version: 1 });

    const own = await dispose(current.screen_id, adminA.key, {
      disposition: 'approved',
      approves_version: 1,
    });
    expect(own.status).toBe(403);
    expect(own.body.code).toBe('four_eyes_required');
    expectCarried(carried.disposition, adminA.id, client.last_screen_id);
    expect(await carriesOn(current.screen_id, adminA.key)).toMatchObject([
      {
        outcome: 'done',
        actor: { user_id: 'system', role: 'system' },
        details: {
          carried_from_screen_id: client.last_screen_id,
          carried_from_version: 1,
          decided_by: adminA.id,
        },
      },
    ]);
    expect(
      (await dispose(current.screen_id, adminB.key, { disposition: 'approved', approves_version: 1 })).status,
    ).toBe(200);
  });
});
