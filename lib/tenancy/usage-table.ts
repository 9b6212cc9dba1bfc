import * as v from 'valibot';
import { QuotaExceededError } from '../common/errors.ts';
import { isoDay } from '../common/time.ts';
import { keys } from '../store/schema.ts';
import { parseItem, readItem, type Table } from '../store/table.ts';
import { sendWrite, trySendWrite, type UpdateWrite } from '../store/write.ts';

/**
 * A tenant's usage item, one per calendar month (pk TENANT#<tid>, sk USAGE#<YYYY-MM>): `used`, the
 * screens charged against the plan's monthly quota, and one screen counter per day
 * (`seq_<YYYYMMDD>`), from which screen ids are numbered (lib/screening/screen-id.ts). Every screen
 * of a tenant writes this item; charging and numbering a screen is ONE write (see
 * {@link usageWrites.numberScreen}).
 */
const UsageItemSchema = v.object({
  /** Absent until the month's first charge (numbering a pre-charged screen does not charge). */
  used: v.optional(v.number()),
});
export type UsageItem = v.InferOutput<typeof UsageItemSchema>;

/** Quota months are calendar months in UTC (docs/api-decisions.md#quota-months). */
export function usageMonth(at: Date = new Date()): string {
  return isoDay(at).slice(0, 7);
}

const usageKey = (tenantId: string, at: Date) => keys.usage(tenantId, usageMonth(at));

/** The day counter of the screen ids of `day` (YYYYMMDD). */
const daySequence = (day: string) => `seq_${day}`;

/**
 * THE monthly quota condition, the one place it is written: charging `count` screens passes only
 * while used + count stays within `limit`, so concurrent requests can never push usage past the
 * plan. Both the charge and the numbering of a charged screen write under it.
 */
function withinQuota(count: number, limit: number) {
  return {
    ConditionExpression: 'attribute_not_exists(used) OR used <= :ceiling',
    values: { ':ceiling': limit - count },
  };
}

/** The 429 of a refused charge, with the counts of the usage item found. */
function quotaRefusal(limit: number) {
  // limit - count < 0 (a batch larger than the whole plan) also fails the condition on a fresh month.
  return (found: Record<string, unknown> | undefined) =>
    new QuotaExceededError((found ? parseItem(UsageItemSchema, found).used : undefined) ?? 0, limit);
}

/** The usage item's writes, as values (lib/store/write.ts). */
export const usageWrites = {
  /**
   * Charges `count` screens to the month's counter: ADD used, under the quota condition. `limit`
   * null is unlimited (Enterprise). Refused: QuotaExceededError with the counts the 429 reports.
   */
  charge(tenantId: string, count: number, limit: number | null, at: Date): UpdateWrite {
    const quota = limit === null ? undefined : withinQuota(count, limit);
    return {
      Update: {
        Key: usageKey(tenantId, at),
        UpdateExpression: 'SET entity = :entity ADD used :n',
        ...(quota ? { ConditionExpression: quota.ConditionExpression } : {}),
        ExpressionAttributeValues: { ':n': count, ...quota?.values, ':entity': 'usage' },
      },
      what: 'monthly usage',
      ...(limit === null ? {} : { refused: quotaRefusal(limit) }),
    };
  },

  /**
   * Gives back `count` screens; refused when fewer than `count` are charged, so usage never goes
   * below zero ({@link refund} answers that as nothing refunded).
   */
  refund(tenantId: string, count: number, at: Date): UpdateWrite {
    return {
      Update: {
        Key: usageKey(tenantId, at),
        UpdateExpression: 'ADD used :minus',
        ConditionExpression: 'used >= :n',
        ExpressionAttributeValues: { ':minus': -count, ':n': count },
      },
      what: 'monthly usage refund',
    };
  },

  /**
   * Numbers a new screen of `day` (ADD seq_<day> 1) and, when `charged` is given, charges it in the
   * same write under the quota condition (ADD used 1): a screen refused with QuotaExceededError
   * consumes no id. `charged.limit` null is unlimited (Enterprise).
   */
  numberScreen(tenantId: string, at: Date, day: string, charged?: { limit: number | null }): UpdateWrite {
    const limit = charged?.limit ?? null;
    const quota = limit === null ? undefined : withinQuota(1, limit);
    return {
      Update: {
        Key: usageKey(tenantId, at),
        UpdateExpression: `SET entity = :entity ADD #seq :one${charged ? ', used :one' : ''}`,
        ExpressionAttributeNames: { '#seq': daySequence(day) },
        ExpressionAttributeValues: { ':one': 1, ':entity': 'usage', ...quota?.values },
        ...(quota ? { ConditionExpression: quota.ConditionExpression } : {}),
      },
      what: 'screen number',
      ...(limit === null ? {} : { refused: quotaRefusal(limit) }),
    };
  },

  /** Draws `count` consecutive numbers of `day`'s screen counter (ADD seq_<day> count). */
  reserveScreenNumbers(tenantId: string, at: Date, day: string, count: number): UpdateWrite {
    return {
      Update: {
        Key: usageKey(tenantId, at),
        UpdateExpression: 'SET entity = :entity ADD #seq :count',
        ExpressionAttributeNames: { '#seq': daySequence(day) },
        ExpressionAttributeValues: { ':entity': 'usage', ':count': count },
      },
      what: 'screen numbers',
    };
  },
};

/** The screens charged to the tenant in the month of `at` (consistent read); 0 before the first. */
export async function readUsage(table: Table, tenantId: string, at: Date): Promise<number> {
  const item = await readItem(table, usageKey(tenantId, at));
  return (item ? parseItem(UsageItemSchema, item).used : undefined) ?? 0;
}

/**
 * Charges `count` screens in one conditional write ({@link usageWrites.charge}) and answers the
 * month's new usage; throws QuotaExceededError, carrying the usage found, when the quota refuses.
 */
export async function charge(
  table: Table,
  tenantId: string,
  count: number,
  limit: number | null,
  at: Date,
): Promise<number> {
  const write = usageWrites.charge(tenantId, count, limit, at);
  const attributes = await sendWrite(table, write, 'UPDATED_NEW');
  return attributes?.used as number;
}

/** Gives back `count` screens; the month's new usage, or undefined when there was not as much to give back. */
export async function refund(
  table: Table,
  tenantId: string,
  count: number,
  at: Date,
): Promise<number | undefined> {
  const outcome = await trySendWrite(table, usageWrites.refund(tenantId, count, at), 'UPDATED_NEW');
  return outcome.written ? (outcome.attributes?.used as number) : undefined;
}

/**
 * Numbers a new screen of `day`, charging it when `charged` is given ({@link usageWrites.numberScreen}):
 * the day's new sequence number, and the month's new usage when charged. Throws QuotaExceededError,
 * carrying the usage found, when the quota refuses.
 */
export async function numberScreen(
  table: Table,
  tenantId: string,
  at: Date,
  day: string,
  charged?: { limit: number | null },
): Promise<{ sequence: number; used?: number }> {
  const write = usageWrites.numberScreen(tenantId, at, day, charged);
  const attributes = await sendWrite(table, write, 'UPDATED_NEW');
  return { sequence: attributes?.[daySequence(day)] as number, used: attributes?.used as number | undefined };
}

/** Draws `count` consecutive screen numbers of `day` in one write: the first of them. */
export async function reserveScreenNumbers(
  table: Table,
  tenantId: string,
  at: Date,
  day: string,
  count: number,
): Promise<number> {
  const attributes = await sendWrite(
    table,
    usageWrites.reserveScreenNumbers(tenantId, at, day, count),
    'UPDATED_NEW',
  );
  return (attributes?.[daySequence(day)] as number) - count + 1;
}
