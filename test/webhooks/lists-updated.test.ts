/**
 * Issue 23, `lists.updated` end to end: `npm start`'s stack syncing every second from a local
 * mirror of two real lists; when the mirror's UN list changes, the published snapshot reaches a
 * subscribed endpoint on 127.0.0.1 as one signed `lists.updated` event naming the list, its
 * change and the snapshot version /dbstatus reports.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { apiClient, demoKey } from '../support/api-client.ts';
import { eventually } from '../support/eventually.ts';
import { UN_FILE, unWithoutIndividuals } from '../support/list-mirror.ts';
import { type SyncingStack, startSyncingStack } from '../support/syncing-stack.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

const receiver = await startReceiver();
let syncing: SyncingStack;

beforeAll(async () => {
  syncing = await startSyncingStack({ timeoutSeconds: 5 });
}, 60_000);

afterAll(async () => {
  await syncing?.close();
  await receiver.close();
});

it('delivers one signed lists.updated naming the changed list and the version', {
  timeout: 90_000,
}, async () => {
  const { stack, mirror } = syncing;
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
