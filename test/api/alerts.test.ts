/**
 * Alerts persist until decided, and only settled decisions are carried forward
 * (docs/monitoring.md#alert-on-change-only), through the local stack: clients registered over
 * HTTP, runs started by the scheduled function with its clock moved past the due dates, screens
 * read back over HTTP.
 */
import { describe, expect, it } from 'vitest';
import { getServices } from '../../lib/runtime/services.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { useLocalStack } from '../support/api-client.ts';
import { scheduledRescreenRun } from '../support/scheduled-rescreen.ts';
import { clientListedAfterRegistration as listedAfterRegistration } from '../support/screen-before-listing.ts';

const local = useLocalStack();

// biome-ignore lint/suspicious/noExplicitAny: black-box tests read arbitrary JSON bodies
type Body = any;

/** A tenant with its admin's key and one analyst's key. */
async function freshTenant() {
  const { tenant, admin } = await createTenant(getServices().table, { name: 'Alerts', plan: 'enterprise' });
  const analyst = (await local.api.post('/users', admin.api_key, { name: 'Alert Analyst' })).body
    .api_key as string;
  return { tenantId: tenant.tenant_id, admin: admin.api_key, analyst };
}

/** The hourly rule fired ahead, and the tenant's run it started, once finished. */
const scheduledRun = (_tenantId: string, key: string): Promise<Body> => scheduledRescreenRun(local.api, key);

const client = async (clientId: string, key: string): Promise<Body> =>
  (await local.api.get(`/clients/${clientId}`, key)).body;
const currentScreen = async (clientId: string, key: string): Promise<Body> =>
  (await local.api.get(`/screens/${(await client(clientId, key)).last_screen_id}`, key)).body;
const historyOf = async (screenId: string, key: string): Promise<Body> =>
  (await local.api.get(`/screens/${screenId}/history`, key)).body;
const pendingIds = async (key: string): Promise<string[]> =>
  (await local.api.get('/screens/pending', key)).body.screens.map((s: { screen_id: string }) => s.screen_id);

/** A client of a listed person whose registration screen predates the listing. */
const clientListedAfterRegistration = (tenantId: string, key: string): Promise<Body> =>
  listedAfterRegistration(local.api, tenantId, key);

describe('an alert persists until somebody decides it', { timeout: 120_000 }, () => {
  it('survives every later run: carried forward with when and where it was raised, and listed as still open', async () => {
    const { tenantId, admin } = await freshTenant();
    const registered = await clientListedAfterRegistration(tenantId, admin);

    const first = await scheduledRun(tenantId, admin);
    const raised = await currentScreen(registered.client_id, admin);
    expect(first.changed).toMatchObject([{ client_id: registered.client_id, alert: 'raised' }]);
    expect(raised.alert).toMatchObject({
      baseline_screen_id: registered.last_screen_id,
      raised_by_screen_id: raised.screen_id,
      since: raised.screened_at,
      risk_before: 'CLEAR',
    });
    expect(raised.alert.matches_added.length).toBeGreaterThan(0);

    // Nobody decides it: two more runs find the same result.
    for (let run = 0; run < 2; run += 1) {
      const again = await scheduledRun(tenantId, admin);
      const carried = await currentScreen(registered.client_id, admin);
      expect(carried.screen_id).not.toBe(raised.screen_id);
      expect(carried.disposition).toBeNull();
      expect(carried.alert).toMatchObject({
        baseline_screen_id: registered.last_screen_id,
        raised_by_screen_id: raised.screen_id,
        since: raised.screened_at,
        risk_before: 'CLEAR',
        matches_added: raised.alert.matches_added,
      });
      expect(again.changed).toMatchObject([
        { client_id: registered.client_id, screen_id: carried.screen_id, alert: 'still_open' },
      ]);
      expect(again.changed[0].alert_since).toBe(raised.screened_at);
      // One screen per client in the queue, and it says it carries an alert since the first run.
      const pending = (await local.api.get('/screens/pending', admin)).body.screens;
      expect(pending).toHaveLength(1);
      expect(pending[0]).toMatchObject({ screen_id: carried.screen_id, alert_since: raised.screened_at });
    }

    const profile = await client(registered.client_id, admin);
    expect(profile.open_alert).toMatchObject({
      screen_id: profile.last_screen_id,
      raised_by_screen_id: raised.screen_id,
      since: raised.screened_at,
      baseline_screen_id: registered.last_screen_id,
    });
    expect(profile.open_alert.matches_added).toEqual(raised.alert.matches_added);
  });

  it('is closed by a settled decision on the screen carrying it, and an unchanged run raises it no more', async () => {
    const { tenantId, admin, analyst } = await freshTenant();
    const registered = await clientListedAfterRegistration(tenantId, admin);
    await scheduledRun(tenantId, admin);
    const alerted = await currentScreen(registered.client_id, admin);
    expect(alerted.alert).not.toBeNull();

    const decided = await local.api.post(`/screens/${alerted.screen_id}/dispose`, analyst, {
      disposition: 'confirmed_hit',
      note: 'Same person: passport and date of birth agree',
    });
    expect(decided.status).toBe(200);
    expect((await client(registered.client_id, admin)).open_alert).toBeNull();

    const run = await scheduledRun(tenantId, admin);
    expect(run.changed).toEqual([]);
    const next = await currentScreen(registered.client_id, admin);
    expect(next.alert).toBeNull();
    // Carried by the system, still the analyst's decision.
    expect(next.disposition).toMatchObject({
      disposition: 'confirmed_hit',
      author: { role: 'analyst' },
      carried_by: { role: 'system' },
      carried_from: { screen_id: alerted.screen_id, decision_version: 1 },
    });
    expect(await pendingIds(admin)).toEqual([]);
    expect((await client(registered.client_id, admin)).open_alert).toBeNull();
  });
  it('is closed by a settled decision on an older screen carrying it: the current screen takes the decision', async () => {
    const { tenantId, admin, analyst } = await freshTenant();
    const registered = await clientListedAfterRegistration(tenantId, admin);
    await scheduledRun(tenantId, admin);
    const raised = await currentScreen(registered.client_id, admin);
    await scheduledRun(tenantId, admin);
    const carrying = await currentScreen(registered.client_id, admin);
    expect(carrying.alert.raised_by_screen_id).toBe(raised.screen_id);

    // The analyst works from the alert's first screen, superseded since.
    await local.api.post(`/screens/${raised.screen_id}/dispose`, analyst, {
      disposition: 'confirmed_hit',
      note: 'Same person',
    });

    const current = await currentScreen(registered.client_id, admin);
    expect(current.screen_id).toBe(carrying.screen_id);
    expect(current.disposition).toMatchObject({
      disposition: 'confirmed_hit',
      author: { role: 'analyst' },
      carried_by: { role: 'system' },
      carried_from: { screen_id: raised.screen_id, decision_version: 1 },
    });
    expect(current.disposition.note).toContain(`Carried forward from ${raised.screen_id}`);
    expect((await client(registered.client_id, admin)).open_alert).toBeNull();
    expect(await pendingIds(admin)).toEqual([]);
  });
});

describe('only settled decisions are carried forward', { timeout: 120_000 }, () => {
  it('a false positive awaiting approval is not carried; an admin override on the old screen reaches the current one', async () => {
    const { tenantId, admin, analyst } = await freshTenant();
    const registered = (
      await local.api.post('/clients', admin, {
        name: 'Vladimir Putin',
        dob: '1952-10-07',
        types: 'sanctions,pep',
        rescreen_interval_days: 1,
      })
    ).body;
    const first = registered.last_screen_id;
    await local.api.post(`/screens/${first}/dispose`, analyst, {
      disposition: 'false_positive',
      note: 'Different person, I believe',
      approval_requested: true,
    });

    await scheduledRun(tenantId, admin);
    const second = await currentScreen(registered.client_id, admin);
    expect(second.screen_id).not.toBe(first);
    // Not settled: the new screen stays pending, and its history says why.
    expect(second.disposition).toBeNull();
    expect(await pendingIds(admin)).toEqual([second.screen_id]);
    const history = (await historyOf(second.screen_id, admin)).history;
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ disposition: 'not_carried', author: { role: 'system' } });
    expect(history[0].note).toContain(`decision on ${first} awaits approval`);

    // The admin does not sign it off: it is a hit.
    const override = await local.api.post(`/screens/${first}/dispose`, admin, {
      disposition: 'confirmed_hit',
      note: 'Same person: the date of birth agrees',
      override: true,
    });
    expect(override.status).toBe(200);
    const current = await currentScreen(registered.client_id, admin);
    expect(current.screen_id).toBe(second.screen_id);
    expect(current.disposition).toMatchObject({
      disposition: 'confirmed_hit',
      author: { role: 'admin' },
      carried_by: { role: 'system' },
      carried_from: { screen_id: first, decision_version: 2 },
    });
    expect(await pendingIds(admin)).toEqual([]);

    await scheduledRun(tenantId, admin);
    const third = await currentScreen(registered.client_id, admin);
    expect(third.screen_id).not.toBe(second.screen_id);
    expect(third.disposition).toMatchObject({
      disposition: 'confirmed_hit',
      author: { role: 'admin' },
      carried_by: { role: 'system' },
      carried_from: { screen_id: first, decision_version: 2 },
    });
  });
});
