import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { NEW_TENANT_POLICY, type PolicyBody, SERVICE_POLICY } from '../../lib/policy/policy.ts';
import { proposePolicy } from '../../lib/policy/policy-proposals.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { sha256Of } from '../../lib/screening/policy-sandbox.ts';
import { authenticate } from '../../lib/tenancy/auth.ts';
import { OPERATIONS_ISSUER } from '../../lib/tenancy/key-lineage.ts';
import { addUser, createTenant } from '../../lib/tenancy/tenants.ts';
import { demoKey, madeUpName, useLocalStack } from '../support/api-client.ts';
import { eventually } from '../support/eventually.ts';

/**
 * Issue 40, items 2 and 3, black box through the in-process stack and its queue: an admin
 * proposes a policy, the sandbox job replays the tenant's history under it and keeps the report
 * with the proposal (every figure, the decided confirmed hit it would miss named first), and
 * another admin applies it: GET /settings/policy names the new version, the next screen's receipt
 * names it, and a screen made under the older version still replays `identical`. With the
 * shipped lists: "Olaf Scholz" and "Emmanuel Macron" match only the world leaders' PEP list
 * (HIGH), "Joe Biden" only US PEP lists at LOW, "Kim Jong Un" OFAC SDN at HIGH.
 */
const local = useLocalStack();

async function bank(name: string) {
  const table = getServices().table;
  const made = await createTenant(table, { name, plan: 'enterprise' });
  const tenantId = made.tenant.tenant_id;
  const user = async (userName: string, role: 'admin' | 'analyst') =>
    (await addUser(table, tenantId, { name: userName, role, issuer: OPERATIONS_ISSUER })).api_key;
  return {
    tenantId,
    author: made.admin.api_key,
    reviewer: await user('Rhea Reviewer', 'admin'),
    third: await user('Theo Third', 'admin'),
    analyst: await user('Ana Analyst', 'analyst'),
  };
}

/** The world leaders' and international bodies' PEP lists left out; a LOW PEP match banded to MEDIUM. */
const PROPOSED: PolicyBody = {
  ...SERVICE_POLICY,
  screening: { ...SERVICE_POLICY.screening, excluded_lists: ['world_leaders_pep', 'intl_bodies_pep'] },
  risk_bands: {
    ...SERVICE_POLICY.risk_bands,
    pep: { LOW: 'MEDIUM', MEDIUM: 'MEDIUM', HIGH: 'HIGH', CRITICAL: 'CRITICAL' },
  },
};

async function screened(key: string, name: string, disposition?: string) {
  const screen = (await local.api.post('/screen', key, { name, force: true })).body;
  if (disposition) {
    const decided = await local.api.post(`/screens/${screen.screen_id}/dispose`, key, {
      disposition,
      note: 'Reviewed for the sandbox test',
    });
    expect(decided.status).toBe(200);
  }
  return screen;
}

const reported = (key: string, link: string) =>
  eventually(
    () => local.api.get(link, key),
    (response) => response.body?.status === 'reported',
  );

describe('POST /settings/policy/proposals, the sandbox and four eyes to apply', () => {
  it('reports every figure on the tenant’s history, the decided confirmed hit it would miss first; the author cannot apply it, another admin can, and the new version is in force', async () => {
    const t = await bank('Proposing Bank');
    const scholz = await screened(t.analyst, 'Olaf Scholz', 'confirmed_hit');
    await screened(t.analyst, 'Emmanuel Macron', 'false_positive');
    const biden = await screened(t.analyst, 'Joe Biden');
    await screened(t.analyst, 'Kim Jong Un', 'confirmed_hit');

    const response = await fetch(`${local.stack.url}/settings/policy/proposals`, {
      method: 'POST',
      headers: { 'x-api-key': t.author, 'content-type': 'application/json' },
      body: JSON.stringify({ policy: PROPOSED }),
    });
    const proposal = await response.json();
    const done = await reported(t.author, proposal.link);
    const report = done.body.report;

    expect(response.status).toBe(202);
    expect(response.headers.get('location')).toBe(`/settings/policy/proposals/${proposal.proposal_id}`);
    expect(proposal).toMatchObject({
      status: 'running',
      based_on_version: 0,
      policy: PROPOSED,
      report: null,
    });
    // The default period: the 90 days before now.
    const span = Date.parse(proposal.period.until) - Date.parse(proposal.period.since);
    expect(span).toBe(90 * 86_400_000);
    expect(done.body.progress).toEqual({ done: 4, total: 4 });
    expect(Object.keys(report)[0]).toBe('confirmed_hits_no_longer_alerting');
    expect(report.confirmed_hits_no_longer_alerting).toEqual([
      {
        name: 'Olaf Scholz',
        screen_id: scholz.screen_id,
        decided_by: expect.any(String),
        decided_at: expect.any(String),
        level_before: 'HIGH',
        level_after: 'CLEAR',
      },
    ]);
    expect(report.false_positives_no_longer_alerting.map((row: { name: string }) => row.name)).toEqual([
      'Emmanuel Macron',
    ]);
    expect(report.alerts_lost).toEqual({ CLEAR: 0, LOW: 0, MEDIUM: 0, HIGH: 2, CRITICAL: 0 });
    expect(report.alerts_gained).toEqual({ CLEAR: 0, LOW: 0, MEDIUM: 1, HIGH: 0, CRITICAL: 0 });
    expect(report.level_changes_total).toBe(3);
    expect(report.level_changes).toContainEqual({
      screen_id: biden.screen_id,
      before: 'LOW',
      after: 'MEDIUM',
    });
    expect(report).toMatchObject({
      screens_replayed: 4,
      screens_skipped: [],
      policy_sha256: sha256Of(PROPOSED),
    });
    expect(done.body.report_digest).toBe(sha256Of(report));

    const byAuthor = await local.api.post(`${proposal.link}/apply`, t.author);
    const byAnalyst = await local.api.post(`${proposal.link}/apply`, t.analyst);
    const applied = await local.api.post(`${proposal.link}/apply`, t.reviewer);
    const again = await local.api.post(`${proposal.link}/apply`, t.third);
    const inForce = await local.api.get('/settings/policy', t.analyst);
    const after = await local.api.get(proposal.link, t.author);
    const next = await screened(t.analyst, 'Olaf Scholz');
    const replay = await local.api.post(`/screens/${scholz.screen_id}/replay`, t.reviewer);
    const trail = await local.api.get('/audit?limit=50', t.author);

    expect(byAuthor.status).toBe(403);
    expect(byAuthor.body.code).toBe('four_eyes_required');
    expect(byAnalyst.status).toBe(403);
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ version: 1, proposal_id: proposal.proposal_id });
    expect(again.status).toBe(409);
    expect(inForce.body).toMatchObject({
      version: 1,
      policy: PROPOSED,
      proposal_id: proposal.proposal_id,
      report_digest: done.body.report_digest,
    });
    expect(after.body).toMatchObject({ status: 'applied', applied: { version: 1 } });
    expect(next.receipt.policy).toEqual({ version: 1 });
    expect(next.risk_level).toBe('CLEAR');
    // Made under version 0, replayed under version 0 although version 1 is in force.
    expect(replay.body.replayed.identical).toBe(true);
    const adopt = trail.body.entries.find((entry: { action: string }) => entry.action === 'policy.adopt');
    expect(adopt.details).toMatchObject({
      version: 1,
      replaces_version: 0,
      proposal_id: proposal.proposal_id,
      report_sha256: done.body.report_digest,
    });
    expect(trail.body.entries.some((entry: { action: string }) => entry.action === 'policy.propose')).toBe(
      true,
    );
  });

  it('refuses a policy outside the bounds with 400 naming each broken bound, and an analyst’s proposal with 403', async () => {
    const t = await bank('Bounded Bank');
    const outside: PolicyBody = {
      ...SERVICE_POLICY,
      screening: { ...SERVICE_POLICY.screening, excluded_lists: ['ofac_sdn'] },
      risk_bands: {
        ...SERVICE_POLICY.risk_bands,
        sanctions: { LOW: 'LOW', MEDIUM: 'MEDIUM', HIGH: 'MEDIUM', CRITICAL: 'CRITICAL' },
      },
    };

    const refused = await local.api.post('/settings/policy/proposals', t.author, { policy: outside });
    const malformed = await local.api.post('/settings/policy/proposals', t.author, {
      policy: { ...SERVICE_POLICY, approval: { ...SERVICE_POLICY.approval, cleared: ['SEVERE'] } },
      since: '2026-02-30',
    });
    const backwards = await local.api.post('/settings/policy/proposals', t.author, {
      policy: SERVICE_POLICY,
      since: '2026-03-01',
      until: '2026-02-01',
    });
    const byAnalyst = await local.api.post('/settings/policy/proposals', t.analyst, {
      policy: SERVICE_POLICY,
    });
    const listed = await local.api.get('/settings/policy/proposals', t.author);

    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((error: { field: string }) => error.field)).toEqual([
      'policy.screening.excluded_lists',
      'policy.risk_bands.sanctions.HIGH',
    ]);
    expect(refused.body.detail).toContain('ofac_sdn is a sanctions list');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors.map((error: { field: string }) => error.field)).toEqual(
      expect.arrayContaining(['policy.approval.cleared[0]', 'since']),
    );
    expect(backwards.status).toBe(400);
    expect(backwards.body.detail).toContain('since: must be before until');
    expect(byAnalyst.status).toBe(403);
    expect(listed.body.proposals).toEqual([]);
  });

  it('is 409 before the report exists; two admins applying at once: one 200, the other 409; another tenant sees none of it (404)', async () => {
    const t = await bank('Racing Bank');
    const other = await bank('Other Bank');
    await screened(t.analyst, 'Joe Biden');
    // A proposal whose sandbox job is held (its queue accepts and drops the message): no report yet.
    const services = getServices();
    const held = { ...services.batchQueue(), sendAll: async () => ({ failed: [] as number[] }) };
    const waiting = await proposePolicy(
      { table: services.table, batchQueue: () => held },
      await authenticate(services.table, t.author),
      { policy: PROPOSED },
    );
    const early = await local.api.post(`${waiting.link}/apply`, t.reviewer);
    const racing = (await local.api.post('/settings/policy/proposals', t.author, { policy: PROPOSED })).body;
    await reported(t.author, racing.link);

    const [first, second] = await Promise.all([
      local.api.post(`${racing.link}/apply`, t.reviewer),
      local.api.post(`${racing.link}/apply`, t.third),
    ]);
    const page1 = await local.api.get('/settings/policy/proposals?limit=1', t.author);
    const page2 = await local.api.get(
      `/settings/policy/proposals?limit=1&cursor=${page1.body.next_cursor}`,
      t.author,
    );
    const stale = await local.api.get(waiting.link, t.author);
    const elsewhere = await local.api.get(racing.link, other.author);
    const elsewhereApply = await local.api.post(`${racing.link}/apply`, other.author);
    const elsewhereList = await local.api.get('/settings/policy/proposals', other.author);
    const unknown = await local.api.get('/settings/policy/proposals/not-a-proposal', t.author);

    expect(early.status).toBe(409);
    expect(early.body.detail).toContain('report does not exist yet');
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    expect((await local.api.get('/settings/policy', t.author)).body.version).toBe(1);
    expect(page1.body.proposals.map((row: { proposal_id: string }) => row.proposal_id)).toEqual([
      racing.proposal_id,
    ]);
    expect(page1.body.proposals[0].report).toBeNull();
    expect(page2.body.proposals.map((row: { proposal_id: string }) => row.proposal_id)).toEqual([
      waiting.proposal_id,
    ]);
    expect(page2.body.next_cursor).toBeNull();
    // Made on version 0, which is no longer in force.
    expect(stale.body.status).toBe('superseded');
    expect(elsewhere.status).toBe(404);
    expect(elsewhereApply.status).toBe(404);
    expect(elsewhereList.body.proposals).toEqual([]);
    expect(unknown.status).toBe(404);
  });
});

describe('on the demo tenant', () => {
  it('a proposal on the Demo Enterprise Bank’s history is reported with every figure, its decided confirmed hit the proposal would miss named first', async () => {
    const tenantId = local.stack.demoKeys.find((key) => key.plan === 'enterprise')!.tenant_id;
    const admin = demoKey(local.stack, tenantId, 'admin').api_key;
    const analyst = demoKey(local.stack, tenantId, 'analyst').api_key;
    const scholz = await screened(analyst, 'Olaf Scholz', 'confirmed_hit');
    await screened(analyst, 'Joe Biden');

    const proposal = (await local.api.post('/settings/policy/proposals', admin, { policy: PROPOSED })).body;
    const done = await reported(admin, proposal.link);
    const report = done.body.report;

    expect(Object.keys(report)).toEqual([
      'confirmed_hits_no_longer_alerting',
      'false_positives_no_longer_alerting',
      'policy_sha256',
      'screens_replayed',
      'screens_skipped',
      'alerts_gained',
      'alerts_lost',
      'level_changes',
      'level_changes_total',
    ]);
    expect(report.confirmed_hits_no_longer_alerting[0]).toMatchObject({
      name: 'Olaf Scholz',
      screen_id: scholz.screen_id,
    });
    expect(report.alerts_lost.HIGH).toBeGreaterThanOrEqual(1);
    expect(report.alerts_gained.MEDIUM).toBeGreaterThanOrEqual(1);
    expect(done.body.progress.done).toBe(done.body.progress.total);
    expect(report.screens_replayed + report.screens_skipped.length).toBe(done.body.progress.total);
  });
});

describe('a tenant operations creates', () => {
  it('starts under the new-tenant policy, version 1, adopted by operations on the audit trail', async () => {
    const cli = [
      '--import',
      'tsx',
      resolve(import.meta.dirname, '../../scripts/admin.ts'),
      'create-tenant',
      '--name',
      'Operated Bank',
      '--plan',
      'enterprise',
      '--endpoint',
      process.env.DYNAMODB_ENDPOINT ?? '',
      '--table',
      process.env.TABLE_NAME ?? '',
    ];
    const { stdout } = await promisify(execFile)(process.execPath, cli, {
      env: {
        ...process.env,
        LOG_LEVEL: 'silent',
        AUDIT_ANCHOR_DIR: mkdtempSync(join(tmpdir(), 'policy-anchors-')),
      },
    });
    const created = JSON.parse(stdout);

    const policy = await local.api.get('/settings/policy', created.api_key);
    const trail = await local.api.get('/audit?limit=10', created.api_key);

    expect(created.policy_version).toBe(1);
    expect(policy.body).toMatchObject({
      version: 1,
      policy: NEW_TENANT_POLICY,
      adopted_by: { user_id: 'ops-cli', role: 'ops' },
      proposal_id: null,
    });
    expect(trail.body.entries.map((entry: { action: string }) => entry.action)).toContain('policy.adopt');

    // Its policy's deletion rules: a decided screen needs a reason, and stays 1,825 days after its
    // last decision; an undecided one is deleted as before.
    const analyst = (await local.api.post('/users', created.api_key, { name: 'Olu Analyst' })).body.api_key;
    const decided = (await local.api.post('/screen', analyst, { name: madeUpName(), force: true })).body;
    await local.api.post(`/screens/${decided.screen_id}/dispose`, analyst, { disposition: 'cleared' });
    const undecided = (await local.api.post('/screen', analyst, { name: madeUpName(), force: true })).body;

    const withoutReason = await local.api.delete(`/screens/${decided.screen_id}`, created.api_key);
    const locked = await local.api.delete(
      `/screens/${decided.screen_id}?reason=${encodeURIComponent('Customer asked for erasure')}`,
      created.api_key,
    );
    const free = await local.api.delete(`/screens/${undecided.screen_id}`, created.api_key);

    expect(withoutReason.status).toBe(400);
    expect(withoutReason.body.errors).toEqual([expect.objectContaining({ field: 'reason' })]);
    expect(locked.status).toBe(403);
    expect(locked.body.code).toBe('retention_locked');
    expect(locked.body.detail).toContain('Tenant policy version 1 locks decided screens for 1825 days');
    expect(free.status).toBe(200);
  });
});
