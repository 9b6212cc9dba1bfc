import { createHash } from 'node:crypto';
import { canonicalJson } from '../audit/chain.ts';
import { exportRecord, TIME_LIMIT_REASON } from '../audit/export.ts';
import { csvRow, displayCell } from '../common/csv.ts';
import type { ExportFormat, ExportPeriod } from '../common/export-query.ts';
import { DAY_MS } from '../common/time.ts';
import type { Table } from '../store/table.ts';
import { screenDay } from './screen-id.ts';
import { type HistoryView, historyView, type Screen, toScreen } from './screen-record.ts';
import { type ScreenPagePosition, screensNumberedBetween } from './screen-table.ts';

/**
 * GET /screens/export's body: every screen of the tenant screened in the period (`screened_at`
 * from `from` inclusive to `to` exclusive), oldest id first, each as GET /screens/{id} shows it
 * (subject, matches, the decision in force, the receipt) with its whole disposition history and
 * notes, then an export_end record with the count and a digest.
 *
 * Screens are read a page at a time (50 items, consistent reads) from the tenant's `SCREEN#`
 * range for the days the period touches (a screen's id carries the UTC day it was numbered, a
 * day either side covers an id drawn just before midnight) and written as they are read.
 *
 * Screens are not chained: each is a mutable item (decisions are added to it). The digest
 * (`sha256`) is the SHA-256 of every exported record's canonical JSON followed by a line feed,
 * in order: the NDJSON lines exactly, and the same value for the CSV export of the same screens.
 * It proves the file is the one the service wrote (the screens.export entry on the audit trail
 * records the same digest, and the trail is chained); it does not prove a screen was never changed
 * or deleted before the export: the audit trail records every decision and deletion for that.
 */

/** Screen items per read: each carries its match data and history. */
const PAGE = 50;

/** One exported screen: the screen as the API shows it, and its history with the sign-off links. */
export interface ScreenExportRecord extends Screen {
  history: HistoryView[];
}

/** The display columns of a CSV row, each from the record; `record` holds it whole. */
export const SCREENS_CSV_COLUMNS: readonly (readonly [
  column: string,
  of: (r: ScreenExportRecord) => string | null,
])[] = [
  ['screen_id', (r) => r.screen_id],
  ['screened_at', (r) => r.screened_at],
  ['risk_level', (r) => r.risk_level],
  ['subject_name', (r) => r.subject.name],
  ['subject_dob', (r) => r.subject.dob ?? null],
  ['subject_nationality', (r) => r.subject.nationality ?? null],
  ['subject_location', (r) => r.subject.location ?? null],
  ['subject_alias', (r) => r.subject.alias ?? null],
  ['types', (r) => r.types.join(' ')],
  ['origin', (r) => r.origin],
  ['client_id', (r) => r.client_id],
  ['created_by', (r) => r.created_by.user_id],
  ['disposition', (r) => r.disposition?.disposition ?? null],
  ['decision_version', (r) => (r.disposition?.decision_version ?? null)?.toString() ?? null],
  ['decided_by', (r) => r.disposition?.author.user_id ?? null],
  ['decided_at', (r) => r.disposition?.at ?? null],
  ['history_entries', (r) => String(r.history.length)],
  ['receipt_snapshot', (r) => r.receipt?.snapshot.version ?? null],
  ['receipt_matcher', (r) => r.receipt?.matcher.version ?? null],
];

export const SCREENS_CSV_HEADER = ['type', ...SCREENS_CSV_COLUMNS.map(([column]) => column), 'record'];

/** A screen's CSV row cells: `screen`, the display columns (never a formula), its record's canonical JSON. */
export function screenCsvCells(record: ScreenExportRecord, recordJson: string): string[] {
  return ['screen', ...SCREENS_CSV_COLUMNS.map(([, of]) => displayCell(of(record))), recordJson];
}

/** The last record of a screens export. */
export interface ScreensExportEnd {
  type: 'export_end';
  export: 'screens';
  tenant_id: string;
  from: string;
  to: string;
  format: ExportFormat;
  exported_at: string;
  count: number;
  first_screen_id: string | null;
  last_screen_id: string | null;
  /** SHA-256 (hex) of each record's canonical JSON and a line feed, in export order. */
  sha256: string;
  /** False when the export stopped early: the function's time limit, or the person exporting lost access. */
  complete: boolean;
  /** Why an incomplete export stopped, e.g. `the user was disabled`; absent when complete. */
  reason?: string;
  detail?: string;
}

export interface ScreensExportOptions {
  format: ExportFormat;
  remainingMs?: () => number;
  summary?: { end?: ScreensExportEnd };
  /** Why the person exporting may no longer read screens, or undefined: asked before every page. */
  accessEnded?: () => Promise<string | undefined>;
}

const TIME_MARGIN_MS = 20_000;

/** The export's text, a page of screens per chunk, the export_end record last. */
export async function* screensExportChunks(
  table: Table,
  tenantId: string,
  period: ExportPeriod,
  { format, remainingMs, summary, accessEnded }: ScreensExportOptions,
): AsyncGenerator<string> {
  const from = Date.parse(period.from);
  const to = Date.parse(period.to);
  const firstDay = screenDay(new Date(from - DAY_MS));
  const lastDay = screenDay(new Date(to + DAY_MS));
  const digest = createHash('sha256');
  let count = 0;
  let firstId: string | null = null;
  let lastId: string | null = null;
  let stoppedEarly = false;
  let lostAccess: string | undefined;

  if (format === 'csv') yield csvRow(SCREENS_CSV_HEADER);
  let startKey: ScreenPagePosition | undefined;
  do {
    if (remainingMs && count > 0 && remainingMs() < TIME_MARGIN_MS) {
      stoppedEarly = true;
      break;
    }
    lostAccess = await accessEnded?.();
    if (lostAccess) break;
    const page = await screensNumberedBetween(table, tenantId, { firstDay, lastDay }, PAGE, startKey);
    let chunk = '';
    for (const screen of page.screens) {
      const screenedAt = Date.parse(screen.screened_at);
      if (!(screenedAt >= from && screenedAt < to)) continue;
      const record: ScreenExportRecord = { ...toScreen(screen), history: historyView(screen.history ?? []) };
      const json = canonicalJson(record);
      digest.update(`${json}\n`, 'utf8');
      count += 1;
      firstId ??= screen.screen_id;
      lastId = screen.screen_id;
      chunk += format === 'csv' ? csvRow(screenCsvCells(record, json)) : `${json}\n`;
    }
    if (chunk) yield chunk;
    startKey = page.next;
  } while (startKey);

  const end: ScreensExportEnd = {
    type: 'export_end',
    export: 'screens',
    tenant_id: tenantId,
    from: period.from,
    to: period.to,
    format,
    exported_at: new Date().toISOString(),
    count,
    first_screen_id: firstId,
    last_screen_id: lastId,
    sha256: digest.digest('hex'),
    complete: !stoppedEarly && !lostAccess,
    ...(lostAccess
      ? {
          reason: lostAccess,
          detail: `The export stopped ${lastId ? `after screen ${lastId}` : 'before its first screen'}: ${lostAccess}. Its records are not the whole period.`,
        }
      : {}),
    ...(stoppedEarly
      ? {
          reason: TIME_LIMIT_REASON,
          detail: `The export stopped at the function's time limit after screen ${lastId}; export the rest with a later from`,
        }
      : {}),
  };
  if (summary) summary.end = end;
  yield exportRecord(format, end);
}
