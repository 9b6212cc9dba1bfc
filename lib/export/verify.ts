import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import { ChainVerifier, GENESIS_HASH } from '../audit/chain.ts';
import { type AuditExportEnd, auditEntryOfCsv } from '../audit/export-format.ts';
import { SCREENS_CSV_HEADER, type ScreensExportEnd, screenCsvCells } from '../screening/export.ts';

/**
 * Verifies an export file (GET /audit/export, GET /screens/export) on its own: no store, no
 * network, only the file and the chain's rule (lib/audit/chain.ts). It reads the file once, a line
 * or row at a time, in bounded memory.
 *
 * An audit export is intact when its entries form one unbroken run of the chain (seqs contiguous,
 * each entry's prev_hash the hash of the one before, every hash recomputing from its content) that
 * agrees with its export_end record: the count, first and last seq, the hash before the first and
 * the head hash; the entry before the run is before `from` and the entry after it is at or after
 * `to` (or the run reaches the chain head), so nothing of the period was left out.
 *
 * A screens export is intact when its records give the digest and count of its export_end record,
 * in ascending screen id order, and each CSV row's plain columns agree with its record.
 */

export type ExportVerdict =
  | {
      ok: true;
      export: 'audit' | 'screens';
      format: 'ndjson' | 'csv';
      count: number;
      /** Audit: the last entry's hash. */
      head_hash?: string | null;
      /** Screens: the records' digest. */
      sha256?: string;
      detail: string;
    }
  | { ok: false; at: string; detail: string };

interface FileRecord {
  /** Where in the file: `line 5`, or `row 5 (line 7)`. */
  where: string;
  /** `entry`, `screen`, `export_end`, `export_error`, or `invalid` with the problem. */
  type: string;
  value: Record<string, unknown>;
  /** The exact text of a screen record (its canonical JSON), for the digest. */
  text?: string;
  problem?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

async function* ndjsonRecords(path: string): AsyncGenerator<FileRecord> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) {
    number += 1;
    const where = `line ${number}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      yield { where, type: 'invalid', value: {}, problem: line === '' ? 'is empty' : 'is not JSON' };
      continue;
    }
    if (!isObject(value)) {
      yield { where, type: 'invalid', value: {}, problem: 'is not a JSON object' };
      continue;
    }
    const type = typeof value.type === 'string' ? value.type : 'screen_id' in value ? 'screen' : 'entry';
    yield { where, type, value, text: line };
  }
}

async function* csvRecords(path: string): AsyncGenerator<FileRecord> {
  const parser = createReadStream(path).pipe(
    parse({ relax_column_count: true, info: true, bom: true, skip_empty_lines: false }),
  );
  let header: string[] | undefined;
  let number = 0;
  for await (const { record, info } of parser as AsyncIterable<{
    record: string[];
    info: { lines: number };
  }>) {
    number += 1;
    const where = `row ${number} (line ${info.lines})`;
    if (!header) {
      header = record;
      continue;
    }
    const [type] = record;
    if (type === 'export_end' || type === 'export_error') {
      let value: unknown;
      try {
        value = JSON.parse(record[1] ?? '');
      } catch {
        value = undefined;
      }
      if (record.length !== 2 || !isObject(value)) {
        yield {
          where,
          type: 'invalid',
          value: {},
          problem: `is not an ${type} record (its type, then its JSON)`,
        };
      } else yield { where, type, value };
    } else if (type === 'entry') {
      const read = auditEntryOfCsv(header, record);
      if ('problem' in read) yield { where, type: 'invalid', value: {}, problem: read.problem };
      else yield { where, type, value: read.entry };
    } else if (type === 'screen') {
      if (
        header.length !== SCREENS_CSV_HEADER.length ||
        header.some((name, i) => name !== SCREENS_CSV_HEADER[i])
      ) {
        yield { where, type: 'invalid', value: {}, problem: "the header is not the screens export's" };
        continue;
      }
      const text = record[record.length - 1] ?? '';
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        yield { where, type: 'invalid', value: {}, problem: 'its record is not JSON' };
        continue;
      }
      if (!isObject(value) || record.length !== header.length) {
        yield { where, type: 'invalid', value: {}, problem: `is not a screen row of ${header.length} cells` };
        continue;
      }
      let expected: string[] | undefined;
      try {
        expected = screenCsvCells(value as never, text);
      } catch {
        expected = undefined;
      }
      const differing = header.find((_, i) => expected?.[i] !== record[i]);
      if (differing) {
        yield {
          where,
          type: 'invalid',
          value: {},
          problem: `its ${differing} cell does not agree with its record`,
        };
        continue;
      }
      yield { where, type, value, text };
    } else
      yield {
        where,
        type: 'invalid',
        value: {},
        problem: `has the type "${type}", not entry, screen or export_end`,
      };
  }
}

/** NDJSON or CSV, from the file's first bytes: a CSV export starts with its header `type,...`. */
async function formatOf(path: string): Promise<'ndjson' | 'csv'> {
  const file = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(5), 0, 5, 0);
    return buffer.subarray(0, bytesRead).toString('utf8') === 'type,' ? 'csv' : 'ndjson';
  } finally {
    await file.close();
  }
}

/** `SCR-20260301-000012` → [20260301, 12]: screens sort by day, then by number. */
const screenOrder = (id: unknown): [number, number] | undefined => {
  const match = typeof id === 'string' ? /^SCR-(\d{8})-(\d{6,12})$/.exec(id) : null;
  return match ? [Number(match[1]), Number(match[2])] : undefined;
};

/** Verifies an export file; never throws for what the file holds (an unreadable file does throw). */
export async function verifyExportFile(path: string): Promise<ExportVerdict> {
  const format = await formatOf(path);
  const fail = (at: string, detail: string): ExportVerdict => ({ ok: false, at, detail });

  let kind: 'audit' | 'screens' | undefined;
  let count = 0;
  let end: { where: string; value: Record<string, unknown> } | undefined;
  // Audit: the chain, checked as the entries come.
  let chain: ChainVerifier | undefined;
  let firstEntry: { seq: number; prev_hash: string } | undefined;
  let brokenAt: string | undefined;
  let firstAt: string | undefined;
  const tenants = new Set<unknown>();
  // Screens: the digest and the order.
  const digest = createHash('sha256');
  let previousScreen: { where: string; order: [number, number]; id: string } | undefined;

  for await (const record of format === 'csv' ? csvRecords(path) : ndjsonRecords(path)) {
    if (end)
      return fail(record.where, `follows the export_end record (${end.where}): something was appended`);
    if (record.type === 'invalid') return fail(record.where, `the record ${record.problem}`);
    if (record.type === 'export_error')
      return fail(record.where, `the service reported the export failed: ${String(record.value.detail)}`);
    if (record.type === 'export_end') {
      end = { where: record.where, value: record.value };
      continue;
    }
    const recordKind = record.type === 'entry' ? 'audit' : record.type === 'screen' ? 'screens' : undefined;
    if (!recordKind) return fail(record.where, `has the type "${record.type}", not a record of an export`);
    if (kind && recordKind !== kind)
      return fail(record.where, `is a ${recordKind} record in a ${kind} export`);
    kind = recordKind;
    count += 1;
    if (kind === 'audit') {
      const entry = record.value;
      tenants.add(entry.tenant_id);
      if (!chain) {
        // The run starts where it starts; its anchor is checked against export_end below.
        const start = { seq: Number(entry.seq), prev_hash: String(entry.prev_hash) };
        firstEntry = start;
        firstAt = record.where;
        chain = new ChainVerifier(start);
      }
      // Pushed on after a break too: a removed entry found later is reported as moved.
      if (!chain.push(entry) && !brokenAt) brokenAt = record.where;
    } else {
      const order = screenOrder(record.value.screen_id);
      if (!order) return fail(record.where, 'the record has no valid screen_id');
      if (
        previousScreen &&
        (order[0] < previousScreen.order[0] ||
          (order[0] === previousScreen.order[0] && order[1] <= previousScreen.order[1]))
      ) {
        return fail(
          record.where,
          `screen ${String(record.value.screen_id)} comes after ${previousScreen.id} (${previousScreen.where}); screens are exported in ascending id order, so records were moved or repeated`,
        );
      }
      previousScreen = { where: record.where, order, id: String(record.value.screen_id) };
      digest.update(`${record.text}\n`, 'utf8');
    }
  }

  // The chain's own break is the most precise finding: reported before any count or trailer check.
  if (chain) {
    const verdict = chain.finish();
    if (!verdict.ok) {
      const startsElsewhere =
        end && typeof end.value.first_seq === 'number' && end.value.first_seq !== firstEntry?.seq;
      if (startsElsewhere) {
        return fail(
          firstAt ?? 'line 1',
          `the first entry is ${firstEntry?.seq}, but the export's run starts at entry ${String(end?.value.first_seq)}: entries were moved or removed`,
        );
      }
      return fail(brokenAt ?? 'end of file', verdict.detail);
    }
  }
  if (!end) {
    return fail(
      'end of file',
      `no export_end record after ${count} records: the file is cut short (or its last record was removed)`,
    );
  }
  const exportKind = end.value.export;
  if (exportKind !== 'audit' && exportKind !== 'screens')
    return fail(end.where, 'the export_end record names no export (audit or screens)');
  if (kind && kind !== exportKind)
    return fail(
      end.where,
      `the export_end record is a ${exportKind} export's, the records a ${kind} export's`,
    );
  if (end.value.count !== count) {
    return fail(
      end.where,
      `the file holds ${count} records, its export_end record says ${String(end.value.count)}: records were removed or added`,
    );
  }
  if (end.value.complete !== true) {
    return fail(
      end.where,
      `the export is incomplete: ${String(end.value.detail ?? 'it says it stopped early')}`,
    );
  }
  return exportKind === 'audit'
    ? auditVerdict(format, end, chain, firstEntry, tenants)
    : screensVerdict(format, end, count, digest.digest('hex'));
}

function auditVerdict(
  format: 'ndjson' | 'csv',
  endRecord: { where: string; value: Record<string, unknown> },
  chain: ChainVerifier | undefined,
  firstEntry: { seq: number; prev_hash: string } | undefined,
  tenants: Set<unknown>,
): ExportVerdict {
  const end = endRecord.value as unknown as AuditExportEnd;
  const at = endRecord.where;
  const fail = (where: string, detail: string): ExportVerdict => ({ ok: false, at: where, detail });
  if (chain) {
    const verdict = chain.finish();
    if (!verdict.ok) return fail(at, verdict.detail);
    if (tenants.size !== 1 || !tenants.has(end.tenant_id))
      return fail(at, `the entries are not all of tenant ${end.tenant_id}`);
    if (end.first_seq !== firstEntry?.seq || end.last_seq !== verdict.head_seq)
      return fail(
        at,
        `the entries run from ${firstEntry?.seq} to ${verdict.head_seq}; export_end says ${end.first_seq} to ${end.last_seq}`,
      );
    if (end.head_hash !== verdict.head_hash)
      return fail(at, `the last entry's hash is ${verdict.head_hash}; export_end says ${end.head_hash}`);
    if (end.prev_hash_before_first !== firstEntry.prev_hash)
      return fail(
        at,
        `the first entry names ${firstEntry.prev_hash} before it; export_end says ${end.prev_hash_before_first}`,
      );
  }
  // The run's neighbours: the period was exported whole.
  const from = Date.parse(end.from);
  const to = Date.parse(end.to);
  const lastSeq = end.last_seq ?? end.entry_before?.seq ?? 0;
  const lastHash = end.head_hash ?? end.entry_before?.hash ?? GENESIS_HASH;
  const before = end.entry_before;
  if (before) {
    if (!(Date.parse(before.at) < from))
      return fail(
        at,
        `the entry before the run (${before.seq}, at ${before.at}) is not before from (${end.from}): the period's start was left out`,
      );
    if (
      end.first_seq !== null &&
      (before.seq !== end.first_seq - 1 || before.hash !== end.prev_hash_before_first)
    )
      return fail(at, `the entry before the run (${before.seq}) is not the one the first entry follows`);
  } else if (
    (end.first_seq ?? 1) !== 1 ||
    (end.first_seq === 1 && end.prev_hash_before_first !== GENESIS_HASH)
  ) {
    return fail(
      at,
      `the run starts at entry ${end.first_seq} and names no entry before it: the period's start cannot be shown whole`,
    );
  }
  const after = end.entry_after;
  if (after) {
    if (!(Date.parse(after.at) >= to))
      return fail(
        at,
        `the entry after the run (${after.seq}, at ${after.at}) is before to (${end.to}): the period's end was left out`,
      );
    if (after.seq !== lastSeq + 1 || after.prev_hash !== lastHash)
      return fail(at, `the entry after the run (${after.seq}) does not follow its last entry (${lastSeq})`);
  } else if (lastSeq !== end.chain_head_seq) {
    return fail(
      at,
      `the run ends at entry ${lastSeq}, before the chain head ${end.chain_head_seq}, and names no entry after it: the period's end was left out`,
    );
  }
  if (end.chain_head_seq === lastSeq && end.chain_head_hash !== (lastSeq === 0 ? null : lastHash))
    return fail(at, `the run reaches the chain head ${lastSeq} but its hash is not the chain head hash`);
  return {
    ok: true,
    export: 'audit',
    format,
    count: end.count,
    head_hash: end.head_hash,
    detail:
      end.count === 0
        ? `OK: audit export of tenant ${end.tenant_id}, ${end.from} to ${end.to}: no entries in the period (chain head ${end.chain_head_seq})`
        : `OK: audit export of tenant ${end.tenant_id}, ${end.from} to ${end.to}: ${end.count} entries, seq ${end.first_seq} to ${end.last_seq}, head hash ${end.head_hash} (chain head when exported: seq ${end.chain_head_seq}, ${end.chain_head_hash})`,
  };
}

function screensVerdict(
  format: 'ndjson' | 'csv',
  endRecord: { where: string; value: Record<string, unknown> },
  count: number,
  sha256: string,
): ExportVerdict {
  const end = endRecord.value as unknown as ScreensExportEnd;
  if (end.sha256 !== sha256) {
    return {
      ok: false,
      at: endRecord.where,
      detail: `the records give the digest ${sha256}; export_end says ${end.sha256}: a record was changed`,
    };
  }
  return {
    ok: true,
    export: 'screens',
    format,
    count,
    sha256,
    detail: `OK: screens export of tenant ${end.tenant_id}, ${end.from} to ${end.to}: ${count} screens, sha256 ${sha256}`,
  };
}
