import { describe, expect, it } from 'vitest';
import { claimAllClientPersons } from '../../lib/monitoring/client-claims.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { chargeScreens } from '../../lib/tenancy/quota.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { demoKey, madeUpName, useLocalStack } from '../support/api-client.ts';
import { monitoredClientItem, putItems } from '../support/monitored-client.ts';

const local = useLocalStack();

async function freshTenant(plan: 'starter' | 'growth' | 'enterprise' = 'enterprise', used = 0) {
  const { table } = getServices();
  const { tenant, admin } = await createTenant(table, { name: `Clients ${plan} ${used}`, plan });
  if (used > 0) await chargeScreens(table, tenant.tenant_id, used, null);
  return { tenantId: tenant.tenant_id, key: admin.api_key };
}

const usedOf = async (key: string) => (await local.api.get('/me', key)).body.usage.screens_used as number;

describe('POST /clients', () => {
  it('registers and screens a subject at once: 201 with the profile, one screen charged', async () => {
    const { key } = await freshTenant();
    const name = madeUpName();

    const { status, body } = await local.api.post('/clients', key, {
      name,
      dob: '1980-02-29',
      reference: 'CUST-0001',
      types: 'sanctions,pep',
    });

    expect(status).toBe(201);
    expect(body).toMatchObject({
      client_id: expect.stringMatching(/^CLI-\d{8}-\d{9}-[0-9a-f]{6}$/),
      reference: 'CUST-0001',
      subject: { name, dob: '1980-02-29' },
      types: ['sanctions', 'pep'],
      status: 'active',
      risk_level: 'CLEAR',
      rescreen_interval_days: 90,
      rescreen_interval_custom: false,
      last_screen_id: expect.stringMatching(/^SCR-\d{8}-\d{6}$/),
    });
    expect(Date.parse(body.next_due_at) - Date.parse(body.last_screened_at)).toBe(90 * 86_400_000);
    expect(await usedOf(key)).toBe(1);
    const screen = (await local.api.get(`/screens/${body.last_screen_id}`, key)).body;
    expect(screen).toMatchObject({ origin: 'client_registration', client_id: body.client_id });
  });

  it('a listed person is monitored at the risk-level interval; an explicit interval overrides it', async () => {
    const { key } = await freshTenant();

    const listed = (await local.api.post('/clients', key, { name: 'Vladimir Putin', dob: '1952-10-07' }))
      .body;
    const custom = (await local.api.post('/clients', key, { name: madeUpName(), rescreen_interval_days: 14 }))
      .body;

    expect(['HIGH', 'CRITICAL']).toContain(listed.risk_level);
    expect(listed.rescreen_interval_days).toBe(7);
    expect(custom).toMatchObject({ rescreen_interval_days: 14, rescreen_interval_custom: true });
  });

  it('reuses a screen from the rescreen window without charging', async () => {
    const { key } = await freshTenant();
    const name = madeUpName();
    const earlier = (await local.api.post('/screen', key, { name })).body;

    const { status, body } = await local.api.post('/clients', key, { name });

    expect(status).toBe(201);
    expect(body.last_screen_id).toBe(earlier.screen_id);
    expect(await usedOf(key)).toBe(1);
    const detail = (await local.api.get(`/clients/${body.client_id}`, key)).body;
    expect(detail.screens.map((s: { screen_id: string }) => s.screen_id)).toEqual([earlier.screen_id]);
  });

  it('at the quota limit: 429 and no client is written; the reference stays free', async () => {
    const { key } = await freshTenant('starter', 1000);

    const refused = await local.api.post('/clients', key, { name: madeUpName(), reference: 'R-429' });

    expect(refused.status).toBe(429);
    expect(refused.body.detail).toContain('1000/1000');
    expect((await local.api.get('/clients', key)).body.clients).toEqual([]);
    expect((await local.api.get('/clients?reference=R-429', key)).body.clients).toEqual([]);
    expect(await usedOf(key)).toBe(1000);
  });

  it('a second registration with the same reference is 409 naming the client; nothing charged', async () => {
    const { key } = await freshTenant();
    const first = (await local.api.post('/clients', key, { name: madeUpName(), reference: 'ACME-7' })).body;

    const second = await local.api.post('/clients', key, {
      name: madeUpName(),
      reference: 'ACME-7',
      dob: '1970-01-01',
    });

    expect(second.status).toBe(409);
    expect(second.body.detail).toContain(first.client_id);
    expect(await usedOf(key)).toBe(1);
  });

  it('the same person (normalised name, dob, nationality) twice is 409 with existing_client_id; nothing charged', async () => {
    const { key } = await freshTenant();
    const name = madeUpName();
    const first = (
      await local.api.post('/clients', key, {
        name,
        dob: '1966-06-06',
        nationality: 'French',
        reference: 'P-1',
      })
    ).body;

    // Case, width and spacing do not make another person; another reference does not either.
    const again = await local.api.post('/clients', key, {
      name: `  ${name.toUpperCase()} `,
      dob: '1966-06-06',
      nationality: 'FRENCH',
      reference: 'P-2',
    });
    const otherDob = await local.api.post('/clients', key, {
      name,
      dob: '1966-06-07',
      nationality: 'French',
    });
    const referenceFree = await local.api.post('/clients', key, { name: madeUpName(), reference: 'P-2' });

    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ existing_client_id: first.client_id });
    expect(again.body.detail).toContain(`already monitored as client ${first.client_id}`);
    expect(otherDob.status).toBe(201);
    // The refused registration left its reference free.
    expect(referenceFree.status).toBe(201);
    expect(await usedOf(key)).toBe(3);
  });

  it('the same person as the matcher reads it (accents, word order, a dob or nationality added) is 409 naming the client', async () => {
    const { key } = await freshTenant();
    const first = await local.api.post('/clients', key, { name: 'Noref Registrant Qwv' });
    const usedBefore = await usedOf(key);

    const variants = [
      { name: 'Noréf Registrant Qwv' },
      { name: 'Qwv Noref Registrant' },
      { name: 'Noref Registrant Qwv', dob: '1984-06-30' },
      { name: 'Noref Registrant Qwv', nationality: 'Belgian' },
    ];
    const answers = [];
    for (const variant of variants) answers.push(await local.api.post('/clients', key, variant));

    expect(first.status).toBe(201);
    for (const answer of answers) {
      expect(answer.status).toBe(409);
      expect(answer.body.existing_client_id).toBe(first.body.client_id);
      expect(answer.body.detail).toContain(`already monitored as client ${first.body.client_id}`);
      expect(answer.body.detail).toContain(`stop it (DELETE /clients/${first.body.client_id})`);
    }
    expect(await usedOf(key)).toBe(usedBefore);
    expect((await local.api.get('/clients', key)).body.clients).toHaveLength(1);
  });

  it('a stopped client frees its person: the same person registers again; tenants do not share persons', async () => {
    const { key } = await freshTenant();
    const { key: otherTenant } = await freshTenant();
    const subject = { name: madeUpName(), dob: '1955-05-05' };
    const first = (await local.api.post('/clients', key, subject)).body;

    const elsewhere = await local.api.post('/clients', otherTenant, subject);
    await local.api.delete(`/clients/${first.client_id}`, key);
    const again = await local.api.post('/clients', key, subject);

    expect(elsewhere.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.client_id).not.toBe(first.client_id);
    expect((await local.api.post('/clients', key, subject)).body).toMatchObject({
      existing_client_id: again.body.client_id,
    });
  });

  it('claim-client-persons backfills clients registered before person claims; the copies are listed', async () => {
    const { tenantId, key } = await freshTenant();
    const person = { name: madeUpName(), dob: '1944-04-04' };
    const due = '2027-01-01T00:00:00Z';
    // Registered before person claims existed: three clients, two of them the same person.
    const older = monitoredClientItem(tenantId, 'CLI-20260101-000000000-aaaaaa', person, due);
    const copy = monitoredClientItem(tenantId, 'CLI-20260102-000000000-bbbbbb', person, due);
    const other = monitoredClientItem(tenantId, 'CLI-20260103-000000000-cccccc', { name: madeUpName() }, due);
    await putItems(getServices().table, [copy, older, other]);

    const report = await claimAllClientPersons(getServices().table);

    expect(report.duplicates).toContainEqual({
      tenant_id: tenantId,
      client_id: copy.client_id,
      existing_client_id: older.client_id,
    });
    expect(report.duplicates.filter((d) => d.tenant_id === tenantId)).toHaveLength(1);
    const again = await local.api.post('/clients', key, person);
    expect(again.status).toBe(409);
    expect(again.body.existing_client_id).toBe(older.client_id);
    expect((await local.api.post('/clients', key, other.subject)).body.existing_client_id).toBe(
      other.client_id,
    );
  });

  it('of concurrent registrations of one person exactly one succeeds', async () => {
    const { key } = await freshTenant();
    const name = madeUpName();

    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        local.api.post('/clients', key, { name, dob: '1990-01-01', reference: `RACE-P-${i}` }),
      ),
    );

    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const clients = (await local.api.get('/clients', key)).body.clients;
    expect(clients).toHaveLength(1);
    for (const loser of results.filter((r) => r.status === 409)) {
      expect(loser.body.existing_client_id).toBe(clients[0].client_id);
    }
    // The losers wrote nothing (their references are free) and pay nothing: one screen, one client.
    const losers = [0, 1, 2, 3, 4].map((i) => `RACE-P-${i}`).filter((r) => r !== clients[0].reference);
    for (const reference of losers) {
      expect((await local.api.get(`/clients?reference=${reference}`, key)).body.clients).toEqual([]);
    }
    expect(await usedOf(key)).toBe(1);
  });

  it('of concurrent registrations of one reference exactly one succeeds', async () => {
    const { key } = await freshTenant();
    const name = madeUpName();

    const results = await Promise.all(
      Array.from({ length: 5 }, () => local.api.post('/clients', key, { name, reference: 'RACE-1' })),
    );

    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect((await local.api.get('/clients', key)).body.clients).toHaveLength(1);
  });

  it('honours Idempotency-Key: a repeat returns the first client, another body is 422', async () => {
    const { key } = await freshTenant();
    const body = { name: madeUpName(), reference: 'IDEM-1' };
    const send = (payload: unknown) =>
      fetch(`${local.stack.url}/clients`, {
        method: 'POST',
        headers: {
          'x-api-key': key,
          'idempotency-key': 'register-idem-1',
          'content-type': 'application/json',
        },
        body: JSON.stringify(payload),
      });

    const first = await send(body);
    const repeat = await send(body);
    const other = await send({ ...body, dob: '1970-01-01' });

    expect(first.status).toBe(201);
    expect(repeat.status).toBe(201);
    expect((await repeat.json()).client_id).toBe((await first.json()).client_id);
    expect(other.status).toBe(422);
    expect(await usedOf(key)).toBe(1);
  });

  it('validates every field with a 400 naming it, and charges nothing', async () => {
    const { key } = await freshTenant();
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'name: is required'],
      [{ name: 'Jane Doe', reference: 'x'.repeat(129) }, 'reference: must be at most 128 characters'],
      [{ name: 'Jane Doe', reference: '  ' }, 'reference: must not be blank'],
      [{ name: 'Jane Doe', rescreen_interval_days: 0 }, 'rescreen_interval_days: must be at least 1'],
      [{ name: 'Jane Doe', rescreen_interval_days: 366 }, 'rescreen_interval_days: must be at most 365'],
      [{ name: 'Jane Doe', rescreen_interval_days: 1.5 }, 'rescreen_interval_days: must be a whole number'],
      [{ name: 'Jane Doe', rescreen_interval_days: '7' }, 'rescreen_interval_days: must be a whole number'],
      [{ name: 'Jane Doe', dob: '1990-02-30' }, 'dob: must be a real date'],
      [{ name: 'Jane Doe', types: 'sanctions,tax' }, 'types: unknown check type "tax"'],
      [{ name: 'Jane Doe', referenceId: 'x' }, 'referenceId: is not a known field'],
    ];
    for (const [body, detail] of cases) {
      const response = await local.api.post('/clients', key, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.detail).toContain(detail);
    }
    expect(await usedOf(key)).toBe(0);
  });
});

describe('GET /clients', () => {
  it('lists newest first with limit and cursor, filters by risk level and finds by reference', async () => {
    const { key } = await freshTenant();
    const registered = [];
    for (let i = 0; i < 5; i += 1) {
      registered.push(
        (await local.api.post('/clients', key, { name: madeUpName(), reference: `P-${i}` })).body,
      );
    }
    const listed = (await local.api.post('/clients', key, { name: 'Vladimir Putin', dob: '1952-10-07' }))
      .body;

    const first = (await local.api.get('/clients?limit=4', key)).body;
    const second = (await local.api.get(`/clients?limit=4&cursor=${first.next_cursor}`, key)).body;
    const ids = [...first.clients, ...second.clients].map((c: { client_id: string }) => c.client_id);
    expect(ids).toEqual([listed, ...registered.reverse()].map((c) => c.client_id));
    expect(second.next_cursor).toBeNull();

    const clear = (await local.api.get('/clients?risk_level=clear', key)).body.clients;
    expect(clear).toHaveLength(5);
    const risky = (await local.api.get(`/clients?risk_level=${listed.risk_level}`, key)).body.clients;
    expect(risky.map((c: { client_id: string }) => c.client_id)).toEqual([listed.client_id]);

    const found = (await local.api.get('/clients?reference=P-3', key)).body.clients;
    expect(found.map((c: { reference: string }) => c.reference)).toEqual(['P-3']);
    expect((await local.api.get('/clients?reference=nope', key)).body.clients).toEqual([]);
  });

  it('refuses bad filters and foreign cursors with a 400 naming them', async () => {
    const { key } = await freshTenant();
    const other = await freshTenant();
    for (let i = 0; i < 2; i += 1) await local.api.post('/clients', other.key, { name: madeUpName() });
    const foreign = (await local.api.get('/clients?limit=1', other.key)).body.next_cursor;

    expect((await local.api.get('/clients?risk_level=SEVERE', key)).body.detail).toContain(
      'risk_level: must be one of',
    );
    expect((await local.api.get('/clients?limit=0', key)).status).toBe(400);
    expect((await local.api.get('/clients/screened?limit=0', key)).status).toBe(400);
    const client = (await local.api.post('/clients', key, { name: madeUpName() })).body;
    expect((await local.api.get(`/clients/${client.client_id}?limit=201`, key)).body.detail).toBe(
      'limit: must be at most 200',
    );
    const wrong = await local.api.get(`/clients?cursor=${foreign}`, key);
    expect(wrong.status).toBe(400);
    expect(wrong.body.detail).toContain('cursor:');
  });
});

describe('GET and DELETE /clients/{client_id}', () => {
  it('stop monitoring: the profile says stopped, its screens stay, its reference is free again', async () => {
    const { key } = await freshTenant();
    const client = (await local.api.post('/clients', key, { name: madeUpName(), reference: 'STOP-1' })).body;

    const stopped = await local.api.delete(`/clients/${client.client_id}`, key);

    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({
      status: 'stopped',
      next_due_at: null,
      stopped_by: { role: 'admin' },
    });
    expect((await local.api.get(`/screens/${client.last_screen_id}`, key)).status).toBe(200);
    expect((await local.api.get(`/clients/${client.client_id}`, key)).body.status).toBe('stopped');
    expect((await local.api.post('/clients', key, { name: madeUpName(), reference: 'STOP-1' })).status).toBe(
      201,
    );
    const again = await local.api.delete(`/clients/${client.client_id}`, key);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(stopped.body);
  });

  it('analysts stop only the clients they registered (403 otherwise)', async () => {
    const admin = demoKey(local.stack, 'tdemoenterprise', 'admin').api_key;
    const analyst = demoKey(local.stack, 'tdemoenterprise', 'analyst').api_key;
    const byAdmin = (await local.api.post('/clients', admin, { name: madeUpName() })).body;
    const byAnalyst = (await local.api.post('/clients', analyst, { name: madeUpName() })).body;

    const refused = await local.api.delete(`/clients/${byAdmin.client_id}`, analyst);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('registered');
    expect((await local.api.delete(`/clients/${byAnalyst.client_id}`, analyst)).status).toBe(200);
  });

  it('another tenant’s client id, or an unknown one, is 404 on every client route', async () => {
    const mine = await freshTenant();
    const theirs = await freshTenant();
    const client = (await local.api.post('/clients', theirs.key, { name: madeUpName() })).body;

    for (const path of [
      `/clients/${client.client_id}`,
      '/clients/CLI-20260101-000000000-abcdef',
      '/clients/x',
    ]) {
      expect((await local.api.get(path, mine.key)).status).toBe(404);
      expect((await local.api.delete(path, mine.key)).status).toBe(404);
    }
    expect((await local.api.get('/clients', mine.key)).body.clients).toEqual([]);
    expect((await local.api.get(`/clients/${client.client_id}`, theirs.key)).status).toBe(200);
  });
});

describe('GET /clients/screened and /clients/reviewed', () => {
  it('one row per subject through every path, with its latest screen, count and latest decision', async () => {
    const { key } = await freshTenant();
    const once = madeUpName();
    const twice = madeUpName();
    const registered = madeUpName();
    await local.api.post('/screen', key, { name: once });
    const firstOfTwice = (await local.api.post('/screen', key, { name: twice })).body;
    const latestOfTwice = (await local.api.post('/screen', key, { name: twice, force: true })).body;
    await local.api.post('/clients', key, { name: registered });

    const screened = (await local.api.get('/clients/screened', key)).body;

    expect(screened.subjects.map((row: { subject: { name: string } }) => row.subject.name)).toEqual([
      registered,
      twice,
      once,
    ]);
    expect(screened.subjects[1]).toMatchObject({
      screen_count: 2,
      latest_screen: { screen_id: latestOfTwice.screen_id, risk_level: 'CLEAR' },
      latest_disposition: null,
    });
    expect((await local.api.get('/clients/reviewed', key)).body.subjects).toEqual([]);

    await local.api.post(`/screens/${firstOfTwice.screen_id}/dispose`, key, { disposition: 'cleared' });

    const reviewed = (await local.api.get('/clients/reviewed', key)).body.subjects;
    expect(reviewed).toHaveLength(1);
    expect(reviewed[0]).toMatchObject({
      subject: { name: twice },
      latest_disposition: { disposition: 'cleared', screen_id: firstOfTwice.screen_id },
    });
    expect((await local.api.get('/clients/screened', key)).body.subjects[0].subject.name).toBe(twice);

    // Deleting the decided screen: the row falls back to what the remaining screen says.
    await local.api.delete(`/screens/${firstOfTwice.screen_id}`, key);
    expect((await local.api.get('/clients/reviewed', key)).body.subjects).toEqual([]);
    const row = (await local.api.get('/clients/screened', key)).body.subjects.find(
      (r: { subject: { name: string } }) => r.subject.name === twice,
    );
    expect(row).toMatchObject({ screen_count: 1, latest_disposition: null });

    // Deleting the last screen of a subject removes its row.
    await local.api.delete(`/screens/${latestOfTwice.screen_id}`, key);
    const names = (await local.api.get('/clients/screened', key)).body.subjects.map(
      (r: { subject: { name: string } }) => r.subject.name,
    );
    expect(names).toEqual([registered, once]);
  });

  it('pages with limit and cursor, bound to the tenant and the list', async () => {
    const { key } = await freshTenant();
    for (let i = 0; i < 3; i += 1) await local.api.post('/screen', key, { name: madeUpName() });

    const first = (await local.api.get('/clients/screened?limit=2', key)).body;
    const second = (await local.api.get(`/clients/screened?limit=2&cursor=${first.next_cursor}`, key)).body;

    expect(first.subjects).toHaveLength(2);
    expect(second.subjects).toHaveLength(1);
    expect(second.next_cursor).toBeNull();
    expect((await local.api.get(`/clients/reviewed?cursor=${first.next_cursor}`, key)).status).toBe(400);
  });
});
