import { beforeAll, describe, expect, it } from 'vitest';
import { demoKey, madeUpName, useLocalStack } from '../support/api-client.ts';

const local = useLocalStack();
let analyst: string;
let admin: string;
beforeAll(async () => {
  analyst = demoKey(local.stack, 'tdemoenterprise', 'analyst').api_key;
  admin = demoKey(local.stack, 'tdemoenterprise', 'admin').api_key;
}, 60_000);

describe('POST /screen', () => {
  it('screens a sanctioned person and returns the Screen with skipped false', async () => {
    const { status, body } = await local.api.post('/screen', analyst, {
      name: 'Vladimir Putin',
      dob: '1952-10-07',
      nationality: 'Russian',
      force: true,
    });

    expect(status).toBe(200);
    expect(body.screen_id).toMatch(/^SCR-\d{8}-\d{6}$/);
    expect(body.screened_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(body.screen_id.slice(4, 12)).toBe(body.screened_at.slice(0, 10).replaceAll('-', ''));
    expect(body.skipped).toBe(false);
    expect(body.subject).toEqual({ name: 'Vladimir Putin', dob: '1952-10-07', nationality: 'Russian' });
    expect(body.risk_level).toBe('CRITICAL');
    expect(body.sanctions_result).toMatchObject({ risk_level: 'CRITICAL', is_sanctioned: true });
    expect(body.sanctions_result.matches.length).toBeGreaterThan(0);
    expect(typeof body.sanctions_result.narrative).toBe('string');
    expect(body.pep_result).toHaveProperty('is_pep');
    expect(body.criminal_result).toMatchObject({
      interpol_hits: expect.any(Array),
      fbi_hits: expect.any(Array),
    });
    expect(body.created_by).toEqual({
      user_id: demoKey(local.stack, 'tdemoenterprise', 'analyst').user_id,
      role: 'analyst',
    });
    expect(body.disposition).toBeNull();
  });

  it('returns CLEAR for a made-up person and null results for excluded check types', async () => {
    const { status, body } = await local.api.post('/screen', analyst, { name: madeUpName(), types: 'pep' });

    expect(status).toBe(200);
    expect(body.risk_level).toBe('CLEAR');
    expect(body.types).toEqual(['pep']);
    expect(body.sanctions_result).toBeNull();
    expect(body.criminal_result).toBeNull();
    expect(body.pep_result).toMatchObject({ risk_level: 'CLEAR', is_pep: false });
  });

  it('gives increasing ids to successive screens', async () => {
    const first = await local.api.post('/screen', analyst, { name: madeUpName() });
    const second = await local.api.post('/screen', analyst, { name: madeUpName() });

    expect(second.body.screen_id > first.body.screen_id).toBe(true);
  });

  it.each([
    [{ name: 'A' }, 'name: must be at least 2 characters'],
    [{ name: '   ' }, 'name: must be at least 2 characters'],
    [{}, 'name: is required'],
    [{ name: 'Jane Doe', dob: '1990-02-30' }, 'dob: must be a real date in the form YYYY-MM-DD'],
    [{ name: 'Jane Doe', dob: '2999-01-01' }, 'dob: must not be in the future'],
    [{ name: 'Jane Doe', types: 'sanctions,fraud' }, 'types: unknown check type "fraud"'],
    [{ name: 'Jane Doe', types: 'pep,sanctions,pep' }, 'types: "pep" is listed twice'],
    [{ name: 'Jane Doe', force: 'true' }, 'force: must be true or false'],
    [{ name: 'Jane Doe', dateOfBirth: '1980-01-01' }, 'dateOfBirth: is not a known field'],
    [{ name: 'Jane Doe', nationality: 'x'.repeat(101) }, 'nationality: must be at most 100 characters'],
    ['{"name": "Jane', 'not valid JSON'],
    [undefined, 'body: must be a JSON object'],
  ])('refuses %j with a 400 naming the problem', async (body, detail) => {
    const { status, body: error } = await local.api.post('/screen', analyst, body);

    expect(status).toBe(400);
    expect(error.detail).toContain(detail);
  });

  it('answers 401 without a key or with a wrong one, and stores nothing', async () => {
    const before = await local.api.get('/screens?limit=200', admin);

    expect((await local.api.post('/screen', undefined, { name: 'Jane Doe' })).status).toBe(401);
    const wrong = await local.api.post('/screen', `${analyst.slice(0, -4)}AAAA`, { name: 'Jane Doe' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.detail).toMatch(/API key/);

    expect((await local.api.get('/screens?limit=200', admin)).body.screens).toHaveLength(
      before.body.screens.length,
    );
  });
});

describe('rescreen window', () => {
  it('returns the earlier screen unchanged with skipped true for the same subject, charging nothing', async () => {
    const name = madeUpName();
    const first = await local.api.post('/screen', analyst, { name, dob: '1970-05-05', location: 'Paris' });
    const usageBefore = (await local.api.get('/me', analyst)).body.usage.screens_used;

    const again = await local.api.post('/screen', admin, {
      name: `  ${name.toUpperCase()} `,
      dob: '1970-05-05',
      location: 'paris',
    });

    expect(again.status).toBe(200);
    expect(again.body.skipped).toBe(true);
    const { skipped: _a, ...earlier } = first.body;
    const { skipped: _b, ...cached } = again.body;
    expect(cached).toEqual(earlier);
    expect((await local.api.get('/me', analyst)).body.usage.screens_used).toBe(usageBefore);
  });

  it('screens afresh when any field or the check types differ', async () => {
    const name = madeUpName();
    const first = await local.api.post('/screen', analyst, { name, nationality: 'French' });

    for (const variant of [
      { name, nationality: 'German' },
      { name, nationality: 'French', alias: 'Frenchie' },
      { name, nationality: 'French', types: 'sanctions' },
    ]) {
      const next = await local.api.post('/screen', analyst, variant);
      expect(next.body.skipped).toBe(false);
      expect(next.body.screen_id).not.toBe(first.body.screen_id);
    }
  });

  it('screens afresh with force true and charges it; the fresh screen becomes the cached one', async () => {
    const name = madeUpName();
    const first = await local.api.post('/screen', analyst, { name });
    const usageBefore = (await local.api.get('/me', analyst)).body.usage.screens_used;

    const forced = await local.api.post('/screen', analyst, { name, force: true });
    const cached = await local.api.post('/screen', analyst, { name });

    expect(forced.body.skipped).toBe(false);
    expect(forced.body.screen_id).not.toBe(first.body.screen_id);
    expect((await local.api.get('/me', analyst)).body.usage.screens_used).toBe(usageBefore + 1);
    expect(cached.body).toMatchObject({ skipped: true, screen_id: forced.body.screen_id });
  });

  it('returns the cached screen with the disposition it has now', async () => {
    const name = madeUpName();
    const first = await local.api.post('/screen', analyst, { name });
    await local.api.post(`/screens/${first.body.screen_id}/dispose`, analyst, { disposition: 'cleared' });

    const again = await local.api.post('/screen', analyst, { name });

    expect(again.body).toMatchObject({ skipped: true, screen_id: first.body.screen_id });
    expect(again.body.disposition.disposition).toBe('cleared');
  });
});

describe('GET /screens/{screen_id} and /history', () => {
  it('returns the full screen with match data and narratives', async () => {
    const screened = await local.api.post('/screen', analyst, { name: 'Vladimir Putin', dob: '1952-10-07' });

    const { status, body } = await local.api.get(`/screens/${screened.body.screen_id}`, admin);

    expect(status).toBe(200);
    const { skipped: _skipped, ...stored } = screened.body;
    expect(body).toEqual(stored);
    expect(body.sanctions_result.matches[0]).toMatchObject({
      list_id: expect.any(String),
      entity_id: expect.any(String),
      score: expect.any(Number),
      explanation: { name: expect.any(Object), dob: expect.any(Object) },
    });
  });

  it('answers 404 for an unknown id and for text that is no screen id', async () => {
    for (const id of ['SCR-20000101-999999', 'nope', 'SCR-20000101-000001%2F..%2FUSER']) {
      expect((await local.api.get(`/screens/${id}`, analyst)).status).toBe(404);
      expect((await local.api.get(`/screens/${id}/history`, analyst)).status).toBe(404);
    }
  });

  it('has an empty history before any disposition', async () => {
    const screened = await local.api.post('/screen', analyst, { name: madeUpName() });

    const { status, body } = await local.api.get(`/screens/${screened.body.screen_id}/history`, analyst);

    expect(status).toBe(200);
    expect(body).toEqual({ screen_id: screened.body.screen_id, disposition: null, history: [] });
  });

  it('answers 401 without a key', async () => {
    expect((await local.api.get('/screens/SCR-20000101-000001')).status).toBe(401);
    expect((await local.api.get('/screens/SCR-20000101-000001/history')).status).toBe(401);
  });
});

describe('GET /screens and /screens/pending', () => {
  it('lists newest first and pages with a cursor until next_cursor is null', async () => {
    const created: string[] = [];
    for (let i = 0; i < 5; i++)
      created.push((await local.api.post('/screen', analyst, { name: madeUpName() })).body.screen_id);

    const first = await local.api.get('/screens?limit=3', analyst);
    expect(first.status).toBe(200);
    expect(first.body.screens.map((s: { screen_id: string }) => s.screen_id)).toEqual(
      created.slice(2).reverse(),
    );
    expect(first.body.screens[0]).toMatchObject({
      risk_level: 'CLEAR',
      subject: { name: expect.any(String) },
      screened_at: expect.any(String),
      created_by: { role: 'analyst' },
      disposition: null,
    });
    expect(first.body.screens[0]).not.toHaveProperty('sanctions_result');

    const seen = [...first.body.screens];
    let cursor = first.body.next_cursor;
    while (cursor) {
      const page = await local.api.get(`/screens?limit=3&cursor=${cursor}`, analyst);
      expect(page.status).toBe(200);
      seen.push(...page.body.screens);
      cursor = page.body.next_cursor;
    }
    const ids = seen.map((s) => s.screen_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort().reverse()).toEqual(ids);
    for (const id of created) expect(ids).toContain(id);
  });

  it('returns next_cursor null when everything fits', async () => {
    const { body } = await local.api.get('/screens?limit=200', analyst);
    expect(body.next_cursor).toBeNull();
  });

  it('refuses limits above 200 or below 1 and cursors it did not issue', async () => {
    expect((await local.api.get('/screens?limit=201', analyst)).body.detail).toBe(
      'limit: must be at most 200',
    );
    expect((await local.api.get('/screens?limit=0', analyst)).status).toBe(400);
    expect((await local.api.get('/screens/pending?limit=abc', analyst)).status).toBe(400);
    const tampered = Buffer.from(
      JSON.stringify({ l: 'screens', t: 'tdemostarter', id: 'SCR-20000101-000001' }),
    ).toString('base64url');
    const refused = await local.api.get(`/screens?cursor=${tampered}`, analyst);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/^cursor:/);
    expect((await local.api.get('/screens/pending?cursor=garbage!', analyst)).status).toBe(400);
  });

  it('lists pending screens until they get a disposition', async () => {
    const a = (await local.api.post('/screen', analyst, { name: madeUpName() })).body.screen_id;
    const b = (await local.api.post('/screen', analyst, { name: madeUpName() })).body.screen_id;

    const before = await local.api.get('/screens/pending?limit=200', analyst);
    expect(before.status).toBe(200);
    const pendingIds = before.body.screens.map((s: { screen_id: string }) => s.screen_id);
    expect(pendingIds.slice(0, 2)).toEqual([b, a]);
    expect(before.body.screens[0]).toMatchObject({ screen_id: b, risk_level: 'CLEAR' });

    await local.api.post(`/screens/${a}/dispose`, analyst, { disposition: 'false_positive' });

    const after = await local.api.get('/screens/pending?limit=200', analyst);
    const afterIds = after.body.screens.map((s: { screen_id: string }) => s.screen_id);
    expect(afterIds).toContain(b);
    expect(afterIds).not.toContain(a);
    const listed = (await local.api.get('/screens?limit=200', analyst)).body.screens.find(
      (s: { screen_id: string }) => s.screen_id === a,
    );
    expect(listed.disposition).toMatchObject({ disposition: 'false_positive' });
  });

  it('pages the pending list too', async () => {
    for (let i = 0; i < 3; i++) await local.api.post('/screen', analyst, { name: madeUpName() });
    const first = await local.api.get('/screens/pending?limit=2', analyst);
    expect(first.body.screens).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));

    const second = await local.api.get(`/screens/pending?limit=2&cursor=${first.body.next_cursor}`, analyst);
    expect(second.status).toBe(200);
    expect(second.body.screens[0].screen_id < first.body.screens[1].screen_id).toBe(true);
    // A cursor of one list is refused by the other.
    expect((await local.api.get(`/screens?cursor=${first.body.next_cursor}`, analyst)).status).toBe(400);
  });

  it('answers 401 without a key', async () => {
    expect((await local.api.get('/screens')).status).toBe(401);
    expect((await local.api.get('/screens/pending')).status).toBe(401);
  });
});
