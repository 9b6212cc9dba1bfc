/**
 * `npm run bench:delta`: what a list change costs to find the clients it could match.
 *
 * BENCH_CLIENTS (default 20,000) monitored clients in two tenants, filed under their name keys as
 * registration files them, carry real listed names (every list but the UN's, cycled: the same
 * spread of common and rare names as the lists hold, and some people listed by the UN too). A
 * change of BENCH_CHANGED (default 10) UN designees is then looked up, as a sync would after
 * adding them: keys looked up, name-key items read, candidate clients read, clients matching,
 * time. Then the clients are doubled and the same change is looked up again: the cost follows the
 * clients who share names with the change, not the clients registered.
 *
 * DynamoDB Local in memory; the clients are made due, no run is queued (`npm run bench:rescreen` times
 * runs).
 */

process.env.LOG_LEVEL ??= 'warn';
const { ensureTable, startDynamoDbLocal } = await import('../infra/local/dynamo.ts');
const { logger } = await import('../lib/common/log.ts');
const { loadSnapshot } = await import('../lib/matcher/snapshot-file.ts');
const { bundledSnapshotVersion } = await import('../lib/matcher/screen.ts');
const { clientNameKeys } = await import('../lib/monitoring/client-name-keys.ts');
const { newClientId } = await import('../lib/monitoring/client-record.ts');
const { monitoredClientItem, putItems } = await import('../test/support/monitored-client.ts');
const { rescreenChangedClients } = await import('../lib/monitoring/delta-rescreen.ts');
const { createTable } = await import('../lib/store/table.ts');
const { keys } = await import('../lib/store/schema.ts');
const { createTenant } = await import('../lib/tenancy/tenants.ts');
const { perListPeople } = await import('../lib/watchlists/linking.ts');

const clientsWanted = Number(process.env.BENCH_CLIENTS ?? 20_000);
const changedWanted = Number(process.env.BENCH_CHANGED ?? 10);

const snapshot = loadSnapshot();
const people = perListPeople(snapshot);
const changed = people.filter((p) => p.list_id === 'un_sc').slice(0, changedWanted);
const names = people.filter((p) => p.list_id !== 'un_sc').map((p) => p.names[0].name);

const dynamo = await startDynamoDbLocal();
await ensureTable(dynamo.endpoint, 'bench-delta');
const table = createTable({ tableName: 'bench-delta', endpoint: dynamo.endpoint });
const tenants = [
  (await createTenant(table, { name: 'Bench delta A', plan: 'enterprise' })).tenant.tenant_id,
  (await createTenant(table, { name: 'Bench delta B', plan: 'enterprise' })).tenant.tenant_id,
];

let filed = 0;
let keyItems = 0;
/** Writes `count` more clients (profile and name keys) straight into the table, 25 per call. */
async function fileClients(count: number) {
  const dueAt = '2099-01-01T00:00:00Z';
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++, filed++) {
    const tenantId = tenants[filed % 2];
    const clientId = newClientId(new Date(Date.now() + filed));
    const subject = { name: names[filed % names.length] };
    items.push(monitoredClientItem(tenantId, clientId, subject, dueAt));
    for (const nameKey of clientNameKeys(subject)) {
      items.push({
        ...keys.clientNameKey(nameKey, tenantId, clientId),
        entity: 'client-name-key',
        tenant_id: tenantId,
        client_id: clientId,
      });
      keyItems++;
    }
  }
  await putItems(table, items);
}

const rows = [];
for (const count of [clientsWanted, clientsWanted]) {
  await fileClients(count);
  const now = new Date();
  const started = performance.now();
  const report = await rescreenChangedClients(
    { table },
    {
      people: changed,
      lists: snapshot.lists,
      syncedAt: now.toISOString(),
      snapshotVersion: bundledSnapshotVersion(snapshot),
      now,
    },
    logger,
  );
  rows.push({
    clients: filed,
    name_key_items: keyItems,
    changed_people: report.people,
    keys_looked_up: report.keys_looked_up,
    key_items_read: report.key_items_read,
    candidates: report.candidates,
    matching: report.matching,
    ms: Math.round(performance.now() - started),
  });
}
console.table(rows);
await dynamo.close();
