import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { AttributeValue, CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * The single table: every item of every tenant, keyed so that the tenant comes first in every
 * partition key. Tenant scoping is structural: no access pattern can reach another tenant's
 * items without naming that tenant's partition.
 *
 * Key shapes (pk / sk):
 * | item              | pk                 | sk                          | gsi1pk / gsi1sk                     |
 * |-------------------|--------------------|-----------------------------|-------------------------------------|
 * | tenant            | TENANT#<tid>       | TENANT                      | TENANTS / <tid>                     |
 * | user              | TENANT#<tid>       | USER#<uid>                  |                                     |
 * | monthly usage     | TENANT#<tid>       | USAGE#<YYYY-MM>             | (+ day counters seq_<YYYYMMDD>)     |
 * | screen            | TENANT#<tid>       | SCREEN#<screen_id>          | TENANT#<tid>#PENDING / <screen_id>  |
 * |                   |                    |                             |   (only while no disposition)       |
 * |                   |                    |                             | gsi2: TENANT#<tid>#SUBJECT#<hash>   |
 * |                   |                    |                             |   / <screen_id> (rescreen window)   |
 * | batch             | TENANT#<tid>       | BATCH#<batch_id>            |                                     |
 * | batch item        | TENANT#<tid>       | BATCH#<batch_id>#ITEM#<idx> | gsi2: TENANT#<tid>#BATCH#<batch_id> |
 * |                   |                    |                             |   / <finish sequence, 6+ digits>    |
 * |                   |                    |                             |   (only once done or failed)        |
 *
 * Access patterns:
 * - authenticate a key: GetItem user (the key names its tenant and user; the hash is compared)
 * - rotate a key: UpdateItem user, condition key_hash = the presented key's hash
 * - charge the quota: UpdateItem usage, ADD with condition used + n <= limit
 * - charge and number a screen: ONE UpdateItem on the monthly usage item,
 *   ADD used 1, seq_<YYYYMMDD> 1 with the quota condition (a refused screen consumes no id);
 *   without charging (batch subjects, pre-charged) ADD seq_<YYYYMMDD> 1 only
 * - list screens newest first: Query pk = TENANT#<tid>, begins_with(sk, SCREEN#), descending
 * - list pending screens: Query gsi1 (sparse: the key leaves the item with its first disposition)
 * - dispose: UpdateItem screen, condition on the current disposition (one write per rule):
 *   record = attribute_not_exists(disposition); override = attribute_exists(pk);
 *   approve = disposition exists, no approval yet, disposition.author.user_id <> the admin.
 *   The same write appends to `history` (list_append) and REMOVEs gsi1pk/gsi1sk.
 * - delete a screen: DeleteItem screen, analysts with condition created_by.user_id = caller
 *   (history, notes and its rescreen-window index entry go with the item)
 * - read one screen / its history: GetItem screen (consistent)
 * - rescreen window: Query gsi2 pk = TENANT#<tid>#SUBJECT#<subject hash>, descending, Limit 1
 *   (the subject's latest screen, whole item); outside the window when screened_at +
 *   RESCREEN_WINDOW_HOURS has passed. No separate cache item: nothing to keep in step on
 *   force or delete. On AWS the index is eventually consistent (a repeat within the same
 *   second may screen afresh, which is the safe side).
 * - list cursors: base64url of {list, tenant, last screen id}; the start key is rebuilt from the
 *   caller's tenant, so a cursor can never address another tenant's partition
 * - list tenants (ops): Query gsi1 pk = TENANTS
 * - start a batch: PutItem batch, condition attribute_not_exists (total, types, author; `finished`
 *   counter starts at 0); quota for every subject charged before it with one conditional ADD
 * - claim a batch subject (worker, idempotent redelivery): UpdateItem batch item, condition
 *   not yet claimed, or claimed with an expired lease and still processing
 * - number a finished subject: UpdateItem batch, ADD finished 1 (returns the finish sequence)
 * - finish / fail a batch subject: UpdateItem batch item, condition still processing under this
 *   claim (done) or not done (failed); sets the sparse gsi2 keys
 * - stream progress: Query gsi2 pk = TENANT#<tid>#BATCH#<batch_id>, gsi2sk > last contiguous
 *   sequence read (only the newly finished subjects are read on each poll)
 *
 * No transactions (dynalite does not support them): every invariant is one conditional write.
 */
export const TABLE_KEYS = {
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: {
    gsi1: { partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    gsi2: { partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  },
  /** Epoch seconds; DynamoDB TTL deletes expired items eventually, reads filter them at once. */
  ttlAttribute: 'expires_at',
} as const;

export const keys = {
  tenant: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'TENANT' }),
  user: (tenantId: string, userId: string) => ({ pk: `TENANT#${tenantId}`, sk: `USER#${userId}` }),
  usage: (tenantId: string, month: string) => ({ pk: `TENANT#${tenantId}`, sk: `USAGE#${month}` }),
  screen: (tenantId: string, screenId: string) => ({ pk: `TENANT#${tenantId}`, sk: `SCREEN#${screenId}` }),
  batch: (tenantId: string, batchId: string) => ({ pk: `TENANT#${tenantId}`, sk: `BATCH#${batchId}` }),
  batchItem: (tenantId: string, batchId: string, index: number) => ({
    pk: `TENANT#${tenantId}`,
    sk: `BATCH#${batchId}#ITEM#${String(index).padStart(4, '0')}`,
  }),
  /** gsi2 partition of a batch's finished subjects, sorted by finish sequence. */
  batchProgressIndex: (tenantId: string, batchId: string) => `TENANT#${tenantId}#BATCH#${batchId}`,
  tenantPartition: (tenantId: string) => `TENANT#${tenantId}`,
  pendingIndex: (tenantId: string) => `TENANT#${tenantId}#PENDING`,
  /** gsi2 partition of a subject's screens (rescreen window), sorted by screen id. */
  subjectIndex: (tenantId: string, subjectHash: string) => `TENANT#${tenantId}#SUBJECT#${subjectHash}`,
  tenantsIndex: 'TENANTS',
} as const;

/** The table definition the local runtime and tests create; infra/stack.ts declares the same keys. */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey, indexes } = TABLE_KEYS;
  const attr = (name: string) => ({ AttributeName: name, AttributeType: 'S' as const });
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      attr(partitionKey),
      attr(sortKey),
      ...Object.values(indexes).flatMap((i) => [attr(i.partitionKey), attr(i.sortKey)]),
    ],
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: Object.entries(indexes).map(([name, i]) => ({
      IndexName: name,
      KeySchema: [
        { AttributeName: i.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: i.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'ALL' as const },
    })),
  };
}

export interface TableConfig {
  tableName: string;
  /** Set for dynalite / DynamoDB Local; unset on AWS. */
  endpoint?: string;
  region?: string;
}

/** The store every use case receives: the document client and the table it addresses. */
export interface Table {
  name: string;
  doc: DynamoDBDocumentClient;
}

export function createTable(config: TableConfig, client?: DynamoDBClient): Table {
  const raw =
    client ??
    new DynamoDBClient({
      region: config.region ?? process.env.AWS_REGION ?? 'us-east-1',
      ...(config.endpoint
        ? { endpoint: config.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
        : {}),
      maxAttempts: 3,
      // Reused connections: without keep-alive every call to a plain-http local endpoint pays a
      // TCP handshake, and on AWS the TLS one.
      requestHandler: {
        httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 128 }),
        httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 128 }),
      },
    });
  const doc = DynamoDBDocumentClient.from(raw, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return { name: config.tableName, doc };
}

/** True when DynamoDB refused a write because its condition did not hold. */
export function isConditionalCheckFailed(error: unknown): error is Error {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/**
 * The item a failed conditional write found, to tell the caller why it failed (404 vs 409, the
 * counts of a 429). DynamoDB returns it with ReturnValuesOnConditionCheckFailure: ALL_OLD;
 * dynalite does not, so then it is read back consistently. Undefined when there is no item.
 */
export async function itemOfConditionFailure(
  table: Table,
  error: Error,
  key: Record<string, string>,
): Promise<Record<string, unknown> | undefined> {
  const returned = (error as { Item?: Record<string, AttributeValue> }).Item;
  if (returned) return unmarshall(returned);
  const { Item } = await table.doc.send(
    new GetCommand({ TableName: table.name, Key: key, ConsistentRead: true }),
  );
  return Item;
}

/** Every item a query matches, following LastEvaluatedKey across pages. */
export async function queryAll(
  table: Table,
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await table.doc.send(
      new QueryCommand({ ...input, TableName: table.name, ExclusiveStartKey }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}
