import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys, type Table } from '../store/table.ts';

/** `SCR-YYYYMMDD-NNNNNN` (DESIGN §4); the sequence may grow past six digits on a very busy day. */
export const SCREEN_ID_PATTERN = /^SCR-\d{8}-\d{6,}$/;

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

/** Day counters are only needed on their own day; DynamoDB TTL may remove them a week later. */
const COUNTER_RETENTION_SECONDS = 7 * 24 * 3600;

/**
 * Allocates the next screen id of the tenant's UTC day with one atomic ADD on the day counter,
 * so concurrent screens never share an id, and ids sort by the time they were allocated.
 */
export async function allocateScreenId(
  table: Table,
  tenantId: string,
  at: Date = new Date(),
): Promise<string> {
  const day = screenDay(at);
  const { Attributes } = await table.doc.send(
    new UpdateCommand({
      TableName: table.name,
      Key: keys.screenSequence(tenantId, day),
      UpdateExpression: 'ADD #seq :one SET expires_at = :expires',
      ExpressionAttributeNames: { '#seq': 'sequence' },
      ExpressionAttributeValues: {
        ':one': 1,
        ':expires': Math.floor(at.getTime() / 1000) + COUNTER_RETENTION_SECONDS,
      },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return formatScreenId(day, Attributes?.sequence as number);
}
