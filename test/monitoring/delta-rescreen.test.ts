/**
 * Delta rescreens at the store: which clients a list change reaches, and what it costs. The
 * clients are filed under their name keys as registration files them; the changed person is a
 * real UN designee; the other clients carry real names (other UN designees).
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAuditEntries } from '../../lib/audit/trail.ts';
import { logger } from '../../lib/common/log.ts';
import { bundledSnapshotVersion } from '../../lib/matcher/screen.ts';
import {
  clientNameKeys,
  fileAllClientNameKeys,
  listedNameKeys,
  updateClientNameKeys,
} from '../../lib/monitoring/client-name-keys.ts';
import { newClientId } from '../../lib/monitoring/client-record.ts';
import { stopClient } from '../../lib/monitoring/clients-read.ts';
import { rescreenChangedClients } from '../../lib/monitoring/delta-rescreen.ts';
import { keys } from '../../lib/store/schema.ts';
import type { Table } from '../../lib/store/table.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import type { ListedPerson } from '../../lib/watchlists/types.ts';
import { chainAudit } from '../support/audit-chain.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';
import { snapshotOfLists } from '../support/list-mirror.ts';
import { monitoredClientItem } from '../support/monitored-client.ts';

const snapshot = snapshotOfLists(['un_sc']);
const personOf = (entityId: string): ListedPerson => {
  const person = snapshot.people.find((p) => p.entity_id === entityId);
  if (!person) throw new Error(`no listed person ${entityId}`);
  return person;
};
// No queue here, so no run starts: the version a run would name is the snapshot's own.
const snapshotVersion = bundledSnapshotVersion(snapshot);
// A real UN designee: Eric Badege (CDi.001).
const badege = personOf('6907993');
const otherNames = snapshot.people.filter((p) => p !== badege).map((p) => p.names[0].name);

let db: TestStore;
let table: Table;
beforeAll(async () => {
  db = await startTestStore();
  table = db.table;
});
afterAll(async () => db.close());

const NEXT_QUARTER = '2099-01-01T00:00:00Z';

/** A monitored client as registration leaves it (client item and name keys), due next quarter. */
async function fileClient(tenantId: string, name: string, filed = true): Promise<string> {
  const clientId = newClientId(new Date());
  const client = monitoredClientItem(tenantId, clientId, { name }, NEXT_QUARTER);
  if (filed) await updateClientNameKeys(table, { tenantId, clientId, subject: client.subject }, 'file');
  await table.doc.send(new PutCommand({ TableName: table.name, Item: client }));
  return clientId;
}

const dueOf = async (tenantId: string, clientId: string) =>
  (
    await table.doc.send(
      new GetCommand({ TableName: table.name, Key: keys.client(tenantId, clientId), ConsistentRead: true }),
    )
  ).Item?.next_due_at;

describe('client name keys', () => {
  it('file a client so that the listed spellings of the same person find it', () => {
    const shared = (client: string, listed: string) =>
      clientNameKeys({ name: client }).filter((key) =>
        listedNameKeys([{ names: [{ name: listed, strength: 'primary' }] }]).includes(key),
      );
    expect(shared('Vladimir Putin', 'PUTIN, Vladimir Vladimirovich')).not.toEqual([]);
    expect(shared('Bill Clinton', 'William Jefferson Clinton')).not.toEqual([]);
    expect(shared('Muhammad Hassan', 'Mohammed HASAN')).not.toEqual([]);
    // A one-part client name is found by a longer listed name containing it.
    expect(shared('Madonna', 'Madonna Louise Ciccone')).not.toEqual([]);
    // One shared common part is not enough to be read: pairs, not parts.
    expect(shared('Eric Smith', 'Eric Badege')).toEqual([]);
    expect(shared('John Doe', 'John Smith')).toEqual([]);
  });

  it('file an alias too, and no key for particles or initials', () => {
    const filed = clientNameKeys({ name: 'J. van Dijk', alias: 'Jan van Dijk' });
    expect(filed.some((key) => key.includes('+'))).toBe(true);
    expect(clientNameKeys({ name: 'J. van Dijk' })).toEqual(clientNameKeys({ name: 'Dijk' }));
  });
});

describe('rescreenChangedClients', () => {
  it('records the sync in the audit trail of each tenant it affected, and of no other', async () => {
    const affected = (await createTenant(table, { name: 'Delta Audited', plan: 'enterprise' })).tenant
      .tenant_id;
    const untouched = (await createTenant(table, { name: 'Delta Untouched', plan: 'enterprise' })).tenant
      .tenant_id;
    // A designee no other test files a client under, so their counts stay their own.
    const designee = snapshot.people[snapshot.people.length - 1];
    await fileClient(affected, designee.names[0].name);
    await fileClient(untouched, 'Hjordis Quillonby');
    const now = new Date();

    await rescreenChangedClients(
      { table },
      { people: [designee], lists: snapshot.lists, syncedAt: now.toISOString(), snapshotVersion, now },
      logger,
    );

    await chainAudit(table, affected);
    await chainAudit(table, untouched);
    const { entries } = await readAuditEntries(table, affected);
    const synced = entries.filter((e) => e.action === 'lists.synced');
    expect(synced.map((e) => [e.outcome, e.actor])).toEqual([
      ['started', { user_id: 'system', role: 'system' }],
      ['done', { user_id: 'system', role: 'system' }],
    ]);
    expect(synced[0].details).toEqual({
      snapshot_version: snapshotVersion,
      listed_people_changed: 1,
      clients_matching: 1,
    });
    expect(synced[1].details).toEqual({ made_due: 1, queued: 0, skipped_quota: 0 });
    expect(
      (await readAuditEntries(table, untouched)).entries.filter((e) => e.action === 'lists.synced'),
    ).toEqual([]);
  });

  it('makes due only the clients the changed person could match, in every tenant, reading only their keys', async () => {
    const a = (await createTenant(table, { name: 'Delta A', plan: 'enterprise' })).tenant.tenant_id;
    const b = (await createTenant(table, { name: 'Delta B', plan: 'enterprise' })).tenant.tenant_id;
    for (const name of otherNames.slice(0, 40)) await fileClient(a, name);
    const inA = await fileClient(a, 'Eric Badege');
    const inB = await fileClient(b, 'Eric BADEGE');
    const sameFirstName = await fileClient(a, 'Eric Holder');

    const now = new Date();
    const change = {
      people: [badege],
      lists: snapshot.lists,
      syncedAt: now.toISOString(),
      snapshotVersion,
      now,
    };
    const first = await rescreenChangedClients({ table }, change, logger);
    expect(first).toMatchObject({ people: 1, candidates: 2, matching: 2, made_due: 2, runs: [] });
    // The items read are the two clients filed under the designee's name keys.
    expect(first.key_items_read).toBe(2);
    const nowSeconds = `${now.toISOString().slice(0, 19)}Z`;
    expect(await dueOf(a, inA)).toBe(nowSeconds);
    expect(await dueOf(b, inB)).toBe(nowSeconds);
    expect(await dueOf(a, sameFirstName)).toBe(NEXT_QUARTER);

    // Ten times the clients: the cost of the same change does not move.
    for (const name of otherNames.slice(40, 440)) await fileClient(a, name);
    const second = await rescreenChangedClients({ table }, change, logger);
    expect(second.key_items_read).toBe(first.key_items_read);
    expect(second.keys_looked_up).toBe(first.keys_looked_up);

    // A client whose monitoring stopped leaves its name keys: no list change reads it again.
    await stopClient(table, { tenantId: b, userId: 'u1', role: 'admin' }, inB);
    const third = await rescreenChangedClients({ table }, change, logger);
    expect(third).toMatchObject({ key_items_read: 1, candidates: 1 });
  }, 120_000);

  it('leaves alone a client filed under the same keys whom the changed person does not match', async () => {
    const t = (await createTenant(table, { name: 'Delta C', plan: 'enterprise' })).tenant.tenant_id;
    // "Eric Bodega" sounds alike part by part (it is filed under the designee's key), yet the
    // matcher does not report it: it is read, not rescreened (a rescreen charges the tenant).
    expect(clientNameKeys({ name: 'Eric Bodega' })).toEqual(clientNameKeys({ name: 'Eric Badege' }));
    const near = await fileClient(t, 'Eric Bodega');
    const now = new Date();
    const report = await rescreenChangedClients(
      { table },
      { people: [badege], lists: snapshot.lists, syncedAt: now.toISOString(), snapshotVersion, now },
      logger,
    );
    expect(report.candidates).toBe(report.matching + 1);
    expect(await dueOf(t, near)).toBe(NEXT_QUARTER);
  });

  it('finds a client registered before name keys existed once the table is upgraded', async () => {
    const t = (await createTenant(table, { name: 'Delta D', plan: 'enterprise' })).tenant.tenant_id;
    const legacy = await fileClient(t, 'Eric Badege', false);
    const now = new Date();
    const change = {
      people: [badege],
      lists: snapshot.lists,
      syncedAt: now.toISOString(),
      snapshotVersion,
      now,
    };
    await rescreenChangedClients({ table }, change, logger);
    expect(await dueOf(t, legacy)).toBe(NEXT_QUARTER);

    const upgraded = await fileAllClientNameKeys(table);
    expect(upgraded.clients).toBeGreaterThan(400);
    await rescreenChangedClients({ table }, change, logger);
    expect(await dueOf(t, legacy)).toBe(`${now.toISOString().slice(0, 19)}Z`);
  }, 60_000);
});
