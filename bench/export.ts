/**
 * `npm run bench:export`: an audit trail of BENCH_ENTRIES (default 100,000) chained entries
 * exported over HTTP with bounded memory. The service runs as its own process (`npm start`'s
 * entry, infra/local/main.ts, on a temporary data directory); the bench seeds the entries straight
 * into the service's table (sealed with lib/audit/chain.ts, so they verify), then downloads
 * GET /audit/export as NDJSON and as CSV, streaming each to a file, verifies each file with the
 * verifier alone (lib/export/verify.ts), and prints the time, bytes, entries per second and the
 * service process's resident memory (VmRSS sampled every 20 ms from /proc) before and during
 * each export. The store (DynamoDB Local) is started by the bench and the service reaches it through
 * DYNAMODB_ENDPOINT, as a Lambda reaches DynamoDB: the service's memory is the handlers' alone.
 */
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

process.env.LOG_LEVEL ??= 'warn';
const { freePort, spawnService, waitFor: waitForValue } = await import('./service-process.ts');
const { sealEntry, GENESIS_HASH } = await import('../lib/audit/chain.ts');
const { readChainHead } = await import('../lib/audit/audit-table.ts');
const { verifyExportFile } = await import('../lib/export/verify.ts');
const { createTable, putRequests, writeAll } = await import('../lib/store/table.ts');
const { keys } = await import('../lib/store/schema.ts');
const { startDynamoDbLocal } = await import('../infra/local/dynamo.ts');

const entriesWanted = Number(process.env.BENCH_ENTRIES ?? 100_000);
const work = mkdtempSync(join(tmpdir(), 'bench-export-'));
const dataDir = join(work, 'data');

function startService(port: number, dynamoEndpoint: string) {
  // BENCH_MAX_OLD_SPACE_MB caps the service's V8 heap: an export that held its entries would fail.
  const cap = process.env.BENCH_MAX_OLD_SPACE_MB
    ? [`--max-old-space-size=${process.env.BENCH_MAX_OLD_SPACE_MB}`]
    : [];
  return spawnService({ port, dataDir, nodeArgs: cap, env: { DYNAMODB_ENDPOINT: dynamoEndpoint } });
}

const waitFor = (what: string, ready: () => Promise<boolean>, timeoutMs = 180_000) =>
  waitForValue(what, async () => ((await ready()) ? true : undefined), timeoutMs);

/** A field of /proc/<pid>/status in MB (VmRSS: resident now; VmHWM: the highest so far). */
function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.replace(/\D+/g, '') ?? 0) / 1024;
}

const ACTIONS = ['screen.dispose', 'screen.override', 'screen.approve', 'client.register', 'user.rotate-key'];

/** BENCH_ENTRIES entries after the trail's head, each a started or done entry like the service writes. */
async function seed(table: ReturnType<typeof createTable>, tenantId: string): Promise<void> {
  const head = await readChainHead(table, tenantId);
  let prevHash = head?.hash ?? GENESIS_HASH;
  const firstSeq = (head?.seq ?? 0) + 1;
  // Times rise with seq and all lie in the past, within the export's default period.
  const start = Date.now() - 60_000;
  const pending: Promise<unknown>[] = [];
  let batch: Record<string, unknown>[] = [];
  const flush = async (items: Record<string, unknown>[]) => {
    await writeAll(table, putRequests(items), { what: 'bench audit entries' });
  };
  for (let i = 0; i < entriesWanted; i += 1) {
    const seq = firstSeq + i;
    const started = i % 2 === 0;
    const entry = sealEntry(
      {
        seq,
        entry_id: `bench-${seq}`,
        tenant_id: tenantId,
        action: ACTIONS[Math.floor(i / 2) % ACTIONS.length],
        outcome: started ? 'started' : 'done',
        ...(started ? {} : { started_seq: seq - 1 }),
        actor: { user_id: 'uentanalyst1', role: 'analyst' },
        at: new Date(start + Math.floor((i * 50_000) / entriesWanted)).toISOString(),
        request_id: `bench-request-${Math.floor(i / 2)}`,
        target: { screen_id: `SCR-20260101-${String(Math.floor(i / 2)).padStart(6, '0')}` },
        details: started
          ? { disposition: 'false_positive', approval_requested: true, note_sha256: 'a'.repeat(64) }
          : { version: 1, in_force: 'false_positive', in_force_version: 1, awaiting_approval: true },
      },
      prevHash,
    );
    prevHash = entry.hash;
    batch.push({ ...keys.auditEntry(tenantId, seq), entity: 'audit', ...entry });
    if (batch.length === 25) {
      pending.push(flush(batch));
      batch = [];
      if (pending.length >= 8) await Promise.all(pending.splice(0));
    }
  }
  pending.push(flush(batch));
  await Promise.all(pending);
}

interface Run {
  format: string;
  entries: number;
  bytes: number;
  ms: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  verified: string;
}

async function exportOnce(url: string, key: string, format: 'ndjson' | 'csv', pid: number): Promise<Run> {
  const file = join(work, `audit.${format}`);
  const rssBeforeMb = memoryMb(pid, 'VmRSS');
  let rssPeakMb = rssBeforeMb;
  const sampler = setInterval(() => {
    rssPeakMb = Math.max(rssPeakMb, memoryMb(pid, 'VmRSS'));
  }, 20);
  const started = performance.now();
  const response = await fetch(`${url}/audit/export?format=${format}`, { headers: { 'x-api-key': key } });
  if (!response.ok || !response.body)
    throw new Error(`export answered ${response.status}: ${await response.text()}`);
  await pipeline(Readable.fromWeb(response.body as never), createWriteStream(file));
  const ms = performance.now() - started;
  clearInterval(sampler);
  rssPeakMb = Math.max(rssPeakMb, memoryMb(pid, 'VmRSS'));
  const verdict = await verifyExportFile(file);
  if (!verdict.ok) throw new Error(`the export does not verify: ${verdict.at}: ${verdict.detail}`);
  return {
    format,
    entries: verdict.count,
    bytes: statSync(file).size,
    ms,
    rssBeforeMb,
    rssPeakMb,
    verified: verdict.head_hash ?? '',
  };
}

const store = await startDynamoDbLocal({ path: join(work, 'dynamodb') });
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const service = startService(port, store.endpoint);
try {
  await waitFor('the service', async () => (await fetch(`${url}/health`)).ok);
  const keysFile = join(dataDir, 'demo-keys.json');
  await waitFor('demo keys', async () => existsSync(keysFile));
  const { keys: demoKeys } = JSON.parse(readFileSync(keysFile, 'utf8'));
  const admin = demoKeys.find((k: { tenant_id: string; role: string }) => k.role === 'admin');
  const table = createTable({ tableName: 'screening', endpoint: store.endpoint });

  const seedStarted = performance.now();
  await seed(table, admin.tenant_id);
  const seedMs = performance.now() - seedStarted;
  const pid = service.pid as number;
  const runs = [
    await exportOnce(url, admin.api_key, 'ndjson', pid),
    await exportOnce(url, admin.api_key, 'csv', pid),
    // Again: memory a first export leaves (code compiled, pools grown) is not taken again.
    await exportOnce(url, admin.api_key, 'ndjson', pid),
  ];
  console.log(
    `Audit export of ${entriesWanted.toLocaleString('en')} seeded chained entries (seeded in ${(seedMs / 1000).toFixed(1)} s; ` +
      `service on ${url}, its own process, pid ${pid}${process.env.BENCH_MAX_OLD_SPACE_MB ? `, V8 heap capped at ${process.env.BENCH_MAX_OLD_SPACE_MB} MB` : ''}; peak resident memory over its whole life ${memoryMb(pid, 'VmHWM').toFixed(0)} MB).`,
  );
  console.table(
    runs.map((run) => ({
      format: run.format,
      'entries (verified)': run.entries,
      MB: Number((run.bytes / 1e6).toFixed(1)),
      s: Number((run.ms / 1000).toFixed(2)),
      'entries/s': Math.round(run.entries / (run.ms / 1000)),
      'RSS before MB': Math.round(run.rssBeforeMb),
      'RSS peak during MB': Math.round(run.rssPeakMb),
      'growth MB': Math.round(run.rssPeakMb - run.rssBeforeMb),
    })),
  );
  console.log(`Both files verified by npm run verify-export's code; head hash ${runs[0].verified}.`);
} finally {
  service.kill('SIGTERM');
  await new Promise((done) => service.once('exit', done));
  await store.close();
  rmSync(work, { recursive: true, force: true });
}
