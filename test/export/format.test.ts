import { describe, expect, it } from 'vitest';
import { entryHash, sealEntry } from '../../lib/audit/chain.ts';
import { AUDIT_CSV_HEADER, auditCsvCells, auditEntryOfCsv } from '../../lib/audit/export-format.ts';
import { exportFormat, exportPeriod } from '../../lib/common/export-query.ts';

describe('export period', () => {
  const now = new Date('2026-03-15T12:00:00.000Z');

  it('a date as `to` includes that whole day; `to` defaults to now and `from` to 30 days before it', () => {
    expect(exportPeriod({ from: '2026-01-01', to: '2026-01-31' }, now)).toEqual({
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-02-01T00:00:00.000Z',
    });
    expect(exportPeriod({}, now)).toEqual({
      from: '2026-02-13T12:00:00.000Z',
      to: '2026-03-15T12:00:00.000Z',
    });
    expect(exportPeriod({ from: '2026-03-01T10:30:00+01:00' }, now).from).toBe('2026-03-01T09:30:00.000Z');
  });

  it('refuses a period that is empty or longer than 366 days, naming the parameter', () => {
    expect(() => exportPeriod({ from: '2026-02-01', to: '2026-01-31' }, now)).toThrow(
      /^from: must be before to/,
    );
    expect(() => exportPeriod({ from: '2025-01-01', to: '2026-01-02' }, now)).toThrow(
      /^to: the period may span at most 366 days/,
    );
    expect(exportPeriod({ from: '2024-01-01', to: '2024-12-31' }, now).to).toBe('2025-01-01T00:00:00.000Z');
  });

  it('takes the format from the query first, then the Accept header by preference, else NDJSON', () => {
    expect(exportFormat('ndjson', 'text/csv')).toBe('ndjson');
    expect(exportFormat(undefined, 'text/csv')).toBe('csv');
    expect(exportFormat(undefined, 'text/csv;q=0.5, application/x-ndjson')).toBe('ndjson');
    expect(exportFormat(undefined, 'application/json, */*')).toBe('ndjson');
    expect(exportFormat(undefined, undefined)).toBe('ndjson');
  });
});

describe('audit CSV rows', () => {
  const entry = sealEntry(
    {
      seq: 7,
      entry_id: 'e7',
      tenant_id: 't1',
      action: 'screen.dispose',
      outcome: 'refused',
      started_seq: 6,
      // A refusal detail a spreadsheet would run, a null request id and an empty text.
      outcome_detail: '=HYPERLINK("http://x")',
      actor: { user_id: 'u1', role: 'analyst' },
      at: '2026-03-01T09:00:00.000Z',
      request_id: null,
      target: { screen_id: 'SCR-20260301-000001' },
      details: { note_sha256: 'ab', approval_requested: false, version: null },
      entity_note: '',
    },
    'f'.repeat(64),
  );

  it('give back the stored entry exactly (its hash recomputes), with no cell a formula', () => {
    const cells = auditCsvCells(entry);
    expect(cells).toHaveLength(AUDIT_CSV_HEADER.length);
    expect(cells.filter((cell) => /^[=+\-@\t\r]/.test(cell))).toEqual([]);
    const read = auditEntryOfCsv(AUDIT_CSV_HEADER, cells);
    expect(read).toEqual({ entry });
    expect(entryHash((read as { entry: typeof entry }).entry)).toBe(entry.hash);
  });

  it('name the problem with a row that is not one', () => {
    const cells = auditCsvCells(entry);
    expect(auditEntryOfCsv(AUDIT_CSV_HEADER, cells.slice(1))).toMatchObject({
      problem: expect.stringContaining('cells'),
    });
    const bad = [...cells];
    bad[1] = 'seven';
    expect(auditEntryOfCsv(AUDIT_CSV_HEADER, bad)).toEqual({ problem: 'seq is not a whole number' });
  });
});
