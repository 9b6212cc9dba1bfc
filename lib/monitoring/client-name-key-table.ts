import * as v from 'valibot';
import { keys } from '../store/schema.ts';
import { parseItem, queryAll, type Table, type WriteRequest, writeAll } from '../store/table.ts';

/**
 * The name-key items (entity `client-name-key`, pk NAMEKEY#<key>): a client filed under one sound
 * key of its name (client-name-keys.ts derives the keys), so a list sync finds the clients a
 * change could match by reading the keys' partitions only. An item holds no personal data, only
 * which client of which tenant.
 */

export const ClientNameKeyItemSchema = v.object({
  pk: v.string(),
  sk: v.string(),
  entity: v.literal('client-name-key'),
  tenant_id: v.string(),
  client_id: v.string(),
});

export type ClientNameKeyItem = v.InferOutput<typeof ClientNameKeyItemSchema>;

/** What a lookup reads of each item: which client of which tenant. */
const FiledClientSchema = v.pick(ClientNameKeyItemSchema, ['tenant_id', 'client_id']);

export type FiledClient = v.InferOutput<typeof FiledClientSchema>;

interface NamedClient {
  tenantId: string;
  clientId: string;
}

function nameKeyItems(client: NamedClient, nameKeys: readonly string[]): ClientNameKeyItem[] {
  return nameKeys.map((nameKey) => ({
    ...keys.clientNameKey(nameKey, client.tenantId, client.clientId),
    entity: 'client-name-key' as const,
    tenant_id: client.tenantId,
    client_id: client.clientId,
  }));
}

/**
 * Files the client under each of `nameKeys` (`file`, idempotent puts) or takes it off them
 * (`remove`), in BatchWriteItem calls.
 */
export async function writeClientNameKeys(
  table: Table,
  client: NamedClient,
  nameKeys: readonly string[],
  action: 'file' | 'remove',
): Promise<void> {
  await writeAll(
    table,
    nameKeyItems(client, nameKeys).map(
      (Item): WriteRequest =>
        action === 'file'
          ? { PutRequest: { Item } }
          : { DeleteRequest: { Key: { pk: Item.pk, sk: Item.sk } } },
    ),
    { what: 'client name keys' },
  );
}

/** The clients filed under one name key, every one of them (the key's whole partition). */
export async function clientsFiledUnder(table: Table, nameKey: string): Promise<FiledClient[]> {
  const items = await queryAll(table, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.nameKeyPartition(nameKey) },
    ProjectionExpression: 'tenant_id, client_id',
  });
  return items.map((item) => parseItem(FiledClientSchema, item));
}
