import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { INDEXES, keys, type Table } from '../store/table.ts';
import { parseScreenItem, type ScreenItem } from './screen-record.ts';

/**
 * The rescreen window (DESIGN §4). Every screen item carries its subject hash as a subject-screens index key, so
 * the subject's latest screen is one query away; no separate cache item has to be kept in step
 * when a screen is forced or deleted. The window is judged on read from the screen time and the
 * window configured now, so changing RESCREEN_WINDOW_HOURS takes effect at once.
 */
export function windowEnds(screenedAt: string, windowHours: number): number {
  return Date.parse(screenedAt) + windowHours * 3600 * 1000;
}

/** The subject's latest screen if it is still inside the window (deleted screens are gone from the index). */
export async function findRecentScreen(
  table: Table,
  tenantId: string,
  hash: string,
  windowHours: number,
  at: Date,
): Promise<ScreenItem | undefined> {
  if (windowHours <= 0) return undefined;
  const { Items = [] } = await table.doc.send(
    new QueryCommand({
      TableName: table.name,
      IndexName: INDEXES.subjectScreens.name,
      KeyConditionExpression: `${INDEXES.subjectScreens.partitionKey} = :pk`,
      ExpressionAttributeValues: { ':pk': keys.subjectIndex(tenantId, hash) },
      ScanIndexForward: false,
      Limit: 1,
    }),
  );
  const latest = Items[0] ? parseScreenItem(Items[0]) : undefined;
  if (!latest || windowEnds(latest.screened_at, windowHours) <= at.getTime()) return undefined;
  return latest;
}
