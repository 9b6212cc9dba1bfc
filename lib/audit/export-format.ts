import { looksLikeFormula } from '../common/csv.ts';
import type { AuditAnchor } from './anchor-store.ts';
import { canonicalJson } from './chain.ts';

/**
 * How an audit trail export writes entries, and how its verifier reads them back, with no store
 * behind it (scripts/verify-export.ts). An entry must come back exactly as stored, every field and
 * type, or its hash would not recompute:
 * - NDJSON: one entry per line, its canonical JSON (lib/audit/chain.ts), nothing added.
 * - CSV: one row per entry in the columns below. A cell holds the field's value (a whole number
 *   for `seq` and `started_seq`, canonical JSON for `actor`, `target` and `details`, text for the
 *   rest); an empty cell means the entry has no such field. A value its column cannot hold as it
 *   is (a null `request_id`, an empty text, a text a spreadsheet would run as a formula) and any
 *   field without a column are kept in `extra`, canonical JSON of those fields. So the row rebuilds
 *   the entry exactly, and no cell is a formula.
 * Lines or rows that are records of the export itself carry `type` (`export_end`, `export_error`);
 * a CSV entry row's `type` is `entry`, and an export record's row is its type and its JSON.
 */

type Kind = 'int' | 'text' | 'json';

/** The CSV columns after `type`, in order, each with the kind of value it holds. */
export const AUDIT_CSV_FIELDS: readonly (readonly [field: string, kind: Kind])[] = [
  ['seq', 'int'],
  ['at', 'text'],
  ['tenant_id', 'text'],
  ['entry_id', 'text'],
  ['action', 'text'],
  ['outcome', 'text'],
  ['started_seq', 'int'],
  ['outcome_detail', 'text'],
  ['actor', 'json'],
  ['request_id', 'text'],
  ['target', 'json'],
  ['details', 'json'],
  ['prev_hash', 'text'],
  ['hash', 'text'],
];

export const AUDIT_CSV_HEADER = ['type', ...AUDIT_CSV_FIELDS.map(([field]) => field), 'extra'] as const;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The cell of a value its column can hold as it is, else undefined (the value goes to `extra`). */
function cellOf(kind: Kind, value: unknown): string | undefined {
  if (kind === 'int')
    return Number.isSafeInteger(value) && (value as number) >= 0 ? String(value) : undefined;
  if (kind === 'text')
    return typeof value === 'string' && value !== '' && !looksLikeFormula(value) ? value : undefined;
  return isPlainObject(value) ? canonicalJson(value) : undefined;
}

/** An entry's CSV cells, `type` first (`entry`). */
export function auditCsvCells(entry: Record<string, unknown>): string[] {
  const extra: Record<string, unknown> = {};
  const cells = AUDIT_CSV_FIELDS.map(([field, kind]) => {
    const value = entry[field];
    if (value === undefined) return '';
    const cell = cellOf(kind, value);
    if (cell === undefined) extra[field] = value;
    return cell ?? '';
  });
  const columns = new Set(AUDIT_CSV_FIELDS.map(([field]) => field));
  for (const [field, value] of Object.entries(entry))
    if (!columns.has(field) && value !== undefined) extra[field] = value;
  return ['entry', ...cells, Object.keys(extra).length > 0 ? canonicalJson(extra) : ''];
}

/** The entry a CSV row holds, or why the row cannot be read as one. */
export function auditEntryOfCsv(
  header: readonly string[],
  row: readonly string[],
): { entry: Record<string, unknown> } | { problem: string } {
  if (header.length !== AUDIT_CSV_HEADER.length || header.some((name, i) => name !== AUDIT_CSV_HEADER[i]))
    return { problem: `the header is not the audit export's (${AUDIT_CSV_HEADER.join(',')})` };
  if (row.length !== header.length) return { problem: `${row.length} cells where ${header.length} belong` };
  const entry: Record<string, unknown> = {};
  for (const [index, [field, kind]] of AUDIT_CSV_FIELDS.entries()) {
    const cell = row[index + 1];
    if (cell === '') continue;
    if (kind === 'int') {
      if (!/^\d{1,15}$/.test(cell)) return { problem: `${field} is not a whole number` };
      entry[field] = Number(cell);
    } else if (kind === 'json') {
      try {
        entry[field] = JSON.parse(cell);
      } catch {
        return { problem: `${field} is not JSON` };
      }
    } else entry[field] = cell;
  }
  const extraCell = row[row.length - 1];
  if (extraCell !== '') {
    let extra: unknown;
    try {
      extra = JSON.parse(extraCell);
    } catch {
      return { problem: 'extra is not JSON' };
    }
    if (!isPlainObject(extra)) return { problem: 'extra is not a JSON object' };
    for (const [field, value] of Object.entries(extra)) {
      if (field in entry) return { problem: `${field} is both in its column and in extra` };
      entry[field] = value;
    }
  }
  return { entry };
}

/** The neighbour of the exported run just before it: the last entry before `from`. */
export interface EntryBefore {
  seq: number;
  at: string;
  hash: string;
}

/** The neighbour just after it: the first entry at or after `to` (up to the chain head). */
export interface EntryAfter {
  seq: number;
  at: string;
  prev_hash: string;
}

/**
 * The last record of an audit trail export. A verifier checks with it that the entries form one
 * unbroken run of the chain (seqs contiguous from `first_seq` to `last_seq`, each `prev_hash` the
 * hash before it, every hash recomputing, the first naming `prev_hash_before_first`, the last
 * giving `head_hash`) and that the run is the whole period: the entry before it (`entry_before`)
 * is earlier than `from` and the entry after it (`entry_after`) is at or after `to`, or there is
 * none because the run reaches the chain head when the export began (`chain_head_seq`).
 */
export interface AuditExportEnd {
  type: 'export_end';
  export: 'audit';
  tenant_id: string;
  from: string;
  to: string;
  format: 'ndjson' | 'csv';
  exported_at: string;
  count: number;
  first_seq: number | null;
  last_seq: number | null;
  /** The hash the first entry names as `prev_hash` (64 zeros for entry 1); null when none is exported. */
  prev_hash_before_first: string | null;
  /** The last exported entry's hash; null when none is exported. */
  head_hash: string | null;
  entry_before: EntryBefore | null;
  entry_after: EntryAfter | null;
  /** The trail's last entry when the export began: the export stops there. */
  chain_head_seq: number;
  chain_head_hash: string | null;
  /**
   * The newest head the chain writer published outside the table (lib/audit/anchor-store.ts), as
   * it stood when the export ended; null when none was. Keep it: `verify-audit --expect-count
   * <seq> --expect-head <hash>` later proves the trail still reaches it unchanged.
   */
  anchor: AuditAnchor | null;
  /**
   * False when the export stopped early: at the function's time limit (`detail` says where to
   * resume), or because the person exporting lost access part way (disabled, key rotated or revoked).
   */
  complete: boolean;
  /** Why an incomplete export stopped, e.g. `the user was disabled`; absent when complete. */
  reason?: string;
  detail?: string;
}
