/**
 * The list sync end to end on one machine: `npm start`'s stack with its in-process schedule,
 * syncing from a local HTTP server over real list files, through the real stores. Each failure a
 * publisher's server can cause leaves the last good list in force and marked stale. A client
 * registered while a designee was not yet listed is rescreened, with an alert, by the sync that
 * lists them (delta rescreens); the other clients are not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getServices } from '../../lib/runtime/services.ts';
import { keys } from '../../lib/store/schema.ts';
import { queryAll } from '../../lib/store/table.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { type ApiResponse, apiClient, demoKey } from '../support/api-client.ts';
import { eventually } from '../support/eventually.ts';
import { type ListMirror, type MirrorServer, UN_FILE, unWithoutIndividuals } from '../support/list-mirror.ts';
import { type SyncingStack, startSyncingStack } from '../support/syncing-stack.ts';

let syncing: SyncingStack;
let mirror: ListMirror;
let server: MirrorServer;
let api: ReturnType<typeof apiClient>;
let key: string;
let original: string;

beforeAll(async () => {
  syncing = await startSyncingStack({ timeoutSeconds: 1 });
  ({ mirror, server } = syncing);
  original = mirror.read(UN_FILE);
  api = apiClient(syncing.stack);
  key = demoKey(syncing.stack, 'tdemoenterprise', 'analyst').api_key;
});

afterAll(async () => {
  await syncing?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: black-box tests read arbitrary JSON bodies
const unStatus = async (): Promise<any> =>
  (await api.get('/dbstatus', key)).body.lists.find((l: { id: string }) => l.id === 'un_sc');

// The UN file's first individual, a real designee: Eric Badege (CDi.001).
const BADEGE = '6907993';
const screenBadege = (): Promise<ApiResponse> =>
  api.post('/screen', key, { name: 'Eric Badege', types: 'sanctions', force: true });
const listed = (response: ApiResponse): boolean =>
  response.body.sanctions_result.matches.some((m: { entity_id: string }) => m.entity_id === BADEGE);

describe('list sync on a running server', { timeout: 120_000 }, () => {
  it('syncs on schedule and reports each list in /dbstatus', async () => {
    const status = await eventually(unStatus, (s) => s.last_successful_sync !== null);
    expect(status).toMatchObject({ individual_count: 730, source_date: '2026-02-27', sync_error: null });
    expect(status.synced_from).toEqual(['https://scsanctions.un.org/resources/xml/en/consolidated.xml']);
    expect(status.last_attempted_sync).toBe(status.last_successful_sync);
    expect(listed(await screenBadege())).toBe(true);
  });

  it('picks up a changed list without a restart', async () => {
    mirror.write(UN_FILE, unWithoutIndividuals(original, 1));
    await eventually(unStatus, (s) => s.individual_count === 729);
    expect(listed(await screenBadege())).toBe(false);

    mirror.write(UN_FILE, original);
    await eventually(unStatus, (s) => s.individual_count === 730);
    expect(listed(await screenBadege())).toBe(true);
  });

  const failures: [string, () => void, RegExp][] = [
    ['a 404', () => server.fault(UN_FILE, 404), /HTTP 404/],
    ['a timeout', () => server.fault(UN_FILE, 'hang'), /timed out after 1 s/],
    ['a connection cut mid-file', () => server.fault(UN_FILE, 'cut'), /after \d+ bytes|truncated download/],
    [
      'a truncated file',
      () => mirror.write(UN_FILE, original.slice(0, original.length / 2)),
      /malformed file: .*not well-formed XML/,
    ],
    [
      'a malformed file',
      () => mirror.write(UN_FILE, '<html><body>Service unavailable</body></html>'),
      /malformed file: .*CONSOLIDATED_LIST/,
    ],
    [
      'a file missing most of its people',
      () => mirror.write(UN_FILE, unWithoutIndividuals(original, 300)),
      /^held for review: individuals fell to 430 from the baseline of 730/,
    ],
  ];

  it.each(failures)('keeps the last good list, marked stale, after %s', async (_name, breakIt, error) => {
    breakIt();
    try {
      const status = await eventually(unStatus, (s) => error.test(s.sync_error ?? ''));
      expect(status.individual_count).toBe(730);
      expect(status.stale).toBe(true);
      expect(status.stale_reasons[0]).toMatch(/^last sync failed: /);
      expect(status.last_successful_sync < status.last_attempted_sync).toBe(true);
      expect(listed(await screenBadege())).toBe(true);
      // The other list is unaffected.
      const body = (await api.get('/dbstatus', key)).body;
      expect(body.lists.find((l: { id: string }) => l.id === 'us_executive_pep').sync_error).toBeNull();
    } finally {
      server.clear();
      mirror.write(UN_FILE, original);
    }
    await eventually(unStatus, (s) => s.sync_error === null);
  });
});

// biome-ignore lint/suspicious/noExplicitAny: black-box tests read arbitrary JSON bodies
type Body = any;
const matchIds = (screen: Body): string[] =>
  (screen.sanctions_result?.matches ?? []).map((m: { entity_id: string }) => m.entity_id);

describe('delta rescreens after a list sync', { timeout: 150_000 }, () => {
  let key: string;
  let tenantId: string;
  let designee: Body;
  let others: Body[];

  /** The tenant's rescreen runs (ids sort by time), as the table holds them. */
  const runIds = async (): Promise<string[]> =>
    (
      await queryAll(getServices().table, {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :runs)',
        FilterExpression: 'entity = :batch',
        ExpressionAttributeValues: {
          ':pk': keys.tenantPartition(tenantId),
          ':runs': 'BATCH#RUN-',
          ':batch': 'batch',
        },
      })
    )
      .map((item) => String(item.batch_id))
      .sort();
  const finishedRun = (runId: string) =>
    eventually(
      async () => (await api.get(`/clients/rescreen/runs/${runId}`, key)).body,
      (body) => body.status === 'finished',
    );
  /** The designee's newest screen once it differs from `previous`. */
  const rescreenAfter = async (previous: string) => {
    const client = await eventually(
      async () => (await api.get(`/clients/${designee.client_id}`, key)).body,
      (body) => body.last_screen_id !== previous,
    );
    return (await api.get(`/screens/${client.last_screen_id}`, key)).body;
  };
  const nobodyElse = async () => {
    for (const other of others) {
      const body = (await api.get(`/clients/${other.client_id}`, key)).body;
      expect(body.screens.map((s: { screen_id: string }) => s.screen_id)).toEqual([other.last_screen_id]);
    }
  };

  it('rescreens at once, with an alert, the client a new designation matches, and no other client', async () => {
    const created = await createTenant(getServices().table, { name: 'Delta sync', plan: 'enterprise' });
    key = created.admin.api_key;
    tenantId = created.tenant.tenant_id;
    // The publisher's file as it was before Eric Badege was designated.
    mirror.write(UN_FILE, unWithoutIndividuals(original, 1));
    await eventually(unStatus, (s) => s.individual_count === 729);
    // The running server screens against the synced list, which does not list him yet.
    await eventually(screenBadege, (response) => !listed(response));

    const register = async (body: Record<string, unknown>) => {
      const response = await api.post('/clients', key, { types: 'sanctions,pep', ...body });
      expect(response.status).toBe(201);
      return response.body;
    };
    // A client of his name, stopped before the designee's client is registered: the same name
    // without a date of birth is the same person while it is monitored (docs/monitoring.md).
    const stopped = await register({ name: 'Eric Badege', dob: '1971-01-01', reference: 'delta-3' });
    expect((await api.delete(`/clients/${stopped.client_id}`, key)).status).toBe(200);
    designee = await register({ name: 'Eric Badege', reference: 'delta-1' });
    expect(matchIds((await api.get(`/screens/${designee.last_screen_id}`, key)).body)).not.toContain(BADEGE);
    const unrelated = await register({ name: 'Eric Holder', reference: 'delta-2' });
    others = [unrelated, stopped];

    // The publisher lists him: the next scheduled sync picks the file up. Its run is queued before
    // the server has loaded the new lists: the worker must load them first (matcherAsOf).
    mirror.write(UN_FILE, original);
    const rescreen = await rescreenAfter(designee.last_screen_id);
    expect(rescreen.origin).toBe('rescreen');
    expect(matchIds(rescreen)).toContain(BADEGE);
    expect(rescreen.alert.matches_added.map((m: { entity_id: string }) => m.entity_id)).toContain(BADEGE);
    expect(rescreen.disposition).toBeNull();
    designee = { ...designee, last_screen_id: rescreen.screen_id };

    // The run that did it: started by the list change, this one client queued, its change listed.
    const runs = await runIds();
    expect(runs).toHaveLength(1);
    const run = await finishedRun(runs[0]);
    expect(run).toMatchObject({ trigger: 'list_change', queued: 1 });
    expect(run.changed.map((c: { client_id: string }) => c.client_id)).toEqual([designee.client_id]);
    // Nobody else was rescreened: one screen each, as registered.
    await nobodyElse();
  });

  it('re-opens a false positive, with the reason, when the matched listing gains a nationality; carries it across a programme rewording', async () => {
    // The analyst decides the alert: not the designee.
    const alerted = designee.last_screen_id;
    const decided = await api.post(`/screens/${alerted}/dispose`, key, {
      disposition: 'false_positive',
      note: 'Different person: passport seen',
    });
    expect(decided.status).toBe(200);
    // The publisher amends his entry: a second nationality (his entry is the file's first
    // NATIONALITY block).
    const amended = original.replace(
      '<VALUE>Democratic Republic of the Congo</VALUE>\n      </NATIONALITY>',
      '<VALUE>Democratic Republic of the Congo</VALUE>\n        <VALUE>Rwanda</VALUE>\n      </NATIONALITY>',
    );
    expect(amended).not.toBe(original);
    // Run ids sort by day, not within one: the run a change started is the one not seen before.
    const seen = await runIds();
    const newRun = async () => {
      const fresh = (await runIds()).filter((id) => !seen.includes(id));
      expect(fresh).toHaveLength(1);
      seen.push(fresh[0]);
      return finishedRun(fresh[0]);
    };
    try {
      mirror.write(UN_FILE, amended);
      const reopened = await rescreenAfter(designee.last_screen_id);
      expect(reopened.disposition).toBeNull();
      expect(reopened.alert.matches_added).toEqual([]);
      expect(reopened.alert.matches_changed.map((m: { entity_id: string }) => m.entity_id)).toEqual([BADEGE]);
      expect(reopened.alert.baseline_screen_id).toBe(alerted);
      expect(reopened.alert.reasons.join('\n')).toMatch(/un_sc 6907993 .*gained nationality Rwanda/);
      const history = (await api.get(`/screens/${reopened.screen_id}/history`, key)).body.history;
      expect(history[0].disposition).toBe('not_carried');
      expect(history[0].note).toMatch(/false_positive decided on .*gained nationality Rwanda/);
      const run = await newRun();
      expect(run).toMatchObject({ trigger: 'list_change', queued: 1 });
      expect(run.changed).toMatchObject([{ client_id: designee.client_id, alert: 'raised' }]);
      await nobodyElse();
      designee = { ...designee, last_screen_id: reopened.screen_id };

      // Decided again; then the publisher rewords his programme only.
      await api.post(`/screens/${reopened.screen_id}/dispose`, key, {
        disposition: 'false_positive',
        note: 'Still a different person: nationality differs from the passport',
      });
      mirror.write(
        UN_FILE,
        amended.replace(
          '<UN_LIST_TYPE>DRC</UN_LIST_TYPE>',
          '<UN_LIST_TYPE>DRC (resolution 2078)</UN_LIST_TYPE>',
        ),
      );
      const carried = await rescreenAfter(designee.last_screen_id);
      expect(carried.alert).toBeNull();
      expect(carried.disposition).toMatchObject({
        disposition: 'false_positive',
        carried_by: { role: 'system' },
        carried_from: { screen_id: designee.last_screen_id },
      });
      expect(carried.disposition.note).toMatch(/do not bear on it: .*programmes reworded/);
      expect(await newRun()).toMatchObject({ trigger: 'list_change', queued: 1, changed: [] });
    } finally {
      mirror.write(UN_FILE, original);
    }
  });
});
