import { AsyncLocalStorage } from 'node:async_hooks';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { QuotaExceededError } from '../common/errors.ts';
import { isoDay } from '../common/time.ts';
import { keys } from '../store/schema.ts';
import { isConditionalCheckFailed, itemOfConditionFailure, type Table } from '../store/table.ts';

/** Quota months are calendar months in UTC (docs/api-decisions.md#quota-months). */
export function usageMonth(at: Date = new Date()): string {
  return isoDay(at).slice(0, 7);
}

/**
 * The usage counts a request has already read or written, by tenant and month, so that its
 * response's quota headers need no read of their own when the request charged, refunded or read
 * the usage item anyway (see lib/http/quota-headers.ts).
 */
export type UsageSeen = Map<string, number>;

const usageSeen = new AsyncLocalStorage<UsageSeen>();

/** Runs `work` recording into `seen` every usage count the quota code reads or writes meanwhile. */
export function recordingUsage<T>(seen: UsageSeen, work: () => T): T {
  return usageSeen.run(seen, work);
}

const seenKey = (tenantId: string, month: string) => `${tenantId}#${month}`;

export function noteUsage(tenantId: string, at: Date, used: number): void {
  usageSeen.getStore()?.set(seenKey(tenantId, usageMonth(at)), used);
}

export function usageAlreadySeen(seen: UsageSeen, tenantId: string, at: Date): number | undefined {
  return seen.get(seenKey(tenantId, usageMonth(at)));
}

export async function getMonthlyUsage(
  table: Table,
  tenantId: string,
  at: Date = new Date(),
): Promise<number> {
  const { Item } = await table.doc.send(
    new GetCommand({
      TableName: table.name,
      Key: keys.usage(tenantId, usageMonth(at)),
      ConsistentRead: true,
    }),
  );
  const used = (Item?.used as number | undefined) ?? 0;
  noteUsage(tenantId, at, used);
  return used;
}

/**
 * Charges `count` screens to this month's counter in one conditional write: the increment only
 * happens while used + count stays within the limit, so concurrent requests can never push usage
 * past the plan. `limit` null is unlimited (Enterprise). Throws QuotaExceededError with the
 * counts the 429 reports.
 */
export async function chargeScreens(
  table: Table,
  tenantId: string,
  count: number,
  limit: number | null,
  at: Date = new Date(),
): Promise<number> {
  const key = keys.usage(tenantId, usageMonth(at));
  try {
    const { Attributes } = await table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: 'SET entity = :entity ADD used :n',
        ...(limit === null
          ? { ExpressionAttributeValues: { ':n': count, ':entity': 'usage' } }
          : {
              ConditionExpression: 'attribute_not_exists(used) OR used <= :ceiling',
              ExpressionAttributeValues: { ':n': count, ':ceiling': limit - count, ':entity': 'usage' },
            }),
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    noteUsage(tenantId, at, Attributes?.used as number);
    return Attributes?.used as number;
  } catch (error) {
    if (isConditionalCheckFailed(error)) {
      // limit - count < 0 (a batch larger than the whole plan) also fails the condition on a fresh month.
      const used = ((await itemOfConditionFailure(table, error, key))?.used as number | undefined) ?? 0;
      noteUsage(tenantId, at, used);
      throw new QuotaExceededError(used, limit!);
    }
    throw error;
  }
}

/**
 * Gives back screens charged for work that then failed, so a failed screen is never billed.
 * Refunds never take the counter below zero.
 */
export async function refundScreens(table: Table, tenantId: string, count: number, at: Date = new Date()) {
  if (count <= 0) return;
  try {
    const { Attributes } = await table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: keys.usage(tenantId, usageMonth(at)),
        UpdateExpression: 'ADD used :minus',
        ConditionExpression: 'used >= :n',
        ExpressionAttributeValues: { ':minus': -count, ':n': count },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    noteUsage(tenantId, at, Attributes?.used as number);
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}
