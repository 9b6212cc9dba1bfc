import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { defaultRegion } from '../common/config.ts';
import { INDEXES, type IndexName } from './schema.ts';

/**
 * The table helpers the store modules (`*-table.ts`) share: the client, batched writes, queries and
 * pages (single writes and transactions are ./write.ts). The table's schema (entities, keys, indexes, access patterns) is in ./schema.ts.
 */

/**
 * Parses an item read from the table with its entity's schema: a stored item that does not have
 * the shape the code expects is a server fault, reported with the failing paths (never values,
 * which may be personal data).
 */
export function parseItem<const TSchema extends v.GenericSchema>(
  schema: TSchema,
  item: Record<string, unknown>,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, item);
  if (result.success) return result.output;
  const paths = [...new Set(result.issues.map((issue) => v.getDotPath(issue) ?? '(item)'))].slice(0, 5);
  throw new Error(
    `Stored ${String(item.entity ?? 'item')} ${String(item.sk ?? '')} is malformed at ${paths.join(', ')}`,
  );
}

export interface TableConfig {
  tableName: string;
  /** Set for DynamoDB Local; unset on AWS. */
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
      region: config.region ?? defaultRegion(),
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

/** One request of a BatchWriteItem: put an item, or delete the item of a key. */
export type WriteRequest =
  | { PutRequest: { Item: Record<string, unknown> } }
  | { DeleteRequest: { Key: Record<string, string> } };

/** BatchWriteItem takes at most 25 requests per call. */
const WRITE_BATCH_SIZE = 25;
/** Calls for the requests the store left unprocessed, the first one included. */
const WRITE_ATTEMPTS = 5;

/**
 * Sends the requests in BatchWriteItem calls of 25, `concurrency` calls at once (default one at a
 * time), asking again with a growing pause for what the store left unprocessed (throttling); throws
 * `<what> not written: ...` when some are still unprocessed after five calls. Not atomic: callers
 * order their writes so that a failure part-way leaves nothing a reader trusts.
 */
export async function writeAll(
  table: Table,
  requests: readonly WriteRequest[],
  options: { what: string; concurrency?: number },
): Promise<void> {
  const chunks: WriteRequest[][] = [];
  for (let offset = 0; offset < requests.length; offset += WRITE_BATCH_SIZE)
    chunks.push(requests.slice(offset, offset + WRITE_BATCH_SIZE));
  let next = 0;
  const lane = async () => {
    while (next < chunks.length) {
      let pending = chunks[next++];
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt === WRITE_ATTEMPTS)
          throw new Error(`${options.what} not written: the store kept them unprocessed`);
        if (attempt > 0) await sleep(50 * 2 ** attempt);
        const { UnprocessedItems } = await table.doc.send(
          new BatchWriteCommand({ RequestItems: { [table.name]: pending } }),
        );
        pending = (UnprocessedItems?.[table.name] ?? []) as WriteRequest[];
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 1, chunks.length) }, lane));
}

/** Put requests for `items`, for {@link writeAll}. */
export function putRequests(items: readonly Record<string, unknown>[]): WriteRequest[] {
  return items.map((Item) => ({ PutRequest: { Item } }));
}

/**
 * The items of up to 100 keys in one consistent BatchGetItem (absent ones are left out); keys the
 * store leaves unprocessed (throttling) are asked again, up to three times in all.
 */
export async function getAll(
  table: Table,
  itemKeys: Record<string, string>[],
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  let pending = itemKeys;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === 3) throw new Error('BatchGetItem left keys unprocessed three times');
    const { Responses, UnprocessedKeys } = await table.doc.send(
      new BatchGetCommand({ RequestItems: { [table.name]: { Keys: pending, ConsistentRead: true } } }),
    );
    found.push(...(Responses?.[table.name] ?? []));
    pending = (UnprocessedKeys?.[table.name]?.Keys ?? []) as Record<string, string>[];
  }
  return found;
}

/**
 * The item of `key`, or undefined when there is none: a consistent read unless `consistent` is
 * false. Readers parse it with their entity's schema.
 */
export async function readItem(
  table: Table,
  key: Record<string, string>,
  consistent = true,
): Promise<Record<string, unknown> | undefined> {
  const { Item } = await table.doc.send(
    new GetCommand({ TableName: table.name, Key: key, ...(consistent ? { ConsistentRead: true } : {}) }),
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

/**
 * One page of a list, newest first: asks for one row more than `limit`, so the last page says so
 * instead of handing out a cursor to nothing. `more` is also true when DynamoDB stopped at its
 * 1 MB page size.
 */
export async function queryPage(
  table: Table,
  input: Omit<QueryCommandInput, 'TableName' | 'Limit' | 'ScanIndexForward'>,
  limit: number,
): Promise<{ items: Record<string, unknown>[]; more: boolean }> {
  const { Items = [], LastEvaluatedKey } = await table.doc.send(
    new QueryCommand({ ...input, TableName: table.name, ScanIndexForward: false, Limit: limit + 1 }),
  );
  const items = Items.slice(0, limit);
  return { items, more: Items.length > limit || (LastEvaluatedKey !== undefined && items.length > 0) };
}

/**
 * One page of one partition of a secondary index, newest first, continuing after the row whose
 * index sort key is `after` (`itemKey` is that row's primary key, which DynamoDB needs too).
 */
export function queryIndexPage(
  table: Table,
  index: IndexName,
  partition: string,
  after: { sortKey: string; itemKey: Record<string, string> } | undefined,
  limit: number,
): Promise<{ items: Record<string, unknown>[]; more: boolean }> {
  const { name, partitionKey, sortKey } = INDEXES[index];
  return queryPage(
    table,
    {
      IndexName: name,
      KeyConditionExpression: `${partitionKey} = :pk`,
      ExpressionAttributeValues: { ':pk': partition },
      ExclusiveStartKey: after
        ? { ...after.itemKey, [partitionKey]: partition, [sortKey]: after.sortKey }
        : undefined,
    },
    limit,
  );
}
