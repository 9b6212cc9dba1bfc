import { NotFoundError } from '../common/errors.ts';
import { isScreenId } from '../common/ids.ts';
import { decodeCursor, encodeCursor } from '../store/cursor.ts';
import type { Table } from '../store/table.ts';
import type { ScreenFilters } from './screen-filters.ts';
import {
  type CurrentDisposition,
  currentDisposition,
  type HistoryView,
  historyView,
  type Screen,
  type ScreenSummary,
  toScreen,
  toSummary,
} from './screen-record.ts';
import { findScreen, type ScreenItem, screenListPage } from './screen-table.ts';

export interface ScreenPage {
  screens: ScreenSummary[];
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

/** One page of a screen list, newest first (screen-table.ts screenListPage), with its cursor. */
async function queryPage(
  table: Table,
  tenantId: string,
  list: 'screens' | 'pending',
  limit: number,
  cursor: string | undefined,
  filters: ScreenFilters = {},
): Promise<ScreenPage> {
  const after = cursor ? decodeCursor(cursor, list, tenantId) : undefined;
  const page = await screenListPage(table, tenantId, list, limit, after, filters);
  return {
    screens: page.rows.map(toSummary),
    next_cursor: page.next ? encodeCursor(list, tenantId, page.next) : null,
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
  const item = await findScreen(table, tenantId, screenId);
  if (!item) throw notFound;
  return item;
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
