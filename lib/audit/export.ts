import { csvRow } from '../common/csv.ts';
import type { ExportFormat, ExportPeriod } from '../common/export-query.ts';
import type { Table } from '../store/table.ts';
import type { AnchorStore } from './anchor-store.ts';
import { type AuditEntry, readChainHead } from './audit-table.ts';
import { canonicalJson, GENESIS_HASH } from './chain.ts';
import {
  AUDIT_CSV_HEADER,
  type AuditExportEnd,
  auditCsvCells,
  type EntryAfter,
  type EntryBefore,
} from './export-format.ts';
import { readAuditEntries } from './trail.ts';

/**
 * GET /audit/export's body: the run of the tenant's chain that falls in the period, read from the
 * store a page at a time (1,000 entries, consistent reads) and written as it is read, so memory
 * holds one page whatever the period; then the export_end record (lib/audit/export-format.ts).
 *
 * Which entries: entries are numbered in the order they were appended and each takes its time
 * (`at`) as it takes its seq, so `at` rises with seq. The run starts at the first entry at or
 * after `from` (found by a binary search on seq: about 17 reads for 100,000 entries) and ends
 * before the first entry at or after `to`, or at the chain head as it stood when the export began
 * (entries appended while it runs belong to the next export). Two functions' clocks may differ by
 * milliseconds, so an entry near a boundary whose `at` is a little out of order stays with its
 * seq's neighbours: the run is always whole, never an entry skipped from its middle.
 */

/** Entries per read: DynamoDB's 1 MB page holds about 1,000 of them. */
const PAGE = 1000;

/** What the caller learns once the export has ended (for its audit outcome entry). */
export interface AuditExportSummary {
  end?: AuditExportEnd;
}

const after = (entry: AuditEntry): EntryAfter => ({
  seq: entry.seq,
  at: entry.at,
  prev_hash: entry.prev_hash,
});
const before = (entry: AuditEntry): EntryBefore => ({ seq: entry.seq, at: entry.at, hash: entry.hash });
const timeOf = (entry: AuditEntry) => Date.parse(entry.at);

/** The entry with the lowest seq at or after `seq` (a removed entry's place is taken by the next). */
async function entryFrom(table: Table, tenantId: string, seq: number): Promise<AuditEntry | undefined> {
  const page = await readAuditEntries(table, tenantId, { afterSeq: seq - 1, limit: 1 });
  return page.entries[0];
}

/** The seq of the first entry at or after `from`, among 1..headSeq (headSeq + 1 when there is none). */
async function firstSeqFrom(table: Table, tenantId: string, from: number, headSeq: number): Promise<number> {
  let low = 1;
  let high = headSeq + 1;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    const entry = await entryFrom(table, tenantId, middle);
    if (!entry || entry.seq > headSeq || timeOf(entry) >= from) high = middle;
    else low = middle + 1;
  }
  return low;
}

export interface AuditExportOptions {
  format: ExportFormat;
  /** Milliseconds the function has left (Lambda's getRemainingTimeInMillis); no limit when absent. */
  remainingMs?: () => number;
  /** Where the chain's heads are anchored: the end record carries the newest. */
  anchors?: AnchorStore;
  /** Filled in as the export ends. */
  summary?: AuditExportSummary;
  /**
   * Why the person exporting may no longer read the trail (disabled, key revoked), or undefined
   * while they may: asked before every page, so the export stops within a page of the change.
   */
  accessEnded?: () => Promise<string | undefined>;
}

/** The `reason` of an export that stopped at the function's time limit. */
export const TIME_LIMIT_REASON = "the function's time limit";

/** Stop reading when less than this is left, to write the end record inside the function's time. */
const TIME_MARGIN_MS = 20_000;

/** The export's text, a page of entries per chunk, the export_end record last. */
export async function* auditExportChunks(
  table: Table,
  tenantId: string,
  period: ExportPeriod,
  { format, remainingMs, anchors, summary, accessEnded }: AuditExportOptions,
): AsyncGenerator<string> {
  const head = await readChainHead(table, tenantId);
  const headSeq = head?.seq ?? 0;
  const from = Date.parse(period.from);
  const to = Date.parse(period.to);

  let first = await firstSeqFrom(table, tenantId, from, headSeq);
  // The entry just before the run; a clock a little behind may have put an entry in the period
  // just before it: the run then starts there (a few steps at most).
  let previous: AuditEntry | undefined;
  for (;;) {
    previous = first > 1 ? await entryFrom(table, tenantId, first - 1) : undefined;
    if (previous && previous.seq !== first - 1) previous = undefined; // removed: the verifier says so
    if (!previous || timeOf(previous) < from) break;
    first -= 1;
  }

  if (format === 'csv') yield csvRow(AUDIT_CSV_HEADER);
  let count = 0;
  let firstEntry: AuditEntry | undefined;
  let lastEntry: AuditEntry | undefined;
  let next: AuditEntry | undefined;
  let stoppedEarly = false;
  let lostAccess: string | undefined;
  let afterSeq: number | null = first - 1;
  reading: while (afterSeq !== null && afterSeq < headSeq) {
    if (remainingMs && count > 0 && remainingMs() < TIME_MARGIN_MS) {
      stoppedEarly = true;
      break;
    }
    lostAccess = await accessEnded?.();
    if (lostAccess) break;
    const page = await readAuditEntries(table, tenantId, { afterSeq, limit: PAGE });
    let chunk = '';
    for (const entry of page.entries) {
      if (entry.seq > headSeq) break reading;
      if (timeOf(entry) >= to) {
        next = entry;
        if (chunk) yield chunk;
        break reading;
      }
      firstEntry ??= entry;
      lastEntry = entry;
      count += 1;
      chunk += format === 'csv' ? csvRow(auditCsvCells(entry)) : `${canonicalJson(entry)}\n`;
    }
    if (chunk) yield chunk;
    afterSeq = page.next_after_seq;
  }

  // Read after the entries: an anchor published meanwhile names an entry at or before the head.
  const anchor = (await anchors?.latest(tenantId)) ?? null;
  const end: AuditExportEnd = {
    type: 'export_end',
    export: 'audit',
    tenant_id: tenantId,
    from: period.from,
    to: period.to,
    format,
    exported_at: new Date().toISOString(),
    count,
    first_seq: firstEntry?.seq ?? null,
    last_seq: lastEntry?.seq ?? null,
    prev_hash_before_first: firstEntry ? (previous?.hash ?? (first === 1 ? GENESIS_HASH : null)) : null,
    head_hash: lastEntry?.hash ?? null,
    entry_before: previous ? before(previous) : null,
    entry_after: next ? after(next) : null,
    chain_head_seq: headSeq,
    chain_head_hash: head?.hash ?? null,
    anchor,
    complete: !stoppedEarly && !lostAccess,
    ...(lostAccess
      ? {
          reason: lostAccess,
          detail: `The export stopped ${lastEntry ? `after entry ${lastEntry.seq}` : 'before its first entry'}: ${lostAccess}. Its records are not the whole period.`,
        }
      : {}),
    ...(stoppedEarly && lastEntry
      ? {
          reason: TIME_LIMIT_REASON,
          detail: `The export stopped at the function's time limit after entry ${lastEntry.seq} (at ${lastEntry.at}); export the rest with from=${lastEntry.at} and skip the entries up to ${lastEntry.seq}`,
        }
      : {}),
  };
  if (summary) summary.end = end;
  yield exportRecord(format, end);
}

/** A record of the export itself: an NDJSON line, or a CSV row of its type and its JSON. */
export function exportRecord(format: ExportFormat, record: object & { type: string }): string {
  return format === 'csv' ? csvRow([record.type, JSON.stringify(record)]) : `${JSON.stringify(record)}\n`;
}
