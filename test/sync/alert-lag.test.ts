/**
 * Designation to alert, end to end on the running stack: a sync that lists a real designee
 * raises exactly one alert per client who bears his name, visible in the pending queue, charges
 * exactly those screens, and re-screens nobody else (`npm run bench:alert-lag` times the same
 * flow at 20,000 clients).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/stack.ts';
import { writeSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import {
  awaitAlerts,
  DESIGNEE,
  designationMirror,
  registerMatching,
  type ServiceClient,
  screensUsed,
  seedBystanders,
  serviceClient,
} from '../support/alert-lag.ts';
import { eventually } from '../support/eventually.ts';
import { snapshotOfLists } from '../support/list-mirror.ts';
import { type SyncEnvironment, setSyncEnvironment } from '../support/syncing-stack.ts';

const MATCHING = 3;
const BYSTANDERS = 300;
// The UN list and the US Congress (the bystanders' names): the whole set takes half a minute to build.
const bundled = snapshotOfLists(['un_sc', 'us_congress_pep']);

let stack: LocalStack;
let environment: SyncEnvironment;
beforeAll(async () => {
  environment = setSyncEnvironment({ lists: ['un_sc'], intervalSeconds: 1 });
  writeSnapshot(bundled, environment.bundledSnapshot);
  stack = await startLocalStack({ dataDir: null });
});
afterAll(async () => {
  await stack?.close();
  environment?.restore();
});

it('raises exactly one alert per matching client, and charges nobody else', {
  timeout: 120_000,
}, async () => {
  const mirror = designationMirror(environment.mirrorDir);
  const { table } = getServices();
  const { tenant, admin } = await createTenant(table, { name: 'Alert lag', plan: 'enterprise' });
  const api: ServiceClient = serviceClient(stack.url, admin.api_key);
  const isListed = async () =>
    (
      await api.post('/screen', { name: DESIGNEE.name, types: 'sanctions', force: true })
    ).body.sanctions_result.matches.some((m: { entity_id: string }) => m.entity_id === DESIGNEE.entity_id);
  // The first sync publishes the list without him; the server screens against it.
  await eventually(isListed, (listed) => !listed, 60_000);

  const matching = await registerMatching(api, MATCHING);
  await seedBystanders(table, tenant.tenant_id, bundled, BYSTANDERS);
  const usedBefore = await screensUsed(api);
  const screensBefore = (await api.get('/screens?limit=200')).body.screens.length;

  mirror.list();
  const seen = await awaitAlerts(api, matching, Date.now(), 90_000);
  expect(seen.clients.map((client) => [client.state, client.detail])).toEqual(
    matching.map(() => ['pending', 'in the pending queue']),
  );

  for (const screenId of seen.screens.values()) {
    const screen = (await api.get(`/screens/${screenId}`)).body;
    expect(screen.origin).toBe('rescreen');
    expect(screen.disposition).toBeNull();
    expect(screen.alert.matches_added.map((m: { entity_id: string }) => m.entity_id)).toContain(
      DESIGNEE.entity_id,
    );
  }
  // Exactly K screens charged and stored: the bystanders were neither re-screened nor charged.
  expect((await screensUsed(api)) - usedBefore).toBe(MATCHING);
  expect((await api.get('/screens?limit=200')).body.screens.length - screensBefore).toBe(MATCHING);
});
