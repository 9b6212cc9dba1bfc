import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type ApiResponse, demoKey, madeUpName, useLocalStack } from '../support/api-client.ts';

/**
 * The tenant's audit trail as an examiner reads it through GET /audit (issue 19, item 3): every
 * decision, deletion, client and key action is there, with who, when, on what, what changed and
 * the request id, and nothing personal.
 */
const local = useLocalStack();

const TENANT = 'tdemoenterprise';
const admin = () => demoKey(local.stack, TENANT, 'admin');
const analyst = () => demoKey(local.stack, TENANT, 'analyst');

interface Entry {
  seq: number;
  action: string;
  outcome: string;
  started_seq?: number;
  actor: { user_id: string; role: string };
  request_id: string | null;
  target: Record<string, string>;
  details: Record<string, unknown>;
  prev_hash: string;
  hash: string;
}

/** The whole trail, oldest first, read page by page as an admin. */
async function trail(): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor: string | null = null;
  do {
    const page: ApiResponse = await local.api.get(
      `/audit?limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      admin().api_key,
    );
    expect(page.status).toBe(200);
    entries.push(...page.body.entries);
    cursor = page.body.next_cursor;
  } while (cursor);
  return entries.reverse();
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const about = (entries: Entry[], key: string, id: string) => entries.filter((e) => e.target[key] === id);

describe('the audit trail records every decision', () => {
  it('an approved confirmed_hit deleted by its analyst leaves a tombstone: who, when, risk level, last decision, content hash', async () => {
    const name = madeUpName();
    const screen = (await local.api.post('/screen', analyst().api_key, { name, dob: '1970-01-01' })).body;
    const decided = await local.api.post(`/screens/${screen.screen_id}/dispose`, analyst().api_key, {
      disposition: 'confirmed_hit',
      note: 'same person as the listed entry',
      approval_requested: true,
    });
    expect(decided.status).toBe(200);
    const version = decided.body.disposition.decision_version;
    const approved = await local.api.post(`/screens/${screen.screen_id}/dispose`, admin().api_key, {
      disposition: 'approved',
      approves_version: version,
    });
    expect(approved.status).toBe(200);

    const deleted = await local.api.delete(`/screens/${screen.screen_id}`, analyst().api_key);

    expect(deleted.status).toBe(200);
    expect((await local.api.get(`/screens/${screen.screen_id}`, admin().api_key)).status).toBe(404);
    const entries = about(await trail(), 'screen_id', screen.screen_id);
    // The deletion and its tombstone are one transaction: one `done` entry, made from the screen
    // exactly as it was deleted.
    const tombstone = entries.find((e) => e.action === 'screen.delete' && e.outcome === 'done');
    expect(tombstone).toMatchObject({
      actor: { user_id: analyst().user_id, role: 'analyst' },
      details: {
        screen_id: screen.screen_id,
        risk_level: screen.risk_level,
        created_by: analyst().user_id,
        last_disposition: 'confirmed_hit',
        last_decision_version: version,
        last_decision_by: analyst().user_id,
        approved_by: admin().user_id,
        content_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    });
    expect(tombstone).not.toHaveProperty('started_seq');
    // Who decided and who approved, in order: each decision and its entry written together.
    expect(entries.map((e) => `${e.action} ${e.outcome} ${e.actor.user_id}`)).toEqual([
      `screen.dispose done ${analyst().user_id}`,
      `screen.approve done ${admin().user_id}`,
      `screen.delete done ${analyst().user_id}`,
    ]);
    // Nothing personal: no name, no date of birth, no note's text.
    const text = JSON.stringify(entries);
    expect(text).not.toContain(name);
    expect(text).not.toContain('1970-01-01');
    expect(text).not.toContain('same person');
  });

  it('dispositions, overrides and approvals: what changed, the note as its SHA-256, the request id', async () => {
    const screen = (await local.api.post('/screen', analyst().api_key, { name: madeUpName() })).body;
    const first = await local.api.post(
      `/screens/${screen.screen_id}/dispose`,
      analyst().api_key,
      { disposition: 'false_positive', note: 'DOB differs', approval_requested: true },
      { 'x-request-id': 'audit-test-dispose-1' },
    );
    expect(first.status).toBe(200);
    const refused = await local.api.post(`/screens/${screen.screen_id}/dispose`, analyst().api_key, {
      disposition: 'needs_review',
    });
    expect(refused.status).toBe(409);
    const overridden = await local.api.post(`/screens/${screen.screen_id}/dispose`, analyst().api_key, {
      disposition: 'needs_review',
      override: true,
    });
    expect(overridden.status).toBe(200);

    const entries = about(await trail(), 'screen_id', screen.screen_id);

    expect(entries.map((e) => `${e.action} ${e.outcome}`)).toEqual([
      'screen.dispose done',
      'screen.dispose refused',
      'screen.override done',
    ]);
    // One entry per decision: what was asked, the decision in force before it, what it changed.
    expect(entries[0]).toMatchObject({
      request_id: 'audit-test-dispose-1',
      details: {
        disposition: 'false_positive',
        approval_requested: true,
        override: false,
        note_sha256: sha256('DOB differs'),
        risk_level: screen.risk_level,
        in_force_before: null,
        version: 1,
        in_force: 'false_positive',
        in_force_version: 1,
        awaiting_approval: true,
      },
    });
    expect(entries[0]).not.toHaveProperty('started_seq');
    // The refusal changed nothing: what was asked and why it was refused, no outcome.
    expect(entries[1]).toMatchObject({
      outcome: 'refused',
      outcome_detail: expect.stringContaining('already has the disposition false_positive'),
      details: { disposition: 'needs_review', in_force_before: 'false_positive', in_force_version_before: 1 },
    });
    expect(entries[1].details).not.toHaveProperty('version');
    expect(entries[2].details).toMatchObject({
      in_force_before: 'false_positive',
      in_force_version_before: 1,
      version: 2,
      in_force: 'needs_review',
      in_force_version: 2,
    });
    const history = await local.api.get(`/screens/${screen.screen_id}/history`, analyst().api_key);
    expect(history.body.history).toHaveLength(2);
  });

  it('a refused deletion (403) deletes nothing and leaves one refused entry, no tombstone', async () => {
    const screen = (await local.api.post('/screen', admin().api_key, { name: madeUpName() })).body;
    const refused = await local.api.delete(`/screens/${screen.screen_id}`, analyst().api_key);
    expect(refused.status).toBe(403);
    expect((await local.api.get(`/screens/${screen.screen_id}`, admin().api_key)).status).toBe(200);
    const entries = about(await trail(), 'screen_id', screen.screen_id).filter(
      (e) => e.action === 'screen.delete',
    );
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      outcome: 'refused',
      outcome_detail: expect.stringContaining('Analysts may delete only screens they created'),
    });
  });

  it('client registration and stop, a manual rescreen, user and key actions are recorded', async () => {
    const registered = await local.api.post('/clients', analyst().api_key, { name: madeUpName() });
    expect(registered.status).toBe(201);
    const clientId = registered.body.client_id;
    expect((await local.api.delete(`/clients/${clientId}`, analyst().api_key)).status).toBe(200);
    const run = await local.api.post('/clients/rescreen/auto/trigger', admin().api_key);
    expect(run.status).toBe(202);
    const user = await local.api.post('/users', admin().api_key, { name: madeUpName() });
    expect(user.status).toBe(201);
    const userId = user.body.user.user_id;
    const revoked = await local.api.post(`/users/${userId}/revoke-key`, admin().api_key);
    expect(revoked.status).toBe(200);
    expect((await local.api.post('/me/rotate-key', revoked.body.api_key)).status).toBe(200);
    expect((await local.api.post(`/users/${userId}/disable`, admin().api_key)).status).toBe(200);

    const entries = await trail();

    const done = (action: string, key: string, id: string) =>
      about(entries, key, id).find((e) => e.action === action && e.outcome === 'done');
    expect(done('client.register', 'client_id', clientId)).toMatchObject({
      actor: { user_id: analyst().user_id },
      details: { risk_level: expect.any(String) },
    });
    expect(done('client.stop', 'client_id', clientId)).toMatchObject({ details: { status: 'stopped' } });
    expect(done('clients.rescreen', 'run_id', run.body.run_id)).toMatchObject({
      actor: { user_id: admin().user_id, role: 'admin' },
      details: { due: run.body.due, queued: run.body.queued },
    });
    expect(
      about(entries, 'user_id', userId).map((e) => `${e.action} ${e.outcome} ${e.actor.user_id}`),
    ).toEqual([
      `user.add started ${admin().user_id}`,
      `user.add done ${admin().user_id}`,
      `user.revoke-key started ${admin().user_id}`,
      `user.revoke-key done ${admin().user_id}`,
      `user.rotate-key started ${userId}`,
      `user.rotate-key done ${userId}`,
      `user.disable started ${admin().user_id}`,
      `user.disable done ${admin().user_id}`,
    ]);
    // Keys are never recorded, only the hint an admin already sees.
    const text = JSON.stringify(entries);
    expect(text).not.toContain(user.body.api_key);
    expect(text).not.toContain(revoked.body.api_key);
    // Every entry links to the one before it.
    for (let i = 1; i < entries.length; i += 1) {
      expect(entries[i].seq).toBe(entries[i - 1].seq + 1);
      expect(entries[i].prev_hash).toBe(entries[i - 1].hash);
    }
  });
});
