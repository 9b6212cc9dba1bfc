import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { logger } from '../../lib/common/log.ts';
import { findDueClients } from '../../lib/monitoring/client-table.ts';
import { startRescreenRun } from '../../lib/monitoring/rescreen-run.ts';
import { publishedSnapshotVersion } from '../../lib/monitoring/run-lists.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { FILTERED_READ_LIMIT } from '../../lib/screening/screen-filters.ts';
import { PLANS } from '../../lib/tenancy/plans.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { LIST_IDS } from '../../lib/watchlists/types.ts';
import { madeUpName, useLocalStack } from '../support/api-client.ts';
import { putItems } from '../support/monitored-client.ts';
import { pendingScreenItem } from '../support/pending-screens.ts';

/**
 * The filters of GET /screens and GET /screens/pending (the analysts' alert queue): each one
 * alone and together, bad values refused with the parameter named, and pages that stay cursor
 * paged and bounded in what they read.
 */
const local = useLocalStack();

async function freshTenant() {
  const { tenant, admin } = await createTenant(getServices().table, { name: 'Filters', plan: 'enterprise' });
  return { tenantId: tenant.tenant_id, key: admin.api_key };
}

const idsOf = (page: { screens: { screen_id: string }[] }) => page.screens.map((screen) => screen.screen_id);

/** Every row of a list, following next_cursor. */
async function allRows(path: string, key: string) {
  const rows: { screen_id: string }[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const joiner = path.includes('?') ? '&' : '?';
    const page = await local.api.get(`${path}${cursor ? `${joiner}cursor=${cursor}` : ''}`, key);
    expect(page.status).toBe(200);
    rows.push(...page.body.screens);
    cursor = page.body.next_cursor;
    pages += 1;
  } while (cursor && pages < 50);
  return { ids: rows.map((row) => row.screen_id), pages };
}

describe('filters on real screens', () => {
  let key: string;
  let listed: { screen_id: string; sanctions_result: { matches: { list_id: string }[] } };
  let clear: { screen_id: string };
  let client: { last_screen_id: string };
  let awaiting: { screen_id: string };
  beforeAll(async () => {
    ({ key } = await freshTenant());
    listed = (await local.api.post('/screen', key, { name: 'Vladimir Putin', dob: '1952-10-07' })).body;
    clear = (await local.api.post('/screen', key, { name: madeUpName() })).body;
    client = (await local.api.post('/clients', key, { name: madeUpName() })).body;
    awaiting = (await local.api.post('/screen', key, { name: madeUpName() })).body;
    await local.api.post(`/screens/${awaiting.screen_id}/dispose`, key, {
      disposition: 'cleared',
      approval_requested: true,
    });
  }, 120_000);

  it('risk_level: any of a comma-separated set, any case', async () => {
    const critical = await local.api.get('/screens?risk_level=critical,high', key);
    const clearOnes = await local.api.get('/screens/pending?risk_level=CLEAR', key);

    expect(idsOf(critical.body)).toEqual([listed.screen_id]);
    expect(idsOf(clearOnes.body)).toEqual([client.last_screen_id, clear.screen_id]);
    expect(clearOnes.body.screens[0]).toMatchObject({
      origin: 'client_registration',
      client_id: expect.any(String),
    });
  });

  it('each row names its strongest match (highest risk, then score); a screen with none, null', async () => {
    const full = (await local.api.get(`/screens/${listed.screen_id}`, key)).body;
    const matches = [...(full.sanctions_result?.matches ?? []), ...(full.pep_result?.matches ?? [])];
    const rank = ['CLEAR', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];
    const strongest = [...matches].sort(
      (a, b) => rank.indexOf(b.risk_level) - rank.indexOf(a.risk_level) || b.score - a.score,
    )[0];

    const rows = (await local.api.get('/screens/pending?limit=50', key)).body.screens;
    const row = (id: string) => rows.find((r: { screen_id: string }) => r.screen_id === id);

    expect(matches.length).toBeGreaterThan(1);
    expect(row(listed.screen_id).best_match).toEqual({
      name: strongest.primary_name,
      list_id: strongest.list_id,
      list_name: strongest.list_name,
      score: strongest.score,
      risk_level: strongest.risk_level,
    });
    expect(row(clear.screen_id).best_match).toBeNull();
  });

  it('check and list: screens whose check found a match, on the list named', async () => {
    const list = listed.sanctions_result.matches[0].list_id;

    const sanctions = await local.api.get('/screens?check=sanctions', key);
    const onList = await local.api.get(`/screens/pending?list=${list}`, key);
    const onAnyList =
      JSON.stringify(listed)
        .match(/"list_id":"\w+"/g)
        ?.join() ?? '';
    const other = LIST_IDS.find((id) => !onAnyList.includes(`"${id}"`));
    const elsewhere = await local.api.get(`/screens?list=${other}`, key);

    expect(idsOf(sanctions.body)).toEqual([listed.screen_id]);
    expect(idsOf(onList.body)).toEqual([listed.screen_id]);
    expect(idsOf(elsewhere.body)).toEqual([]);
  });

  it('origin: api, client_registration; together with risk_level every filter must hold', async () => {
    const direct = await local.api.get('/screens?origin=api', key);
    const registrations = await local.api.get('/screens?origin=client_registration', key);
    const both = await local.api.get('/screens?origin=api&risk_level=CRITICAL,HIGH', key);

    expect(idsOf(direct.body)).toEqual([awaiting.screen_id, clear.screen_id, listed.screen_id]);
    expect(idsOf(registrations.body)).toEqual([client.last_screen_id]);
    expect(idsOf(both.body)).toEqual([listed.screen_id]);
  });

  it('awaiting_approval: the decisions an admin has to sign off; none of them is pending', async () => {
    const waiting = await local.api.get('/screens?awaiting_approval=true', key);
    const notWaiting = await local.api.get('/screens?awaiting_approval=false', key);
    const pendingWaiting = await local.api.get('/screens/pending?awaiting_approval=true', key);

    expect(idsOf(waiting.body)).toEqual([awaiting.screen_id]);
    expect(waiting.body.screens[0].disposition).toMatchObject({ awaiting_approval: true });
    expect(idsOf(notWaiting.body)).not.toContain(awaiting.screen_id);
    expect(idsOf(notWaiting.body)).toHaveLength(3);
    expect(idsOf(pendingWaiting.body)).toEqual([]);
  });

  it('since: a day or a time with offset; later than every screen gives none', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const later = new Date(Date.now() + 3_600_000).toISOString();

    const fromToday = await local.api.get(`/screens?since=${today}`, key);
    const fromLater = await local.api.get(`/screens?since=${encodeURIComponent(later)}`, key);

    expect(idsOf(fromToday.body)).toHaveLength(4);
    expect(fromLater.body).toEqual({ screens: [], next_cursor: null });
  });

  it.each([
    ['risk_level=SEVERE', /^risk_level: "SEVERE" is not one of CLEAR, LOW, MEDIUM, HIGH, CRITICAL/],
    ['check=adverse_media', /^check: "adverse_media" is not one of sanctions, pep, criminal/],
    ['list=ofac', /^list: "ofac" is not one of ofac_sdn, /],
    [
      'origin=direct',
      /^origin: "direct" is not one of api, batch, client_registration, rescreen, list_change/,
    ],
    ['awaiting_approval=yes', /^awaiting_approval: must be true or false/],
    ['since=yesterday', /^since: must be a date \(YYYY-MM-DD/],
    ['since=2026-02-30', /^since: must be a date/],
    ['risk_level=HIGH,', /^risk_level: an empty entry is not one of/],
  ])('%s is a 400 naming the parameter and what it takes', async (query, detail) => {
    const { status, body } = await local.api.get(`/screens/pending?${query}`, key);

    expect(status).toBe(400);
    expect(body.code).toBe('invalid_request');
    expect(body.detail).toMatch(detail);
  });
});

describe('origin list_change', () => {
  it('names the re-screens a list sync started; rescreen names every re-screen', async () => {
    const { tenantId, key } = await freshTenant();
    const registered = (await local.api.post('/clients', key, { name: madeUpName() })).body;
    const services = getServices();
    const now = new Date(Date.now() + 400 * 86_400_000);
    const started = await startRescreenRun(
      { table: services.table, batchQueue: services.batchQueue },
      {
        tenantId,
        plan: PLANS.enterprise,
        trigger: 'list_change',
        clients: await findDueClients(services.table, tenantId, now),
        startedBy: { user_id: 'system', role: 'system' },
        now,
        snapshotVersion: await publishedSnapshotVersion(services.config),
      },
      logger,
    );
    const runId = started.run_id;
    for (let i = 0; i < 400; i += 1) {
      const run = (await local.api.get(`/clients/rescreen/runs/${runId}`, key)).body;
      if (run.status === 'finished') break;
      await sleep(50);
    }

    const listChange = await local.api.get('/screens?origin=list_change', key);
    const rescreens = await local.api.get('/screens?origin=rescreen', key);
    const registrations = await local.api.get('/screens?origin=client_registration,list_change', key);

    expect(listChange.body.screens).toHaveLength(1);
    expect(listChange.body.screens[0]).toMatchObject({ origin: 'rescreen', client_id: registered.client_id });
    expect(idsOf(rescreens.body)).toEqual(idsOf(listChange.body));
    expect(idsOf(registrations.body)).toEqual([...idsOf(listChange.body), registered.last_screen_id]);
  });
});

describe('filtered pages', () => {
  it('walk the whole filtered list with next_cursor, a full page at a time while the reads allow', async () => {
    const { tenantId, key } = await freshTenant();
    const items = Array.from({ length: 30 }, (_, i) =>
      pendingScreenItem(tenantId, {
        sequence: i + 1,
        risk_level: i % 3 === 0 ? 'HIGH' : 'CLEAR',
        lists: i % 3 === 0 ? ['un_sc'] : [],
      }),
    );
    await putItems(getServices().table, items);

    const high = await allRows('/screens/pending?risk_level=HIGH&list=un_sc&limit=4', key);
    const first = await local.api.get('/screens/pending?risk_level=HIGH&limit=4', key);

    const expected = items
      .filter((_, i) => i % 3 === 0)
      .map((item) => item.screen_id)
      .reverse();
    expect(high.ids).toEqual(expected);
    expect(high.pages).toBe(3);
    expect(idsOf(first.body)).toEqual(expected.slice(0, 4));
    // A cursor from before `since` (the seeded day) answers an empty last page, not an error.
    const later = await local.api.get(
      `/screens/pending?since=2026-03-05&cursor=${first.body.next_cursor}`,
      key,
    );
    expect(later).toMatchObject({ status: 200, body: { screens: [], next_cursor: null } });
  });

  it(`read at most ${FILTERED_READ_LIMIT} screens: a rare match further down comes on a later page`, async () => {
    const { tenantId, key } = await freshTenant();
    const rare = pendingScreenItem(tenantId, { sequence: 1, risk_level: 'CRITICAL', lists: ['ofac_sdn'] });
    const common = Array.from({ length: FILTERED_READ_LIMIT + 50 }, (_, i) =>
      pendingScreenItem(tenantId, { sequence: i + 2 }),
    );
    await putItems(getServices().table, [rare, ...common]);

    const first = await local.api.get('/screens/pending?risk_level=CRITICAL', key);
    const second = await local.api.get(
      `/screens/pending?risk_level=CRITICAL&cursor=${first.body.next_cursor}`,
      key,
    );
    const unfiltered = await local.api.get('/screens/pending?limit=200', key);

    expect(first.body.screens).toEqual([]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    expect(idsOf(second.body)).toEqual([rare.screen_id]);
    expect(second.body.next_cursor).toBeNull();
    expect(unfiltered.body.screens).toHaveLength(200);
  }, 120_000);
});
