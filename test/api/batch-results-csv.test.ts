/**
 * A batch's results as CSV (issue 39, item 4): the match columns a compliance team works from, and
 * no cell a spreadsheet would run as a formula (OWASP's CSV injection rule), read back with a real
 * CSV parser as a spreadsheet would.
 */
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { getServices } from '../../lib/runtime/services.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { useLocalStack } from '../support/api-client.ts';
import { readEvents } from '../support/sse.ts';

const local = useLocalStack();

/** Cells that would run in Excel, LibreOffice or Google Sheets if written as they are. */
const FORMULAS = [
  '=HYPERLINK("http://example.invalid/x","Jane Doe")',
  '+Jane Formula',
  '@SUM(Jane Doe)',
  '-Jane Minus',
];

describe('GET /batch/{id}/results?format=csv', { timeout: 120_000 }, () => {
  it('has the best match columns, and every formula cell starts with a single quote', async () => {
    const { admin } = await createTenant(getServices().table, { name: 'Results CSV', plan: 'enterprise' });
    const subjects = [
      { name: 'Vladimir Putin', dob: '1952-10-07', nationality: 'Russian' },
      ...FORMULAS.map((name) => ({ name, location: '=cmd|calc' })),
    ];
    const stream = await fetch(`${local.stack.url}/batch/stream`, {
      method: 'POST',
      headers: { 'x-api-key': admin.api_key, 'content-type': 'application/json' },
      body: JSON.stringify({ subjects, types: 'sanctions,pep' }),
    });
    expect(stream.status).toBe(200);
    const events = await readEvents(stream);
    const batchId = String(events[0].data.batch_id);

    const response = await fetch(`${local.stack.url}/batch/${batchId}/results?format=csv`, {
      headers: { 'x-api-key': admin.api_key },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(response.headers.get('content-disposition')).toContain(`${batchId}-results.csv`);
    const text = await response.text();
    const [header, ...rows] = parse(text) as string[][];
    expect(header).toEqual(
      expect.arrayContaining([
        'row',
        'name',
        'dob',
        'screen_id',
        'risk_level',
        'best_match_name',
        'best_match_list',
        'best_match_score',
        'best_match_dob',
      ]),
    );
    const byColumn = rows.map((cells) => Object.fromEntries(header.map((name, i) => [name, cells[i]])));
    expect(byColumn.map((row) => row.row)).toEqual(['1', '2', '3', '4', '5']);

    const putin = byColumn[0];
    expect(putin).toMatchObject({ name: 'Vladimir Putin', dob: '1952-10-07', status: 'screened' });
    expect(putin.best_match_name).toMatch(/PUTIN/i);
    expect(putin.best_match_list).toMatch(/^[a-z_]+$/);
    expect(Number(putin.best_match_score)).toBeGreaterThan(0.8);
    expect(putin.best_match_dob).toContain('1952-10-07');
    expect(['HIGH', 'CRITICAL']).toContain(putin.risk_level);

    // Every cell of every row: nothing a spreadsheet would evaluate.
    for (const cells of rows) for (const cell of cells) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    expect(byColumn.slice(1).map((row) => row.name)).toEqual(FORMULAS.map((name) => `'${name}`));
    for (const row of byColumn.slice(1)) expect(row.location).toBe("'=cmd|calc");

    // The NDJSON rows keep the names exactly as given (JSON is not a spreadsheet).
    const ndjson = await fetch(`${local.stack.url}/batch/${batchId}/results`, {
      headers: { 'x-api-key': admin.api_key, accept: 'application/x-ndjson' },
    });
    const lines = (await ndjson.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.slice(1).map((line) => line.name)).toEqual(FORMULAS);
  });
});
