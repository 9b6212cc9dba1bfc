import { describe, expect, it } from 'vitest';
import { useLocalStack } from '../support/api-client.ts';

const local = useLocalStack();

const get = (path: string, key?: string) =>
  fetch(`${local.stack.url}${path}`, { headers: key ? { 'x-api-key': key } : {} });

describe('GET /health', () => {
  it('answers without a key with status, interface version and an offset timestamp', async () => {
    const response = await get('/health');

    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const body = await response.json();
    expect(body).toMatchObject({ status: 'ok', version: '1.5.0' });
    expect(body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/);
  });
});

describe('GET /me', () => {
  it('describes the caller, tenant, plan limits and usage for every demo key', async () => {
    for (const demo of local.stack.demoKeys) {
      const response = await get('/me', demo.api_key);

      expect(response.status).toBe(200);
      const body = await response.json();
      expect(body.user).toMatchObject({ user_id: demo.user_id, role: demo.role });
      expect(body.role).toBe(demo.role);
      expect(body.tenant).toEqual({ tenant_id: demo.tenant_id, name: demo.tenant });
      expect(body.plan.id).toBe(demo.plan);
      expect(body.usage).toMatchObject({ screens_used: 0 });
    }
  });

  it('gives every demo user, admins included, the fixed id the seed names', async () => {
    const ids = local.stack.demoKeys.map((k) => `${k.tenant_id}/${k.user_id}`);

    expect(ids).toEqual([
      'tdemoenterprise/uentadmin',
      'tdemoenterprise/uentanalyst1',
      'tdemoenterprise/uentanalyst2',
      'tdemostarter/ustartadmin',
      'tdemostarter/ustartanalyst',
    ]);
    const admin = await (await get('/me', local.stack.demoKeys[0].api_key)).json();
    expect(admin.user.user_id).toBe('uentadmin');
  });

  it('shows the Starter plan limits', async () => {
    const starter = local.stack.demoKeys.find((k) => k.plan === 'starter')!;

    const body = await (await get('/me', starter.api_key)).json();

    expect(body.plan).toMatchObject({
      name: 'Starter',
      monthly_screens: 1000,
      analyst_seats: 1,
      batch: false,
    });
    expect(body.usage).toMatchObject({ screens_allowed: 1000, screens_remaining: 1000 });
  });

  it.each([
    ['no key', undefined],
    ['an empty key', ''],
    ['a malformed key', 'hello'],
    ['a well-formed unknown key', `isk_tnobody.unobody.${'x'.repeat(43)}`],
  ])('answers %s with 401 and a detail', async (_label, key) => {
    const response = await fetch(`${local.stack.url}/me`, {
      headers: key === undefined ? {} : { 'x-api-key': key },
    });

    expect(response.status).toBe(401);
    expect((await response.json()).detail).toMatch(/API key/);
  });
});

describe('POST /me/rotate-key', () => {
  it('returns a new key once; the old key gets 401 immediately and the new one works', async () => {
    const analyst = local.stack.demoKeys.find((k) => k.role === 'analyst' && k.plan === 'enterprise')!;

    const response = await fetch(`${local.stack.url}/me/rotate-key`, {
      method: 'POST',
      headers: { 'x-api-key': analyst.api_key },
    });

    expect(response.status).toBe(200);
    const { api_key: newKey } = await response.json();
    expect(newKey).not.toBe(analyst.api_key);
    expect((await get('/me', analyst.api_key)).status).toBe(401);
    expect((await get('/me', newKey)).status).toBe(200);
  });
});

describe('routing and protocol errors', () => {
  it('answers an unknown route with 404 and a wrong method with 405', async () => {
    const unknown = await get('/no-such-thing');
    const wrongMethod = await fetch(`${local.stack.url}/health`, { method: 'DELETE' });

    expect(unknown.status).toBe(404);
    expect((await unknown.json()).detail).toContain('/no-such-thing');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
    expect((await wrongMethod.json()).detail).toMatch(/not allowed/);
  });

  it('names in Allow only the methods of the path asked for, not those of a parameterised sibling', async () => {
    const pending = await fetch(`${local.stack.url}/screens/pending`, { method: 'OPTIONS' });
    const screen = await fetch(`${local.stack.url}/screens/SCR-20260101-000001`, { method: 'OPTIONS' });

    expect(pending.status).toBe(405);
    expect(pending.headers.get('allow')).toBe('GET');
    expect((await pending.json()).detail).toMatch(/allowed: GET$/);
    expect(screen.headers.get('allow')).toBe('GET, DELETE');
  });

  it('refuses a body over 1 MB with 413', async () => {
    const admin = local.stack.demoKeys[0];

    const response = await fetch(`${local.stack.url}/me/rotate-key`, {
      method: 'POST',
      headers: { 'x-api-key': admin.api_key, 'content-type': 'application/json' },
      body: JSON.stringify({ padding: 'x'.repeat(1024 * 1024 + 10) }),
    });

    expect(response.status).toBe(413);
    expect((await response.json()).detail).toMatch(/1 MB/);
    expect((await get('/me', admin.api_key)).status).toBe(200);
  });
});

describe('GET /dbstatus', () => {
  it('reports every shipped list with counts, real source dates and staleness', async () => {
    const response = await get('/dbstatus', local.stack.demoKeys[0].api_key);

    expect(response.status).toBe(200);
    const body = await response.json();
    const byId = Object.fromEntries(body.lists.map((l: { id: string }) => [l.id, l]));
    expect(Object.keys(byId).sort()).toEqual(
      [
        'fbi_wanted',
        'interpol_red',
        'ofac_sdn',
        'ofac_cons',
        'eu_fsf',
        'uk_fcdo',
        'uk_ofsi',
        'ca_sema',
        'au_dfat',
        'nz_russia',
        'un_sc',
        'us_congress_pep',
        'us_executive_pep',
        'world_leaders_pep',
        'intl_bodies_pep',
      ].sort(),
    );
    expect(byId.eu_fsf).toMatchObject({
      entity_count: 5860,
      individual_count: 4341,
      source_date: '2026-05-01',
    });
    expect(byId.uk_fcdo).toMatchObject({
      entity_count: 6349,
      individual_count: 4036,
      source_date: '2026-08-22',
    });
    expect(byId.uk_fcdo.notes.join(' ')).toMatch(/no dates of birth/);
    expect(byId.uk_fcdo.attribution).toMatch(/Open Government Licence v3\.0/);
    expect(byId.ofac_cons).toMatchObject({ individual_count: 79, source_date: '2026-01-08' });
    expect(byId.ca_sema).toMatchObject({
      entity_count: 4759,
      individual_count: 3328,
      source_date: '2025-03-20',
    });
    expect(byId.au_dfat).toMatchObject({
      entity_count: 3811,
      individual_count: 2518,
      source_date: '2026-02-24',
    });
    expect(byId.nz_russia).toMatchObject({ individual_count: 1357, source_date: '2026-02-20' });
    expect(byId.world_leaders_pep).toMatchObject({
      category: 'pep',
      individual_count: 5348,
      source_date: '2019-06-04',
    });
    expect(byId.intl_bodies_pep).toMatchObject({
      category: 'pep',
      individual_count: 3424,
      source_date: '2023-01-10',
    });
    expect(byId.un_sc).toMatchObject({
      category: 'sanctions',
      individual_count: 730,
      source_date: '2026-02-27',
    });
    // Retired: screened only through the FCDO designations that carry its entries' group ids.
    expect(byId.uk_ofsi).toMatchObject({
      entity_count: 4686,
      individual_count: 3657,
      linked_count: 3657,
      source_date: '2025-04-10',
    });
    expect(byId.eu_fsf.linked_count).toBeGreaterThan(1000);
    expect(body.totals.individuals).toBe(44340);
    expect(byId.un_sc.stale).toBe(true);
    expect(body.stale).toBe(true);
    expect(body.staleness_rule).toMatch(/7 days/);
    expect(body.last_sync).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('needs a key', async () => {
    expect((await get('/dbstatus')).status).toBe(401);
  });
});
