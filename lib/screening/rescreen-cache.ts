import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionalCheckFailed, keys, type Table } from '../store/table.ts';
import type { ScreenItem } from './screen-record.ts';

/**
 * The rescreen window (DESIGN §4): one item per tenant and subject hash pointing at the latest
 * screen of that subject. DynamoDB TTL removes it eventually (dynalite never does), so expiry is
 * decided on read from the screen time and the window configured now.
 */
interface SubjectCacheItem {
  screen_id: string;
  screened_at: string;
  expires_at: number;
}

export function windowEnds(screenedAt: string, windowHours: number): number {
  return Date.parse(screenedAt) + windowHours * 3600 * 1000;
}

/** The screen of this subject still inside the window, if any (deleted screens do not count). */
export async function findRecentScreen(
  table: Table,
  tenantId: string,
  hash: string,
  windowHours: number,
  at: Date,
): Promise<ScreenItem | undefined> {
  if (windowHours <= 0) return undefined;
  const { Item } = await table.doc.send(
    new GetCommand({ TableName: table.name, Key: keys.subject(tenantId, hash) }),
  );
  const cached = Item as SubjectCacheItem | undefined;
  if (!cached || windowEnds(cached.screened_at, windowHours) <= at.getTime()) return undefined;
  const screen = await table.doc.send(
    new GetCommand({ TableName: table.name, Key: keys.screen(tenantId, cached.screen_id) }),
  );
  return screen.Item as ScreenItem | undefined;
}

/** Points the subject at its newest screen (a forced screen replaces the earlier pointer). */
export async function rememberScreen(table: Table, item: ScreenItem, windowHours: number): Promise<void> {
  await table.doc.send(
    new PutCommand({
      TableName: table.name,
      Item: {
        ...keys.subject(item.tenant_id, item.subject_hash),
        kind: 'subject',
        screen_id: item.screen_id,
        screened_at: item.screened_at,
        expires_at: Math.ceil(windowEnds(item.screened_at, windowHours) / 1000),
      },
    }),
  );
}

/** Forgets the subject when its pointer is this (deleted) screen; a newer screen's pointer stays. */
export async function forgetScreen(
  table: Table,
  tenantId: string,
  hash: string,
  screenId: string,
): Promise<void> {
  try {
    await table.doc.send(
      new DeleteCommand({
        TableName: table.name,
        Key: keys.subject(tenantId, hash),
        ConditionExpression: 'screen_id = :id',
        ExpressionAttributeValues: { ':id': screenId },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}
