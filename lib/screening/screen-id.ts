import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { QuotaExceededError } from '../errors.ts';
import { isConditionalCheckFailed, itemOfConditionFailure, keys, type Table } from '../store/table.ts';
import { noteUsage, usageMonth } from '../tenancy/quota.ts';

/**
 * `SCR-YYYYMMDD-NNNNNN`; the sequence may grow past six digits on a very busy day, but never past
 * twelve (a trillion screens a day). Bounded, so an id of any length that is not one is a 404
 * before it reaches the store (DynamoDB refuses keys over 1 KB, which would be a 500).
 */
export const SCREEN_ID_PATTERN = /^SCR-\d{8}-\d{6,12}$/;

export function isScreenId(text: string): boolean {
  return SCREEN_ID_PATTERN.test(text);
}

/** The UTC day of a screen id: `20250314` for 2025-03-14. */
export function screenDay(at: Date): string {
  return at.toISOString().slice(0, 10).replaceAll('-', '');
}

export function formatScreenId(day: string, sequence: number): string {
  return `SCR-${day}-${String(sequence).padStart(6, '0')}`;
}

/**
 * Numbers a new screen and, when `charge` is given, charges it against the monthly quota, in ONE
 * write: the tenant's monthly usage item also carries the day's screen counter (`seq_YYYYMMDD`).
 * Concurrent screens never share an id, ids sort by the time they were numbered, usage never
 * passes the plan's limit (the same condition as chargeScreens), and a screen refused with
 * QuotaExceededError consumes no id. `charge.limit` null is unlimited (Enterprise).
 *
 * One write instead of two matters: every screen of a tenant touches this item, and a single
 * hot item's writes are serialised by the store.
 */
export async function numberScreen(
  table: Table,
  tenantId: string,
  at: Date,
  charge?: { limit: number | null },
): Promise<string> {
  const day = screenDay(at);
  const key = keys.usage(tenantId, usageMonth(at));
  const limited = charge !== undefined && charge.limit !== null;
  try {
    const { Attributes } = await table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: `SET entity = :entity ADD #seq :one${charge ? ', used :one' : ''}`,
        ExpressionAttributeNames: { '#seq': `seq_${day}` },
        ExpressionAttributeValues: {
          ':one': 1,
          ':entity': 'usage',
          ...(limited ? { ':ceiling': charge.limit! - 1 } : {}),
        },
        ...(limited ? { ConditionExpression: 'attribute_not_exists(used) OR used <= :ceiling' } : {}),
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    if (charge) noteUsage(tenantId, at, Attributes?.used as number);
    return formatScreenId(day, Attributes?.[`seq_${day}`] as number);
  } catch (error) {
    if (limited && isConditionalCheckFailed(error)) {
      const used = ((await itemOfConditionFailure(table, error, key))?.used as number | undefined) ?? 0;
      noteUsage(tenantId, at, used);
      throw new QuotaExceededError(used, charge.limit!);
    }
    throw error;
  }
}
