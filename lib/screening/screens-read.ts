import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '../common/errors.ts';
import { isScreenId } from '../common/ids.ts';
import { decodeCursor, encodeCursor, type ListName } from '../store/cursor.ts';
import { INDEXES, indexKeys, keys } from '../store/schema.ts';
import { parseItem, type Table } from '../store/table.ts';
import {
  type CurrentDisposition,
  currentDisposition,
  type HistoryView,
  historyView,
  parseScreenItem,
  type Screen,
  type ScreenItem,
  type ScreenSummary,
  ScreenSummaryItemSchema,
  toScreen,
  toSummary,
} from './screen-record.ts';

export interface ScreenPage {
  screens: ScreenSummary[];
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

/** Attributes a list row needs: the match data stays out of list pages. */
const SUMMARY_ATTRIBUTES = [
  'screen_id',
  'risk_level',
  'subject',
  'screened_at',
  'types',
  'created_by',
  'disposition',
  'decision_version',
  'approval',
  'alert_since',
];

async function queryPage(
  table: Table,
  tenantId: string,
  list: ListName,
  limit: number,
  cursor: string | undefined,
): Promise<ScreenPage> {
  const after = cursor ? decodeCursor(cursor, list, tenantId) : undefined;
  const names = Object.fromEntries(SUMMARY_ATTRIBUTES.map((name, i) => [`#a${i}`, name]));
  const common = {
    TableName: table.name,
    ScanIndexForward: false,
    // One more than asked, so the last page says so instead of handing out a cursor to nothing.
    Limit: limit + 1,
    ProjectionExpression: Object.keys(names).join(', '),
  };
  const { Items = [], LastEvaluatedKey } = await table.doc.send(
    list === 'screens'
      ? new QueryCommand({
          ...common,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenantId), ':prefix': 'SCREEN#' },
          ExclusiveStartKey: after ? keys.screen(tenantId, after) : undefined,
        })
      : new QueryCommand({
          ...common,
          IndexName: INDEXES.pendingScreens.name,
          KeyConditionExpression: `${INDEXES.pendingScreens.partitionKey} = :pk`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':pk': keys.pendingIndex(tenantId) },
          ExclusiveStartKey: after
            ? {
                ...keys.screen(tenantId, after),
                ...indexKeys('pendingScreens', keys.pendingIndex(tenantId), after),
              }
            : undefined,
        }),
  );
  const rows = Items.slice(0, limit).map((item) => parseItem(ScreenSummaryItemSchema, item));
  // More rows exist when the extra one came back, or when DynamoDB stopped at its 1 MB page size.
  const more = Items.length > limit || (LastEvaluatedKey !== undefined && rows.length > 0);
  return {
    screens: rows.map(toSummary),
    next_cursor: more ? encodeCursor(list, tenantId, rows[rows.length - 1].screen_id) : null,
  };
}

/** GET /screens: the tenant's screens, newest first (ids sort by time). */
export function listScreens(
  table: Table,
  tenantId: string,
  limit: number,
  cursor?: string,
): Promise<ScreenPage> {
  return queryPage(table, tenantId, 'screens', limit, cursor);
}

/**
 * GET /screens/pending: screens with no disposition recorded, newest first, from the sparse
 * pending index. On AWS the index is eventually consistent: a screen disposed a moment ago can
 * still appear for a fraction of a second.
 */
export function listPendingScreens(
  table: Table,
  tenantId: string,
  limit: number,
  cursor?: string,
): Promise<ScreenPage> {
  return queryPage(table, tenantId, 'pending', limit, cursor);
}

/** The stored screen, or 404. The key carries the tenant, so another tenant's id is simply absent. */
export async function getScreenItem(table: Table, tenantId: string, screenId: string): Promise<ScreenItem> {
  const notFound = new NotFoundError(`Screen ${screenId} not found`);
  if (!isScreenId(screenId)) throw notFound;
  const { Item } = await table.doc.send(
    new GetCommand({ TableName: table.name, Key: keys.screen(tenantId, screenId), ConsistentRead: true }),
  );
  if (!Item) throw notFound;
  return parseScreenItem(Item);
}

/** GET /screens/{screen_id}: the full screen with match data, narratives and current disposition. */
export async function getScreen(table: Table, tenantId: string, screenId: string): Promise<Screen> {
  return toScreen(await getScreenItem(table, tenantId, screenId));
}

export interface ScreenHistory {
  screen_id: string;
  disposition: CurrentDisposition | null;
  history: HistoryView[];
}

/** GET /screens/{screen_id}/history: every disposition entry and note, oldest first. */
export async function getScreenHistory(
  table: Table,
  tenantId: string,
  screenId: string,
): Promise<ScreenHistory> {
  const item = await getScreenItem(table, tenantId, screenId);
  return {
    screen_id: item.screen_id,
    disposition: currentDisposition(item),
    history: historyView(item.history ?? []),
  };
}
