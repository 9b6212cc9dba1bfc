/**
 * Issue 23, `lists.updated` end to end: `npm start`'s stack syncing every second from a local
 * mirror of two real lists; when the mirror's UN list changes, the published snapshot reaches a
 * subscribed endpoint on 127.0.0.1 as one signed `lists.updated` event naming the list, its
 * change and the snapshot version /dbstatus reports.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../infra/local/stack.ts';
import { writeSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { apiClient, demoKey } from '../support/api-client.ts';
import { eventually } from '../support/eventually.ts';
import {
  createListMirror,
  EXECUTIVE_FILE,
  type ListMirror,
  type MirrorServer,
  serveMirror,
  snapshotOfLists,
  UN_FILE,
  unWithoutIndividuals,
} from '../support/list-mirror.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

const LISTS = ['un_sc', 'us_executive_pep'];
const work = mkdtempSync(join(tmpdir(), 'lists-updated-'));
const ENV = {
  WATCHLIST_SNAPSHOT: join(work, 'bundled.json'),
  WATCHLIST_STORE_DIR: join(work, 'store'),
  WATCHLIST_CHECK_SECONDS: '0',
  LIST_SYNC_INTERVAL_SECONDS: '1',
  LIST_SYNC_LISTS: LISTS.join(','),
  LIST_SYNC_TIMEOUT_SECONDS: '5',
};
const receiver = await startReceiver();
let mirror: ListMirror;
let server: MirrorServer;
let stack: LocalStack;

beforeAll(async () => {
  writeSnapshot(snapshotOfLists(LISTS), ENV.WATCHLIST_SNAPSHOT);
  mirror = createListMirror([UN_FILE, EXECUTIVE_FILE]);
  server = await serveMirror(mirror);
  Object.assign(process.env, ENV, { LIST_SYNC_FROM: server.url });
  stack = await startLocalStack({ dataDir: null });
}, 60_000);

afterAll(async () => {
  await stack?.close();
  await server?.close();
  await receiver.close();
  mirror?.close();
  for (const name of [...Object.keys(ENV), 'LIST_SYNC_FROM']) delete process.env[name];
  rmSync(work, { recursive: true, force: true });
});

it('delivers one signed lists.updated naming the changed list and the version', {
  timeout: 90_000,
}, async () => {
  const api = apiClient(stack);
  const admin = demoKey(stack, 'tdemoenterprise', 'admin').api_key;
  const created = await api.post('/webhooks', admin, {
    url: receiver.url('/lists'),
    events: ['lists.updated'],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  // The first sync publishes the mirror's snapshot in place of the bundled one; wait for it.
  await eventually(
    async () => (await api.get('/dbstatus', admin)).body.lists,
    (lists: { last_successful_sync?: string | null }[]) => lists.every((list) => list.last_successful_sync),
  );
  await sleep(2_500);
  const before = receiver.on('/lists').length;

  mirror.write(UN_FILE, unWithoutIndividuals(mirror.read(UN_FILE), 1));
  const got = await eventually(
    async () => receiver.on('/lists').slice(before),
    (list) => list.length > 0,
    60_000,
  );
  expect(got).toHaveLength(1);
  // biome-ignore lint/suspicious/noExplicitAny: the verified payload is arbitrary JSON
  const event = new Webhook(created.body.secret).verify(got[0].body, got[0].headers) as any;
  // The version a screen now reports is the one the event named.
  const screen = (await api.post('/screen', admin, { name: 'Eric Badege', types: 'sanctions', force: true }))
    .body;
  expect(event).toMatchObject({ type: 'lists.updated', tenant_id: 'tdemoenterprise' });
  expect(event.data.lists).toContainEqual(
    expect.objectContaining({ list_id: 'un_sc', removed: 1, added: 0, individuals: 729 }),
  );
  expect(JSON.stringify(screen)).toContain(event.data.snapshot_version);
  // More syncs of the same mirror: no second event.
  await sleep(3_000);
  expect(receiver.on('/lists')).toHaveLength(before + 1);
});
