import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyExportFile } from '../../lib/export/verify.ts';
import { demoKey, madeUpName, useLocalStack } from '../support/api-client.ts';

/**
 * GET /audit/export and GET /screens/export (issue 19, item 4), through the local stack's stream
 * server as a client sees them: a real trail made by API calls exported as NDJSON and CSV, checked
 * by the verifier with nothing but the file; an edited, removed or swapped line is reported.
 */
const local = useLocalStack();

const TENANT = 'tdemoenterprise';
const admin = () => demoKey(local.stack, TENANT, 'admin').api_key;
const analyst = () => demoKey(local.stack, TENANT, 'analyst').api_key;
const otherAdmin = () => demoKey(local.stack, 'tdemostarter', 'admin').api_key;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'export-test-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Download {
  status: number;
  contentType: string | null;
  text: string;
}

async function download(path: string, key: string, headers: Record<string, string> = {}): Promise<Download> {
  // The export reads the chain: let the chain writer link what the test wrote first.
  await local.stack.auditChain.settle();
  const response = await fetch(`${local.stack.url}${path}`, { headers: { 'x-api-key': key, ...headers } });
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    text: await response.text(),
  };
}

/**
 * `npx tsx scripts/verify-export.ts FILE`, as an operator runs it, without blocking this process:
 * the local stack serving the test runs here, and a server kept from running for the seconds the
 * child takes closes its idle connections late, as the next request reuses one (ECONNRESET).
 */
async function verifyExport(file: string): Promise<{ status: number | null; stdout: string }> {
  try {
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'scripts/verify-export.ts', file], {
      encoding: 'utf8',
    });
    return { status: 0, stdout };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string };
    return { status: typeof failed.code === 'number' ? failed.code : null, stdout: failed.stdout ?? '' };
  }
}

let files = 0;
function saved(text: string, extension = 'ndjson'): string {
  files += 1;
  const path = join(dir, `export-${files}.${extension}`);
  writeFileSync(path, text);
  return path;
}

const linesOf = (text: string) => text.split('\n').filter(Boolean);
const endOf = (text: string) => JSON.parse(linesOf(text).at(-1) ?? '{}');

/** A trail of real decisions: a screen, a decision asking for approval, the sign-off, a client. */
async function makeTrail(): Promise<string> {
  const screen = (await local.api.post('/screen', analyst(), { name: madeUpName(), dob: '1970-01-01' })).body;
  const decided = await local.api.post(`/screens/${screen.screen_id}/dispose`, analyst(), {
    disposition: 'false_positive',
    note: 'different person',
    approval_requested: true,
  });
  expect(decided.status).toBe(200);
  const approved = await local.api.post(`/screens/${screen.screen_id}/dispose`, admin(), {
    disposition: 'approved',
    approves_version: decided.body.disposition.decision_version,
  });
  expect(approved.status).toBe(200);
  expect((await local.api.post('/clients', analyst(), { name: madeUpName() })).status).toBe(201);
  return screen.screen_id;
}

describe('GET /audit/export', () => {
  it('streams the period’s run of the chain as NDJSON; the verifier accepts it and names its head hash', async () => {
    const screenId = await makeTrail();
    const exported = await download('/audit/export', admin());

    expect(exported.status).toBe(200);
    expect(exported.contentType).toMatch(/^application\/x-ndjson/);
    const lines = linesOf(exported.text);
    const entries = lines.slice(0, -1).map((line) => JSON.parse(line));
    const end = endOf(exported.text);
    expect(end).toMatchObject({ type: 'export_end', export: 'audit', tenant_id: TENANT, complete: true });
    expect(end.count).toBe(entries.length);
    expect(entries.map((e) => e.action)).toEqual(
      expect.arrayContaining(['screen.dispose', 'screen.approve', 'client.register']),
    );
    expect(entries.some((e) => e.target.screen_id === screenId)).toBe(true);
    // The export is itself on the trail, written before it started.
    expect(entries.at(-1)).toMatchObject({ action: 'audit.export', outcome: 'started' });
    expect(end.first_seq).toBe(1);
    expect(end.last_seq).toBe(entries.at(-1).seq);
    expect(end.head_hash).toBe(entries.at(-1).hash);
    expect(end.chain_head_seq).toBe(end.last_seq);
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));

    const verdict = await verifyExportFile(saved(exported.text));
    expect(verdict).toMatchObject({
      ok: true,
      export: 'audit',
      count: entries.length,
      head_hash: end.head_hash,
    });

    // ...and the export's outcome is recorded after it, with the head hash it ended with.
    const trail = (await local.api.get('/audit?limit=5', admin())).body.entries;
    const done = trail.find(
      (e: { action: string; outcome: string }) => e.action === 'audit.export' && e.outcome === 'done',
    );
    expect(done.details).toMatchObject({ count: entries.length, head_hash: end.head_hash, complete: true });
  });

  it('as CSV (Accept or format=csv; the query wins): one row per entry, the verifier rebuilds every hash', async () => {
    await makeTrail();
    const byAccept = await download('/audit/export', admin(), { accept: 'text/csv' });
    expect(byAccept.status).toBe(200);
    expect(byAccept.contentType).toMatch(/^text\/csv/);
    expect(byAccept.text.startsWith('type,seq,at,')).toBe(true);
    const verdict = await verifyExportFile(saved(byAccept.text, 'csv'));
    expect(verdict).toMatchObject({ ok: true, export: 'audit', format: 'csv' });

    const byQuery = await download('/audit/export?format=ndjson', admin(), { accept: 'text/csv' });
    expect(byQuery.contentType).toMatch(/^application\/x-ndjson/);
  });

  it('reports an edited, a removed and two swapped lines, naming the line and the entry', async () => {
    await makeTrail();
    const exported = await download('/audit/export', admin());
    const lines = linesOf(exported.text);
    const middle = Math.floor((lines.length - 1) / 2);

    const edited = [...lines];
    const entry = JSON.parse(edited[middle]);
    entry.actor.user_id = 'someone-else';
    edited[middle] = JSON.stringify(entry);
    expect(await verifyExportFile(saved(`${edited.join('\n')}\n`))).toMatchObject({
      ok: false,
      at: `line ${middle + 1}`,
      detail: expect.stringContaining(`entry ${middle + 1} was changed after it was written`),
    });

    const removed = lines.filter((_, i) => i !== middle);
    expect(await verifyExportFile(saved(`${removed.join('\n')}\n`))).toMatchObject({
      ok: false,
      at: `line ${middle + 1}`,
      detail: expect.stringContaining(`entry ${middle + 1} is missing`),
    });

    const swapped = [...lines];
    [swapped[middle], swapped[middle + 1]] = [swapped[middle + 1], swapped[middle]];
    expect(await verifyExportFile(saved(`${swapped.join('\n')}\n`))).toMatchObject({
      ok: false,
      at: `line ${middle + 1}`,
      detail: expect.stringContaining(`entry ${middle + 1} is out of order`),
    });

    // The export_end record's count and head hash are checked too: a dropped last entry shows.
    const lastDropped = [...lines.slice(0, -2), lines.at(-1)];
    expect(await verifyExportFile(saved(`${lastDropped.join('\n')}\n`))).toMatchObject({ ok: false });
    // A file cut short has no export_end.
    expect(await verifyExportFile(saved(`${lines.slice(0, -1).join('\n')}\n`))).toMatchObject({
      ok: false,
      detail: expect.stringContaining('no export_end record'),
    });
  });

  it('reports an edited CSV cell', async () => {
    const exported = await download('/audit/export?format=csv', admin());
    const rows = exported.text.split('\r\n');
    rows[2] = rows[2].replace(/,(screen|client|user|lists|tenant|audit)\.[a-z-]+,/, ',user.add,');
    const verdict = await verifyExportFile(saved(rows.join('\r\n'), 'csv'));
    expect(verdict).toMatchObject({ ok: false, detail: expect.stringContaining('entry 2 was changed') });
  });

  it('splits into periods that join: the second starts with the hash the first ends with, nothing between', async () => {
    await makeTrail();
    const all = linesOf((await download('/audit/export', admin())).text)
      .slice(0, -1)
      .map((l) => JSON.parse(l));
    // A boundary between two entries taken a moment apart.
    const cut = all.findIndex((e, i) => i > 0 && e.at > all[i - 1].at && i > all.length / 3);
    const boundary = all[cut].at;
    const first = await download(`/audit/export?from=${all[0].at.slice(0, 10)}&to=${boundary}`, admin());
    const second = await download(`/audit/export?from=${boundary}`, admin());
    const [a, b] = [endOf(first.text), endOf(second.text)];

    expect(a.last_seq).toBe(all[cut - 1].seq);
    expect(b.first_seq).toBe(all[cut].seq);
    expect(b.prev_hash_before_first).toBe(a.head_hash);
    expect(a.entry_after).toMatchObject({ seq: b.first_seq, at: boundary });
    expect(b.entry_before).toMatchObject({ seq: a.last_seq, hash: a.head_hash });
    for (const part of [first, second]) expect((await verifyExportFile(saved(part.text))).ok).toBe(true);

    // A period before the trail began: no entries, and the verifier sees the first entry is after it.
    const before = await download('/audit/export?from=2001-01-01&to=2001-12-31', admin());
    expect(endOf(before.text)).toMatchObject({ count: 0, entry_before: null, entry_after: { seq: 1 } });
    expect(await verifyExportFile(saved(before.text))).toMatchObject({ ok: true, count: 0 });
  });

  it('the npm run verify-export CLI: OK with the count and head hash (exit 0), the broken line (exit 1)', async () => {
    const exported = await download('/audit/export', admin());
    const end = endOf(exported.text);
    const ok = await verifyExport(saved(exported.text));
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain(`OK: audit export of tenant ${TENANT}`);
    expect(ok.stdout).toContain(`${end.count} entries`);
    expect(ok.stdout).toContain(`head hash ${end.head_hash}`);

    const lines = linesOf(exported.text);
    const broken = await verifyExport(saved(`${[lines[1], lines[0], ...lines.slice(2)].join('\n')}\n`));
    expect(broken.status).toBe(1);
    expect(broken.stdout).toContain('BROKEN at line 1: the first entry is 2');
  });

  it('is for admins: an analyst gets 403 and nothing is recorded', async () => {
    const before = (await local.api.get('/audit?limit=1', admin())).body.entries[0].seq;
    const refused = await download('/audit/export', analyst());
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text).detail).toMatch(/requires the admin role/);
    expect((await local.api.get('/audit?limit=1', admin())).body.entries[0].seq).toBe(before);
  });

  it('refuses a bad period or format with 400 naming it, before anything is read or recorded', async () => {
    const cases: [string, RegExp][] = [
      ['from=2026-03-01&to=2026-02-01', /from: must be before to/],
      ['to=2026-02-30', /to: must be a date/],
      ['from=yesterday', /from: must be a date/],
      ['from=2026-03-01T10:00:00', /from: must be a date .* with its offset/],
      ['from=2024-01-01&to=2026-01-01', /to: the period may span at most 366 days/],
      ['format=xml', /format: must be ndjson or csv/],
    ];
    for (const [query, detail] of cases) {
      const refused = await download(`/audit/export?${query}`, admin());
      expect(refused.status, query).toBe(400);
      expect(JSON.parse(refused.text).detail, query).toMatch(detail);
    }
  });

  it('another tenant’s export holds its own entries only', async () => {
    const screenId = await makeTrail();
    const other = await download('/audit/export', otherAdmin());
    expect(other.status).toBe(200);
    const entries = linesOf(other.text)
      .slice(0, -1)
      .map((l) => JSON.parse(l));
    // At least its own export, recorded before it began.
    expect(entries.at(-1)).toMatchObject({ action: 'audit.export', actor: { role: 'admin' } });
    expect(entries.every((e) => e.tenant_id === 'tdemostarter')).toBe(true);
    expect(other.text).not.toContain(screenId);
    expect(endOf(other.text)).toMatchObject({ tenant_id: 'tdemostarter', first_seq: 1 });
    expect((await verifyExportFile(saved(other.text))).ok).toBe(true);
  });
});

describe('GET /screens/export', () => {
  it('streams the period’s screens with their history and receipts, NDJSON and CSV with one digest', async () => {
    const screenId = await makeTrail();
    const ndjson = await download('/screens/export', admin());
    expect(ndjson.status).toBe(200);
    expect(ndjson.contentType).toMatch(/^application\/x-ndjson/);
    const records = linesOf(ndjson.text)
      .slice(0, -1)
      .map((l) => JSON.parse(l));
    const mine = records.find((r) => r.screen_id === screenId);
    expect(mine.history.map((h: { disposition: string }) => h.disposition)).toEqual([
      'false_positive',
      'approved',
    ]);
    expect(mine.disposition).toMatchObject({ disposition: 'approved' });
    expect(mine.receipt.snapshot.version).toEqual(expect.any(String));
    expect(mine.subject.dob).toBe('1970-01-01');
    const end = endOf(ndjson.text);
    expect(end).toMatchObject({
      type: 'export_end',
      export: 'screens',
      count: records.length,
      complete: true,
    });
    expect(await verifyExportFile(saved(ndjson.text))).toMatchObject({ ok: true, sha256: end.sha256 });

    const csv = await download('/screens/export?format=csv', admin());
    expect(csv.contentType).toMatch(/^text\/csv/);
    const csvVerdict = await verifyExportFile(saved(csv.text, 'csv'));
    expect(csvVerdict).toMatchObject({ ok: true, format: 'csv', count: records.length, sha256: end.sha256 });

    // The digest the file ends with is on the chained trail.
    const trail = (await local.api.get('/audit?limit=5', admin())).body.entries;
    const done = trail.find(
      (e: { action: string; outcome: string }) => e.action === 'screens.export' && e.outcome === 'done',
    );
    expect(done.details).toMatchObject({ count: records.length, sha256: end.sha256 });
  });

  it('reports an edited record, an edited CSV cell, and swapped records', async () => {
    await makeTrail();
    await makeTrail();
    const ndjson = await download('/screens/export', admin());
    const lines = linesOf(ndjson.text);
    const edited = [...lines];
    edited[0] = edited[0].replace('"risk_level":"', '"risk_level":"X');
    expect(await verifyExportFile(saved(`${edited.join('\n')}\n`))).toMatchObject({
      ok: false,
      detail: expect.stringContaining('a record was changed'),
    });
    const swapped = [lines[1], lines[0], ...lines.slice(2)];
    expect(await verifyExportFile(saved(`${swapped.join('\n')}\n`))).toMatchObject({
      ok: false,
      at: 'line 2',
    });
    const removed = [lines[0], ...lines.slice(2)];
    expect(await verifyExportFile(saved(`${removed.join('\n')}\n`))).toMatchObject({
      ok: false,
      detail: expect.stringContaining('records were removed or added'),
    });

    const csv = (await download('/screens/export?format=csv', admin())).text;
    const cell = csv.replace(/\r\nscreen,(SCR-\d{8}-\d+),/, '\r\nscreen,SCR-20000101-000001,');
    expect(await verifyExportFile(saved(cell, 'csv'))).toMatchObject({
      ok: false,
      detail: expect.stringContaining('screen_id cell does not agree with its record'),
    });
  });

  it('never holds another tenant’s screens; analysts get 403', async () => {
    const screenId = await makeTrail();
    const other = await download('/screens/export', otherAdmin());
    expect(other.status).toBe(200);
    expect(other.text).not.toContain(screenId);
    expect((await verifyExportFile(saved(other.text))).ok).toBe(true);
    const refused = await download('/screens/export', analyst());
    expect(refused.status).toBe(403);
  });

  it('takes the period by screened_at: a period that ended yesterday holds none of today’s screens', async () => {
    const screenId = await makeTrail();
    const today = new Date().toISOString().slice(0, 10);
    const past = await download(`/screens/export?to=${today}T00:00:00Z`, admin());
    expect(past.text).not.toContain(screenId);
    expect(endOf(past.text)).toMatchObject({ count: 0 });
    const text = readFileSync(saved((await download(`/screens/export?from=${today}`, admin())).text), 'utf8');
    expect(text).toContain(screenId);
  });
});
