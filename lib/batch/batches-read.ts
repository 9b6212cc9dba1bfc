import * as v from 'valibot';
import { csvRow, displayCell } from '../common/csv.ts';
import { NotFoundError } from '../common/errors.ts';
import {
  EXPORT_CONTENT_TYPES,
  EXPORT_FORMATS,
  type ExportFormat,
  exportFormat,
} from '../common/export-query.ts';
import { isBatchId } from '../common/ids.ts';
import { RISK_ORDER, type RiskLevel } from '../matcher/types.ts';
import type { Actor } from '../screening/screen-record.ts';
import { parseScreenItem, type ScreenItem } from '../screening/screen-table.ts';
import { decodeCursor, encodeCursor } from '../store/cursor.ts';
import { keys } from '../store/schema.ts';
import { getAll, type Table } from '../store/table.ts';
import type { CheckType } from '../watchlists/types.ts';
import {
  allBatchItems,
  type BatchItem,
  type BatchPurpose,
  type BatchRecord,
  batchListPage,
  getBatch,
  listPosition,
} from './batch-table.ts';

/**
 * What a client reads back about its batches (GET /batch, GET /batch/{id}, GET
 * /batch/{id}/results): the batch record's counts, and each subject's outcome with the strongest
 * match of its screen, so a client that lost the stream (or never followed it) can reconcile
 * every row. Batches are kept a week (lib/batch/batch-record.ts), like their progress.
 */

/** Query of GET /batch/{id}/results: the file format. */
export const BatchResultsQuerySchema = v.object({
  format: v.optional(
    v.pipe(
      v.string(),
      v.description(
        '`csv` or `ndjson`; wins over the Accept header (`text/csv`, `application/x-ndjson`). Default: ndjson',
      ),
      v.picklist(EXPORT_FORMATS, 'must be ndjson or csv'),
    ),
  ),
});

/** A batch as GET /batch lists it and GET /batch/{id} starts. */
export interface BatchSummary {
  batch_id: string;
  purpose: Exclude<BatchPurpose, 'rescreen'>;
  /** `finished` once every subject is screened or failed. */
  status: 'running' | 'finished';
  total: number;
  /** Subjects finished so far (screened or failed). */
  finished: number;
  /** Of those, answered by an earlier screen inside the rescreen window (refunded). */
  skipped: number;
  /** Of those, failed for good (refunded). */
  failed: number;
  types: CheckType[];
  created_at: string;
  created_by: Actor;
}

/** GET /batch/{id}: the summary, the screens per risk level so far, and the subjects not finished. */
export interface BatchDetail extends BatchSummary {
  risk_counts: Record<RiskLevel, number>;
  queued: number;
}

/** The listed person a subject's screen matched most strongly, as a results row shows it. */
export interface BestMatch {
  /** The listed person's primary name. */
  name: string;
  /** The listed name or alias that matched. */
  matched_name: string;
  list_id: string;
  entity_id: string;
  score: number;
  risk_level: RiskLevel;
  /** The listed dates of birth. */
  dobs: string[];
}

/** One subject of a batch, in request order, with its outcome. */
export interface BatchResultRow {
  /** Position in the request's `subjects`, from 1 (a spreadsheet's row under its header). */
  row: number;
  index: number;
  name: string;
  dob: string | null;
  nationality: string | null;
  location: string | null;
  status: 'queued' | 'processing' | 'screened' | 'failed';
  screen_id: string | null;
  risk_level: RiskLevel | null;
  skipped: boolean | null;
  client_id: string | null;
  /** Listed people the screen matched (every check), before the cut to the strongest. */
  matches: number | null;
  best_match: BestMatch | null;
  error: string | null;
}

export interface BatchPage {
  batches: BatchSummary[];
  next_cursor: string | null;
}

const summaryOf = (record: BatchRecord): BatchSummary => ({
  batch_id: record.batch_id,
  purpose: record.purpose === 'register-clients' ? 'register-clients' : 'screen',
  status: record.finished >= record.total ? 'finished' : 'running',
  total: record.total,
  finished: Math.min(record.finished, record.total),
  skipped: record.skipped ?? 0,
  failed: record.failed ?? 0,
  types: record.types,
  created_at: record.created_at,
  created_by: record.created_by,
});

/** GET /batch: the tenant's batches, newest first, a page at a time. */
export async function listBatches(
  table: Table,
  tenantId: string,
  query: { limit: number; cursor?: string },
): Promise<BatchPage> {
  const after = query.cursor ? decodeCursor(query.cursor, 'batches', tenantId) : undefined;
  const page = await batchListPage(table, tenantId, 'batches', after, query.limit);
  const last = page.records.at(-1);
  return {
    batches: page.records.map(summaryOf),
    next_cursor: page.more && last ? encodeCursor('batches', tenantId, listPosition(last), undefined) : null,
  };
}

/** The batch record of a batch (not a rescreen run) of this tenant, or 404: another tenant's id is absent. */
async function readBatch(table: Table, tenantId: string, batchId: string): Promise<BatchRecord> {
  const notFound = new NotFoundError(`Batch ${batchId} not found`);
  if (!isBatchId(batchId)) throw notFound;
  const record = await getBatch(table, { tenantId, batchId });
  if (!record || record.purpose === 'rescreen') throw notFound;
  return record;
}

/** GET /batch/{id}: the batch's counts and its screens per risk level so far. */
export async function getBatchDetail(table: Table, tenantId: string, batchId: string): Promise<BatchDetail> {
  const record = await readBatch(table, tenantId, batchId);
  const items = await allBatchItems(table, { tenantId, batchId });
  const riskCounts = Object.fromEntries([...RISK_ORDER].reverse().map((level) => [level, 0])) as Record<
    RiskLevel,
    number
  >;
  for (const item of items) if (item.status === 'done') riskCounts[item.risk_level] += 1;
  return {
    ...summaryOf(record),
    risk_counts: riskCounts,
    queued: items.filter((item) => item.status === 'queued' || item.status === 'processing').length,
  };
}

/** Every match of a screen, whichever check found it. */
function matchesOf(screen: ScreenItem) {
  return [
    ...(screen.sanctions_result?.matches ?? []),
    ...(screen.pep_result?.matches ?? []),
    ...(screen.criminal_result?.interpol_hits ?? []),
    ...(screen.criminal_result?.fbi_hits ?? []),
  ];
}

/** How many listed people the screen's checks matched, before each was cut to its strongest. */
function matchCount(screen: ScreenItem): number {
  const counted = (result: { total?: number } | null, shown: number) => result?.total ?? shown;
  return (
    counted(screen.sanctions_result, screen.sanctions_result?.matches.length ?? 0) +
    counted(screen.pep_result, screen.pep_result?.matches.length ?? 0) +
    counted(
      screen.criminal_result,
      (screen.criminal_result?.interpol_hits.length ?? 0) + (screen.criminal_result?.fbi_hits.length ?? 0),
    )
  );
}

/** The strongest match: the highest risk level, then the highest score. */
export function bestMatchOf(screen: ScreenItem): BestMatch | null {
  const rank = (level: RiskLevel) => RISK_ORDER.indexOf(level);
  const [best] = matchesOf(screen).sort(
    (a, b) => rank(b.risk_level) - rank(a.risk_level) || b.score - a.score,
  );
  if (!best) return null;
  return {
    name: best.primary_name,
    matched_name: best.matched_name,
    list_id: best.list_id,
    entity_id: best.entity_id,
    score: best.score,
    risk_level: best.risk_level,
    dobs: best.dobs,
  };
}

/** The screens of the batch's screened subjects (BatchGetItem, 100 keys a call); deleted ones are absent. */
async function screensOf(
  table: Table,
  tenantId: string,
  items: BatchItem[],
): Promise<Map<string, ScreenItem>> {
  const ids = [...new Set(items.flatMap((item) => (item.status === 'done' ? [item.screen_id] : [])))];
  const screens = new Map<string, ScreenItem>();
  for (let start = 0; start < ids.length; start += 100) {
    const found = await getAll(
      table,
      ids.slice(start, start + 100).map((id) => keys.screen(tenantId, id)),
    );
    for (const item of found) {
      const screen = parseScreenItem(item);
      screens.set(screen.screen_id, screen);
    }
  }
  return screens;
}

/** GET /batch/{id}/results: every subject in request order with its outcome and strongest match. */
export async function batchResults(
  table: Table,
  tenantId: string,
  batchId: string,
): Promise<BatchResultRow[]> {
  await readBatch(table, tenantId, batchId);
  const items = await allBatchItems(table, { tenantId, batchId });
  const screens = await screensOf(table, tenantId, items);
  return items.map((item): BatchResultRow => {
    const subject = item.subject;
    const base = {
      row: item.index + 1,
      index: item.index,
      name: subject.name,
      dob: subject.dob ?? null,
      nationality: subject.nationality ?? null,
      location: subject.location ?? null,
    };
    if (item.status === 'done') {
      const screen = screens.get(item.screen_id);
      return {
        ...base,
        status: 'screened',
        screen_id: item.screen_id,
        risk_level: item.risk_level,
        skipped: item.skipped,
        client_id: item.client_id ?? null,
        matches: screen ? matchCount(screen) : null,
        best_match: screen ? bestMatchOf(screen) : null,
        error: screen ? null : `Screen ${item.screen_id} was deleted`,
      };
    }
    return {
      ...base,
      status: item.status,
      screen_id: null,
      risk_level: null,
      skipped: null,
      client_id: null,
      matches: null,
      best_match: null,
      error: item.status === 'failed' ? item.detail : null,
    };
  });
}

/** The columns of the results CSV, in order. */
export const BATCH_RESULT_COLUMNS = [
  'row',
  'name',
  'dob',
  'nationality',
  'location',
  'status',
  'screen_id',
  'risk_level',
  'skipped',
  'matches',
  'best_match_name',
  'best_match_list',
  'best_match_score',
  'best_match_dob',
  'best_match_entity_id',
  'error',
] as const;

/**
 * One results row as CSV cells. Every text cell a spreadsheet would run as a formula (OWASP's CSV
 * injection rule: a leading `=`, `+`, `-`, `@`, tab or carriage return) is written with a single
 * quote before it, so a subject named `=HYPERLINK(…)` opens as text.
 */
function csvCells(row: BatchResultRow): string[] {
  const text = (value: string | null | undefined) => displayCell(value ?? null);
  const number = (value: number | null | undefined) =>
    value === null || value === undefined ? '' : String(value);
  return [
    String(row.row),
    text(row.name),
    text(row.dob),
    text(row.nationality),
    text(row.location),
    row.status,
    text(row.screen_id),
    text(row.risk_level),
    row.skipped === null ? '' : String(row.skipped),
    number(row.matches),
    text(row.best_match?.name),
    text(row.best_match?.list_id),
    number(row.best_match?.score),
    text(row.best_match?.dobs.join('; ')),
    text(row.best_match?.entity_id),
    text(row.error),
  ];
}

/** The results as a file: CSV (a header row, then one row per subject) or NDJSON (one object a line). */
export function resultsFile(rows: readonly BatchResultRow[], format: ExportFormat): string {
  if (format === 'ndjson') return rows.map((row) => `${JSON.stringify(row)}\n`).join('');
  return [csvRow(BATCH_RESULT_COLUMNS), ...rows.map((row) => csvRow(csvCells(row)))].join('');
}

/**
 * GET /batch/{id}/results as the response it is: the file in the format asked for (`format`, else
 * the Accept header, else NDJSON), named after the batch for a browser's download.
 */
export async function batchResultsFile(
  table: Table,
  tenantId: string,
  batchId: string,
  ask: { format: ExportFormat | undefined; accept: string | undefined },
): Promise<{ headers: Record<string, string>; content: string }> {
  const format = exportFormat(ask.format, ask.accept);
  const rows = await batchResults(table, tenantId, batchId);
  return {
    headers: {
      'content-type': EXPORT_CONTENT_TYPES[format],
      'content-disposition': `attachment; filename="${batchId}-results.${format === 'csv' ? 'csv' : 'ndjson'}"`,
    },
    content: resultsFile(rows, format),
  };
}
