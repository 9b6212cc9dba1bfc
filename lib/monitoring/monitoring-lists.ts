import * as v from 'valibot';
import { batchListPage, listPosition } from '../batch/batch-table.ts';
import { MOMENT_RULE, parseMoment } from '../common/export-query.ts';
import { ListQuerySchema } from '../common/fields.ts';
import { isoSeconds } from '../common/time.ts';
import { type ScreenSummary, toSummary } from '../screening/screen-record.ts';
import { screenListPage } from '../screening/screen-table.ts';
import { decodeCursor, encodeCursor } from '../store/cursor.ts';
import type { Table } from '../store/table.ts';
import { clientItemsOf } from './client-table.ts';
import { settledDecision } from './rescreen-review.ts';
import { type RunSummary, runSummaryOf } from './run-summary.ts';

/**
 * What a client of the API reconciles after missing webhooks: the tenant's monitoring alerts
 * (GET /alerts) and its rescreen runs (GET /clients/rescreen/runs), each a cursor-paged list.
 */

/**
 * An alert is `open` until somebody records a settled decision on a screen carrying it (a
 * `needs_review`, or a decision awaiting approval, leaves it open); then it is `closed`.
 */
export const ALERT_STATUSES = ['open', 'closed'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

/** Query of GET /alerts: the page, `status` (default `open`) and `since`. */
export const AlertListQuerySchema = v.object({
  ...ListQuerySchema.entries,
  status: v.optional(
    v.pipe(
      v.string(),
      v.description(
        '`open` (default): alerts nobody has settled yet, one per client, on the client’s current screen; `closed`: alerts a settled decision closed; `open,closed` for both',
      ),
      v.maxLength(20, 'must be open, closed or open,closed'),
      v.transform((text) => [...new Set(text.split(',').map((entry) => entry.trim().toLowerCase()))]),
      v.check(
        (entries) => entries.every((entry) => (ALERT_STATUSES as readonly string[]).includes(entry)),
        'must be open, closed or open,closed',
      ),
      v.transform((entries) => entries as AlertStatus[]),
    ),
  ),
  since: v.optional(
    v.pipe(
      v.string(),
      v.description(
        'Only alerts raised at or after this moment: a date (its first instant, UTC) or an ISO 8601 time with offset',
      ),
      v.maxLength(40, MOMENT_RULE),
      v.check((text) => parseMoment(text.trim()) !== undefined, MOMENT_RULE),
      v.transform((text) => isoSeconds((parseMoment(text.trim()) as { at: Date }).at)),
    ),
  ),
});
export type AlertListQuery = v.InferOutput<typeof AlertListQuerySchema>;

/** A row of GET /alerts: the screen carrying the alert (a screen row) and the alert's status. */
export interface AlertRow extends ScreenSummary {
  status: AlertStatus;
  /** When the alert was first raised (it keeps this time as it is carried forward). */
  raised_at: string;
}

export interface AlertPage {
  alerts: AlertRow[];
  next_cursor: string | null;
}

/**
 * GET /alerts: the tenant's monitoring alerts, newest screen first. It reads the screen list with
 * the filter "carries an alert" (bounded like every filtered page: a short page, even an empty one,
 * may carry a `next_cursor`), then the clients of the page in one BatchGetItem: an open alert is
 * the one on its client's current screen (an older screen carrying the same alert was superseded
 * or kept an unsettled decision, and is not listed again).
 */
export async function listAlerts(table: Table, tenantId: string, query: AlertListQuery): Promise<AlertPage> {
  const statuses = new Set<AlertStatus>(query.status ?? ['open']);
  const after = query.cursor ? decodeCursor(query.cursor, 'alerts', tenantId) : undefined;
  const page = await screenListPage(table, tenantId, 'screens', query.limit, after, {
    carries_alert: true,
    // The screen carrying an alert is made when or after the alert was raised.
    ...(query.since ? { since: query.since, alert_raised_since: query.since } : {}),
  });
  const clientIds = [...new Set(page.rows.flatMap((row) => (row.client_id ? [row.client_id] : [])))];
  const current = new Map<string, string>();
  for (let start = 0; start < clientIds.length; start += 100) {
    const clients = await clientItemsOf(
      table,
      clientIds.slice(start, start + 100).map((clientId) => ({ tenantId, clientId })),
    );
    for (const client of clients) current.set(client.client_id, client.last_screen_id);
  }
  const alerts = page.rows.flatMap((row): AlertRow[] => {
    const status: AlertStatus = settledDecision(row) ? 'closed' : 'open';
    if (!statuses.has(status) || !row.alert_since) return [];
    if (status === 'open' && (!row.client_id || current.get(row.client_id) !== row.screen_id)) return [];
    return [{ ...toSummary(row), status, raised_at: row.alert_since }];
  });
  return { alerts, next_cursor: page.next ? encodeCursor('alerts', tenantId, page.next) : null };
}

export interface RunPage {
  runs: RunSummary[];
  next_cursor: string | null;
}

/** GET /clients/rescreen/runs: the tenant's rescreen runs (scheduled, manual, list change), newest first. */
export async function listRescreenRuns(
  table: Table,
  tenantId: string,
  query: { limit: number; cursor?: string },
): Promise<RunPage> {
  const after = query.cursor ? decodeCursor(query.cursor, 'runs', tenantId) : undefined;
  const page = await batchListPage(table, tenantId, 'runs', after, query.limit);
  const last = page.records.at(-1);
  return {
    runs: page.records.flatMap((record) => runSummaryOf(record) ?? []),
    next_cursor: page.more && last ? encodeCursor('runs', tenantId, listPosition(last)) : null,
  };
}
