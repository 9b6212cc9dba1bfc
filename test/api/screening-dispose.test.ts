import { beforeAll, describe, expect, it } from 'vitest';
import { getServices } from '../../lib/runtime/services.ts';
import { OPERATIONS_ISSUER } from '../../lib/tenancy/key-lineage.ts';
import { addUser } from '../../lib/tenancy/tenants.ts';
import { demoKey, madeUpName, useLocalStack } from '../support/api-client.ts';

const local = useLocalStack();
let analyst1: { key: string; id: string };
let analyst2: { key: string; id: string };
let admin: { key: string; id: string };
let secondAdmin: { key: string; id: string };

beforeAll(async () => {
  const pick = (role: 'admin' | 'analyst', nth = 0) => {
    const demo = demoKey(local.stack, 'tdemoenterprise', role, nth);
    return { key: demo.api_key, id: demo.user_id };
  };
  analyst1 = pick('analyst', 0);
  analyst2 = pick('analyst', 1);
  admin = pick('admin');
  const added = await addUser(getServices().table, 'tdemoenterprise', {
    name: 'Second Admin',
    role: 'admin',
    issuer: OPERATIONS_ISSUER,
  });
  secondAdmin = { key: added.api_key, id: added.user.user_id };
}, 60_000);

async function newScreen(key = analyst1.key): Promise<string> {
  const { status, body } = await local.api.post('/screen', key, { name: madeUpName() });
  expect(status).toBe(200);
  return body.screen_id;
}
const dispose = (id: string, key: string, body: unknown) =>
  local.api.post(`/screens/${id}/dispose`, key, body);
const history = async (id: string) => (await local.api.get(`/screens/${id}/history`, analyst1.key)).body;

describe('POST /screens/{screen_id}/dispose: the state table', () => {
  it('pending → the disposition, with the note in the history and the screen off the pending list', async () => {
    const id = await newScreen();

    const { status, body } = await dispose(id, analyst1.key, {
      disposition: 'false_positive',
      note: 'DOB differs',
    });

    expect(status).toBe(200);
    expect(body.disposition).toMatchObject({
      disposition: 'false_positive',
      note: 'DOB differs',
      author: { user_id: analyst1.id, role: 'analyst' },
      override: false,
      approval_requested: false,
      awaiting_approval: false,
    });
    expect(body.disposition.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const stored = await history(id);
    expect(stored.history).toEqual([
      {
        disposition: 'false_positive',
        note: 'DOB differs',
        author: { user_id: analyst1.id, role: 'analyst' },
        // Operations handed the demo analyst their key: nobody else in the tenant could hold it.
        author_key_lineage: [],
        at: body.disposition.at,
        override: false,
        approval_requested: false,
        version: 1,
      },
    ]);
    expect(body.disposition.decision_version).toBe(1);
    expect((await local.api.get(`/screens/${id}`, analyst1.key)).body.disposition.disposition).toBe(
      'false_positive',
    );
    const pending = (await local.api.get('/screens/pending?limit=200', analyst1.key)).body.screens;
    expect(pending.map((s: { screen_id: string }) => s.screen_id)).not.toContain(id);
  });

  it.each(['confirmed_hit', 'false_positive', 'needs_review', 'cleared'])(
    'accepts %s on a pending screen',
    async (value) => {
      const id = await newScreen();
      expect((await dispose(id, analyst2.key, { disposition: value })).status).toBe(200);
    },
  );

  it('has disposition, override not true → 409 naming the disposition and who made it; nothing changes', async () => {
    const id = await newScreen();
    await dispose(id, analyst1.key, { disposition: 'needs_review' });

    for (const body of [{ disposition: 'cleared' }, { disposition: 'cleared', override: false }]) {
      const { status, body: error } = await dispose(id, analyst2.key, body);
      expect(status).toBe(409);
      expect(error.detail).toContain('needs_review');
      expect(error.detail).toContain(analyst1.id);
    }
    // The author's own second decision needs override too.
    expect((await dispose(id, analyst1.key, { disposition: 'cleared' })).status).toBe(409);
    const stored = await history(id);
    expect(stored.history).toHaveLength(1);
    expect(stored.disposition.disposition).toBe('needs_review');
  });

  it('has disposition, override true → the new disposition, both in the history oldest first', async () => {
    const id = await newScreen();
    await dispose(id, analyst1.key, { disposition: 'needs_review', note: 'check passport' });

    const { status, body } = await dispose(id, analyst2.key, {
      disposition: 'confirmed_hit',
      note: 'passport matches',
      override: true,
    });

    expect(status).toBe(200);
    expect(body.disposition).toMatchObject({
      disposition: 'confirmed_hit',
      author: { user_id: analyst2.id },
      override: true,
    });
    expect(body.history.map((e: { disposition: string; note: string }) => [e.disposition, e.note])).toEqual([
      ['needs_review', 'check passport'],
      ['confirmed_hit', 'passport matches'],
    ]);
  });

  it('approved by a non-admin → 403 whatever the state', async () => {
    const pending = await newScreen();
    const disposed = await newScreen();
    await dispose(disposed, analyst1.key, { disposition: 'cleared', approval_requested: true });

    for (const id of [pending, disposed, 'SCR-20000101-999999']) {
      const { status, body } = await dispose(id, analyst2.key, { disposition: 'approved', override: true });
      expect(status).toBe(403);
      expect(body.detail).toMatch(/admin/);
    }
    expect((await history(disposed)).disposition).toMatchObject({
      disposition: 'cleared',
      awaiting_approval: true,
    });
    expect((await history(pending)).history).toEqual([]);
  });

  it('approved on a pending screen → 409', async () => {
    const id = await newScreen();

    const { status, body } = await dispose(id, admin.key, { disposition: 'approved', approves_version: 1 });

    expect(status).toBe(409);
    expect(body.detail).toMatch(/pending/);
    expect(
      (await local.api.get('/screens/pending?limit=200', admin.key)).body.screens.map(
        (s: { screen_id: string }) => s.screen_id,
      ),
    ).toContain(id);
  });

  it('approval_requested awaits sign-off; an admin approves it; the history links both', async () => {
    const id = await newScreen();
    const requested = await dispose(id, analyst1.key, {
      disposition: 'false_positive',
      note: 'different DOB',
      approval_requested: true,
    });
    expect(requested.body.disposition).toMatchObject({ approval_requested: true, awaiting_approval: true });

    const { status, body } = await dispose(id, admin.key, {
      disposition: 'approved',
      note: 'agreed',
      approves_version: requested.body.disposition.decision_version,
    });

    expect(status).toBe(200);
    expect(body.disposition).toMatchObject({
      disposition: 'approved',
      note: 'agreed',
      author: { user_id: admin.id, role: 'admin' },
      awaiting_approval: false,
      approved_decision: { disposition: 'false_positive', author: { user_id: analyst1.id } },
    });
    const stored = await history(id);
    expect(stored.history).toHaveLength(2);
    expect(stored.history[0]).toMatchObject({
      disposition: 'false_positive',
      approved_by: { user_id: admin.id, role: 'admin' },
    });
    expect(stored.history[1]).toMatchObject({
      disposition: 'approved',
      approves: { disposition: 'false_positive', author: { user_id: analyst1.id } },
    });
  });

  it('an admin may approve a disposition without a request, but only once', async () => {
    const id = await newScreen();
    await dispose(id, analyst1.key, { disposition: 'cleared' });

    expect((await dispose(id, admin.key, { disposition: 'approved', approves_version: 1 })).status).toBe(200);
    const again = await dispose(id, secondAdmin.key, { disposition: 'approved', approves_version: 1 });

    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/already approved/);
  });

  it('four eyes: an admin approving their own disposition → 403; another admin may', async () => {
    const id = await newScreen(admin.key);
    await dispose(id, admin.key, { disposition: 'confirmed_hit', approval_requested: true });

    const own = await dispose(id, admin.key, { disposition: 'approved', approves_version: 1 });
    expect(own.status).toBe(403);
    expect(own.body.detail).toMatch(/another admin/);

    expect(
      (await dispose(id, secondAdmin.key, { disposition: 'approved', approves_version: 1 })).status,
    ).toBe(200);
  });

  it('an override replaces an approved disposition and its sign-off; the history keeps all three', async () => {
    const id = await newScreen();
    await dispose(id, analyst1.key, { disposition: 'cleared' });
    await dispose(id, admin.key, { disposition: 'approved', approves_version: 1 });

    expect((await dispose(id, analyst2.key, { disposition: 'needs_review' })).status).toBe(409);
    const { status, body } = await dispose(id, analyst2.key, { disposition: 'needs_review', override: true });

    expect(status).toBe(200);
    expect(body.disposition).toMatchObject({ disposition: 'needs_review', awaiting_approval: false });
    expect(body.disposition).not.toHaveProperty('approved_decision');
    expect(body.history.map((e: { disposition: string }) => e.disposition)).toEqual([
      'cleared',
      'approved',
      'needs_review',
    ]);
    // The sign-off is visibly withdrawn: it approved version 1, which version 3 replaced.
    expect(body.history[1]).toMatchObject({
      approves: { version: 1, disposition: 'cleared' },
      superseded_by: { version: 3, disposition: 'needs_review', author: { user_id: analyst2.id } },
    });
    expect(body.history[2].withdraws_approval).toMatchObject({
      version: 2,
      disposition: 'approved',
      author: { user_id: admin.id },
    });
    expect(body.disposition.decision_version).toBe(3);
  });

  it('two analysts disposing the same pending screen at once: exactly one wins, the other gets 409', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await newScreen();

      const results = await Promise.all([
        dispose(id, analyst1.key, { disposition: 'confirmed_hit' }),
        dispose(id, analyst2.key, { disposition: 'false_positive' }),
      ]);

      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const winner = results.find((r) => r.status === 200)!;
      const stored = await history(id);
      expect(stored.history).toHaveLength(1);
      expect(stored.disposition.disposition).toBe(winner.body.disposition.disposition);
    }
  });

  it('answers 404 for an unknown screen, 400 for an invalid body, 401 without a key', async () => {
    const id = await newScreen();

    expect((await dispose('SCR-20000101-999999', analyst1.key, { disposition: 'cleared' })).status).toBe(404);
    expect(
      (await dispose('garbage', admin.key, { disposition: 'approved', approves_version: 1 })).status,
    ).toBe(404);
    const invalid = await dispose(id, analyst1.key, { disposition: 'maybe' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.detail).toMatch(/^disposition: must be one of/);
    expect((await dispose(id, analyst1.key, { disposition: 'cleared', override: 'yes' })).body.detail).toBe(
      'override: must be true or false',
    );
    expect((await dispose(id, analyst1.key, { disposition: 'cleared', comment: 'x' })).body.detail).toMatch(
      /^comment:/,
    );
    expect((await dispose(id, analyst1.key, undefined)).status).toBe(400);
    expect((await dispose(id, '', { disposition: 'cleared' })).status).toBe(401);
    expect((await history(id)).history).toEqual([]);
  });
});

describe('four eyes binds the sign-off to the decision the admin reviewed', () => {
  it('an approval of a decision that was overridden meanwhile → 409 naming the decision in force; nothing changes', async () => {
    const id = await newScreen();
    await dispose(id, analyst1.key, { disposition: 'confirmed_hit', approval_requested: true });
    const seen = (await local.api.get(`/screens/${id}/history`, admin.key)).body.disposition;
    expect(seen).toMatchObject({ disposition: 'confirmed_hit', decision_version: 1 });
    await dispose(id, analyst2.key, { disposition: 'cleared', override: true });

    const { status, body } = await dispose(id, admin.key, {
      disposition: 'approved',
      note: 'agree: confirmed hit',
      approves_version: seen.decision_version,
    });

    expect(status).toBe(409);
    expect(body.detail).toContain('confirmed_hit');
    expect(body.detail).toContain('cleared (decision_version 2)');
    expect(body.detail).toContain(analyst2.id);
    const stored = await history(id);
    expect(stored.disposition).toMatchObject({ disposition: 'cleared', decision_version: 2 });
    expect(stored.history.map((e: { disposition: string }) => e.disposition)).toEqual([
      'confirmed_hit',
      'cleared',
    ]);
    // Approving what is in force now works.
    const approved = await dispose(id, admin.key, { disposition: 'approved', approves_version: 2 });
    expect(approved.status).toBe(200);
    expect(approved.body.disposition.approved_decision).toMatchObject({ disposition: 'cleared' });
    expect(approved.body.history[2].approves).toMatchObject({ version: 2, disposition: 'cleared' });
  });

  it('an approval of a decision nobody asked to have approved signs off the decision in force (the contract’s sign-off), and only an approval may name a version', async () => {
    const id = await newScreen();
    await dispose(id, analyst1.key, { disposition: 'false_positive' });

    const notNumber = await dispose(id, admin.key, { disposition: 'approved', approves_version: '1' });
    expect(notNumber.body.detail).toMatch(/^approves_version: must be a whole number/);
    const onDecision = await dispose(id, analyst2.key, {
      disposition: 'cleared',
      override: true,
      approves_version: 1,
    });
    expect(onDecision.status).toBe(400);
    expect((await history(id)).history).toHaveLength(1);

    const signed = await dispose(id, admin.key, { disposition: 'approved' });
    expect(signed.status).toBe(200);
    expect(signed.body.history[1]).toMatchObject({
      approves_version: 1,
      approves: { disposition: 'false_positive' },
    });
  });
});

describe('the disposition history is bounded', () => {
  it('long notes never make a screen unwritable: past the limit a 409 names it, and the last decision can still be approved', async () => {
    const id = await newScreen();
    const longNote = '€'.repeat(4000); // 12,000 bytes in UTF-8
    const statuses: number[] = [];
    let refusal: { detail: string } | undefined;
    for (let i = 0; i < 60 && !refusal; i++) {
      const { status, body } = await dispose(id, i % 2 ? analyst1.key : analyst2.key, {
        disposition: i % 2 ? 'cleared' : 'needs_review',
        note: longNote,
        override: true,
      });
      statuses.push(status);
      if (status !== 200) refusal = body;
    }

    expect(statuses.at(-1)).toBe(409);
    expect(refusal?.detail).toMatch(/history is full/);
    expect(refusal?.detail).toMatch(/"force": true/);
    expect(statuses.slice(0, -1).every((status) => status === 200)).toBe(true);
    expect(statuses.length).toBeGreaterThanOrEqual(15);
    const stored = await history(id);
    expect(stored.history).toHaveLength(statuses.length - 1);
    const approved = await dispose(id, admin.key, {
      disposition: 'approved',
      note: longNote,
      approves_version: stored.disposition.decision_version,
    });
    expect(approved.status).toBe(200);
    expect((await local.api.get(`/screens/${id}`, analyst1.key)).status).toBe(200);
  });

  it('refuses a note over 4,000 characters', async () => {
    const id = await newScreen();
    const { status, body } = await dispose(id, analyst1.key, {
      disposition: 'cleared',
      note: 'x'.repeat(4001),
    });
    expect(status).toBe(400);
    expect(body.detail).toBe('note: must be at most 4000 characters');
  });
});

describe('DELETE /screens/{screen_id}', () => {
  it('lets an analyst delete their own screen: gone from every read and list, history and notes included', async () => {
    const name = madeUpName();
    const id = (await local.api.post('/screen', analyst1.key, { name })).body.screen_id;
    await dispose(id, analyst1.key, { disposition: 'needs_review', note: 'confidential note' });

    const { status, body } = await local.api.delete(`/screens/${id}`, analyst1.key);

    expect(status).toBe(200);
    expect(body).toEqual({ screen_id: id, deleted: true });
    expect((await local.api.get(`/screens/${id}`, admin.key)).status).toBe(404);
    expect((await local.api.get(`/screens/${id}/history`, admin.key)).status).toBe(404);
    expect((await dispose(id, analyst1.key, { disposition: 'cleared', override: true })).status).toBe(404);
    expect((await local.api.delete(`/screens/${id}`, admin.key)).status).toBe(404);
    const listed = (await local.api.get('/screens?limit=200', admin.key)).body.screens;
    expect(listed.map((s: { screen_id: string }) => s.screen_id)).not.toContain(id);
    // The rescreen window forgets it too: the same subject is screened afresh.
    const again = await local.api.post('/screen', analyst1.key, { name });
    expect(again.body.skipped).toBe(false);
    expect(again.body.screen_id).not.toBe(id);
  });

  it('removes a deleted pending screen from the pending list', async () => {
    const id = await newScreen();
    expect((await local.api.delete(`/screens/${id}`, analyst1.key)).status).toBe(200);
    const pending = (await local.api.get('/screens/pending?limit=200', admin.key)).body.screens;
    expect(pending.map((s: { screen_id: string }) => s.screen_id)).not.toContain(id);
  });

  it('refuses an analyst deleting another user’s screen with 403 and keeps it', async () => {
    const id = await newScreen(analyst1.key);
    const byAdmin = await newScreen(admin.key);

    const refused = await local.api.delete(`/screens/${id}`, analyst2.key);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/only screens they created/);
    expect((await local.api.delete(`/screens/${byAdmin}`, analyst1.key)).status).toBe(403);

    expect((await local.api.get(`/screens/${id}`, analyst2.key)).status).toBe(200);
    expect((await local.api.get(`/screens/${byAdmin}`, analyst2.key)).status).toBe(200);
  });

  it('lets an admin delete any screen of the tenant', async () => {
    const id = await newScreen(analyst2.key);
    await dispose(id, analyst1.key, { disposition: 'cleared' });

    expect((await local.api.delete(`/screens/${id}`, admin.key)).status).toBe(200);
    expect((await local.api.get(`/screens/${id}`, analyst2.key)).status).toBe(404);
  });

  it('answers 404 for an unknown screen and 401 without a key', async () => {
    expect((await local.api.delete('/screens/SCR-20000101-999999', admin.key)).status).toBe(404);
    expect((await local.api.delete('/screens/SCR-20000101-999999', analyst1.key)).status).toBe(404);
    expect((await local.api.delete('/screens/SCR-20000101-999999')).status).toBe(401);
  });
});
