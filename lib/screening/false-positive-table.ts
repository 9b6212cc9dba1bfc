import * as v from 'valibot';
import { NotFoundError } from '../common/errors.ts';
import { keys } from '../store/schema.ts';
import { parseItem, queryAll, queryPage, readItem, type Table } from '../store/table.ts';
import type { TableWrite } from '../store/write.ts';
import { RememberedFalsePositiveSchema } from './false-positive-record.ts';
import { SubjectSchema } from './subject.ts';

/**
 * The false-positive item (keys.falsePositive): a decided false positive a tenant's ad-hoc screens
 * remember (./remembered-false-positives.ts), one per folded subject and listing. Written in the
 * transaction of the decision that settles it (lib/screening/dispose.ts), deleted in the
 * transaction of a decision that contradicts it or of an admin's revocation (with its audit entry).
 */
export const FalsePositiveItemSchema = v.object({
  pk: v.string(),
  sk: v.string(),
  entity: v.literal('false-positive'),
  tenant_id: v.string(),
  person_key: v.string(),
  listing_key: v.string(),
  /** The subject as screened when it was decided (the memory's own, for the admin's list). */
  subject: SubjectSchema,
  /** When the decision was remembered. */
  remembered_at: v.string(),
  ...RememberedFalsePositiveSchema.entries,
});
export type FalsePositiveItem = v.InferOutput<typeof FalsePositiveItemSchema>;

const PREFIX = 'FALSEPOS#';
const MEMORY_ID = /^([0-9a-f]{32})-([0-9a-f]{16})$/;

/** A memory id's keys, or undefined when it is not one. */
export function memoryKeysOf(memoryId: string): { personKey: string; listingKey: string } | undefined {
  const parts = MEMORY_ID.exec(memoryId);
  return parts ? { personKey: parts[1] as string, listingKey: parts[2] as string } : undefined;
}

export const memoryIdOf = (personKey: string, listingKey: string) => `${personKey}-${listingKey}`;

const parse = (item: Record<string, unknown>) => parseItem(FalsePositiveItemSchema, item);

export const falsePositiveWrites = {
  /** Remembers (or refreshes) a decided false positive: the newest settled decision holds. */
  remember(item: Omit<FalsePositiveItem, 'pk' | 'sk' | 'entity'>): TableWrite {
    return {
      what: 'remembered false positive',
      Put: {
        Item: {
          ...keys.falsePositive(item.tenant_id, item.person_key, item.listing_key),
          entity: 'false-positive',
          ...item,
        },
      },
    };
  },
  /** Forgets one, whether or not it is there (a decision that contradicts it). */
  forget(tenantId: string, personKey: string, listingKey: string): TableWrite {
    return {
      what: 'remembered false positive',
      Delete: { Key: keys.falsePositive(tenantId, personKey, listingKey) },
    };
  },
  /** An admin's revocation: the memory must be there (404 otherwise). */
  revoke(tenantId: string, memoryId: string): TableWrite {
    const memory = memoryKeysOf(memoryId);
    const notFound = new NotFoundError(
      `No remembered false positive ${memoryId.slice(0, 60)} in this tenant`,
    );
    if (!memory) throw notFound;
    return {
      what: 'remembered false positive',
      Delete: {
        Key: keys.falsePositive(tenantId, memory.personKey, memory.listingKey),
        ConditionExpression: 'attribute_exists(pk)',
      },
      refused: () => notFound,
    };
  },
};

/** The memories of one folded subject (a consistent Query of its keys). */
export async function rememberedForPerson(
  table: Table,
  tenantId: string,
  personKey: string,
): Promise<FalsePositiveItem[]> {
  const items = await queryAll(table, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenantId), ':prefix': `${PREFIX}${personKey}#` },
    ConsistentRead: true,
  });
  return items.map(parse);
}

/** One memory by its id, or undefined. */
export async function findRemembered(
  table: Table,
  tenantId: string,
  memoryId: string,
): Promise<FalsePositiveItem | undefined> {
  const memory = memoryKeysOf(memoryId);
  if (!memory) return undefined;
  const item = await readItem(table, keys.falsePositive(tenantId, memory.personKey, memory.listingKey));
  return item ? parse(item) : undefined;
}

/** A page of the tenant's memories (in key order, reversed), continuing after `afterMemoryId`. */
export async function rememberedPage(
  table: Table,
  tenantId: string,
  afterMemoryId: string | undefined,
  limit: number,
): Promise<{ items: FalsePositiveItem[]; more: boolean }> {
  const after = afterMemoryId ? memoryKeysOf(afterMemoryId) : undefined;
  const { items, more } = await queryPage(
    table,
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenantId), ':prefix': PREFIX },
      ExclusiveStartKey: after ? keys.falsePositive(tenantId, after.personKey, after.listingKey) : undefined,
    },
    limit,
  );
  return { items: items.map(parse), more };
}
