import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '../common/errors.ts';
import { isScreenId } from '../common/ids.ts';
import { decodeCursor, encodeCursor, type ListName } from '../store/cursor.ts';
import { INDEXES, indexKeys, keys } from '../store/schema.ts';
import { parseItem, type Table } from '../store/table.ts';
import {
  earliestScreenDay,
  FILTERED_READ_LIMIT,
  filterCondition,
  isFiltered,
  type ScreenFilters,
} from './screen-filters.ts';
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
  'origin',
  'client_id',
];

/** The highest screen id sort key of a tenant: `SCREEN#SCR-` and a day, then anything. */
const SCREEN_KEY_CEILING = 'SCR-99999999-~';

/**
 * One page of a screen list, newest first. Unfiltered, it reads the rows it returns (and one
 * more, so the last page says so). Filtered (lib/screening/screen-filters.ts), DynamoDB applies
 * the filter after reading, so it reads on in growing steps until the page is full, the list
 * ends, or FILTERED_READ_LIMIT items were read: then the page may be short (even empty) and its
 * `next_cursor` reads on from the last item read. `since` also bounds the read by the screen
 * ids' days, so a recent window never reads older screens.
 */
async function queryPage(
  table: Table,
  tenantId: string,
  list: ListName,
  limit: number,
  cursor: string | undefined,
  filters: ScreenFilters = {},
): Promise<ScreenPage> {
  const after = cursor ? decodeCursor(cursor, list, tenantId) : undefined;
  const filter = filterCondition(filters);
  const filtered = isFiltered(filters);
  const names = {
    ...Object.fromEntries(SUMMARY_ATTRIBUTES.map((name, i) => [`#a${i}`, name])),
    ...filter.names,
  };
  const floor = filters.since ? `SCR-${earliestScreenDay(filters.since)}-` : undefined;
  // A cursor already past `since` (DynamoDB refuses a start key outside the key condition): done.
  if (floor && after && after < floor) return { screens: [], next_cursor: null };
  const key =
    list === 'screens'
      ? {
          KeyConditionExpression: floor
            ? 'pk = :pk AND sk BETWEEN :floor AND :ceiling'
            : 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: {
            ':pk': keys.tenantPartition(tenantId),
            ...(floor
              ? { ':floor': `SCREEN#${floor}`, ':ceiling': `SCREEN#${SCREEN_KEY_CEILING}` }
              : { ':prefix': 'SCREEN#' }),
          },
        }
      : {
          IndexName: INDEXES.pendingScreens.name,
          KeyConditionExpression: `${INDEXES.pendingScreens.partitionKey} = :pk${floor ? ` AND ${INDEXES.pendingScreens.sortKey} >= :floor` : ''}`,
          ExpressionAttributeValues: {
            ':pk': keys.pendingIndex(tenantId),
            ...(floor ? { ':floor': floor } : {}),
          },
        };
  const startKey = (screenId: string) =>
    list === 'screens'
      ? keys.screen(tenantId, screenId)
      : {
          ...keys.screen(tenantId, screenId),
          ...indexKeys('pendingScreens', keys.pendingIndex(tenantId), screenId),
        };

  const items: Record<string, unknown>[] = [];
  let position = after;
  let read = 0;
  let step = limit + 1;
  let more = false;
  for (;;) {
    const {
      Items = [],
      LastEvaluatedKey,
      ScannedCount = 0,
    } = await table.doc.send(
      new QueryCommand({
        TableName: table.name,
        ...key,
        ExpressionAttributeValues: { ...key.ExpressionAttributeValues, ...filter.values },
        ExpressionAttributeNames: names,
        ...(filter.expression ? { FilterExpression: filter.expression } : {}),
        ScanIndexForward: false,
        // One more than asked, so the last page says so instead of handing out a cursor to nothing.
        Limit: filtered ? Math.min(step, FILTERED_READ_LIMIT - read) : limit + 1 - items.length,
        ProjectionExpression: SUMMARY_ATTRIBUTES.map((_, i) => `#a${i}`).join(', '),
        ExclusiveStartKey: position ? startKey(position) : undefined,
      }),
    );
    read += ScannedCount;
    items.push(...Items);
    if (items.length > limit) {
      more = true;
      break;
    }
    if (!LastEvaluatedKey) break;
    // DynamoDB stopped at the step or its 1 MB page size: the position to read on from.
    position = String(LastEvaluatedKey.sk).replace(/^SCREEN#/, '');
    if (filtered && read >= FILTERED_READ_LIMIT) {
      more = true;
      break;
    }
    step = Math.min(step * 2, FILTERED_READ_LIMIT);
  }
  const rows = items.slice(0, limit).map((item) => parseItem(ScreenSummaryItemSchema, item));
  // A short page of a filtered list goes on from where the read stopped, not from its last row.
  const nextPosition = items.length > limit ? rows.at(-1)?.screen_id : position;
  return {
    screens: rows.map(toSummary),
    next_cursor: more && nextPosition ? encodeCursor(list, tenantId, nextPosition) : null,
  };
}

/** GET /screens: the tenant's screens, newest first (ids sort by time), optionally filtered. */
export function listScreens(
  table: Table,
  tenantId: string,
  limit: number,
  cursor?: string,
  filters?: ScreenFilters,
): Promise<ScreenPage> {
  return queryPage(table, tenantId, 'screens', limit, cursor, filters);
}

/**
 * GET /screens/pending: screens with no disposition recorded, newest first, from the sparse
 * pending index, optionally filtered. On AWS the index is eventually consistent: a screen
 * disposed a moment ago can still appear for a fraction of a second.
 */
export function listPendingScreens(
  table: Table,
  tenantId: string,
  limit: number,
  cursor?: string,
  filters?: ScreenFilters,
): Promise<ScreenPage> {
  return queryPage(table, tenantId, 'pending', limit, cursor, filters);
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
