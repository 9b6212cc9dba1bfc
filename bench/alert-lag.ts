/**
 * `npm run bench:alert-lag`: designation to alert. The service runs as its own process (`npm
 * start`'s entry, infra/local/main.ts, on a temporary data directory) with its list sync on a
 * one-second schedule from a local mirror of the UN list, as the publisher had it before a real
 * designee was listed. BENCH_CLIENTS (default 20,000) clients are monitored in one tenant:
 * BENCH_MATCHING (default 10) of them registered through the API under the designee's name, the
 * others bearing the real names of people on the other lists (test/support/alert-lag.ts).
 *
 * The clock starts when the publisher's file lists him (the mirror's file is replaced) and stops
 * when every matching client's new screen is in the tenant's pending queue, as an analyst's queue
 * poll sees it. Printed: that lag and its parts (the sync's own time, from the service's log), the
 * name-key items the list change read to find the clients, the clients it screened and charged,
 * and the screens charged to the tenant over the whole flow (must be BENCH_MATCHING).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

process.env.LOG_LEVEL ??= 'warn';
const { freePort, spawnService, waitFor: waitForValue } = await import('./service-process.ts');
const { loadSnapshot } = await import('../lib/matcher/snapshot-file.ts');
const { createTable } = await import('../lib/store/table.ts');
const {
  awaitAlerts,
  DESIGNEE,
  designationMirror,
  registerMatching,
  screensUsed,
  seedBystanders,
  serviceClient,
} = await import('../test/support/alert-lag.ts');

const clientsWanted = Number(process.env.BENCH_CLIENTS ?? 20_000);
const matchingWanted = Number(process.env.BENCH_MATCHING ?? 10);
/** How long the alerts may take after the listing before the missing and late ones are reported. */
const alertTimeoutMs = Number(process.env.BENCH_ALERT_TIMEOUT_SECONDS ?? 300) * 1000;
const work = mkdtempSync(join(tmpdir(), 'bench-alert-lag-'));
const dataDir = join(work, 'data');

interface LogLine {
  msg?: string;
  /** ISO 8601 (the service's logger writes ISO times). */
  time?: string;
  [field: string]: unknown;
}
const logLines: LogLine[] = [];

function startService(port: number) {
  const child = spawnService({
    port,
    dataDir,
    stdout: 'pipe',
    env: {
      LOG_LEVEL: 'info',
      LIST_SYNC_FROM: join(work, 'mirror'),
      LIST_SYNC_LISTS: 'un_sc',
      LIST_SYNC_INTERVAL_SECONDS: '1',
    },
  });
  let buffered = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      try {
        logLines.push(JSON.parse(line));
      } catch {
        // a banner line that happens to start with a brace
      }
    }
  });
  return child;
}

const recentLog = () =>
  `; the service's last log lines: ${logLines
    .slice(-5)
    .map((line) => JSON.stringify(line).slice(0, 300))
    .join(' | ')}`;
// Each step before the clock starts is bounded, generously: on a shared 2-core machine at load
// average 20 the service's first sync (a CPU-bound relink in its own event loop) took minutes.
const waitFor = <T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 600_000) =>
  waitForValue(what, read, timeoutMs, recentLog);

/** The service's warnings and errors (pino levels 40 and up), for a run that failed. */
function printServiceProblems(): void {
  const problems = logLines.filter((line) => Number(line.level) >= 40);
  console.log(`The service logged ${problems.length} warnings and errors${problems.length ? ':' : '.'}`);
  for (const line of problems.slice(-30)) console.log(JSON.stringify(line).slice(0, 2000));
}

const timeOf = (line: LogLine) => Date.parse(line.time ?? '') || 0;
const lastLog = (msg: string, after = 0) =>
  logLines.filter((line) => line.msg === msg && timeOf(line) >= after).at(-1);

const mirror = designationMirror(join(work, 'mirror'));
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const service = startService(port);
try {
  await waitFor('the service', async () => ((await fetch(`${url}/health`)).ok ? true : undefined));
  const keysFile = join(dataDir, 'demo-keys.json');
  await waitFor('demo keys', async () => (existsSync(keysFile) ? true : undefined));
  const { keys: demoKeys } = JSON.parse(readFileSync(keysFile, 'utf8'));
  const admin = demoKeys.find((k: { tenant_id: string; role: string }) => k.role === 'admin');
  const api = serviceClient(url, admin.api_key);
  // The first sync publishes the list without the designee, and the service screens against it.
  await waitFor('the first sync', async () => {
    const screen = await api.post('/screen', { name: DESIGNEE.name, types: 'sanctions', force: true });
    const listed = screen.body.sanctions_result.matches.some(
      (m: { entity_id: string }) => m.entity_id === DESIGNEE.entity_id,
    );
    return lastLog('list sync finished') && !listed ? true : undefined;
  });

  const matching = await registerMatching(api, matchingWanted);
  const endpoint = readFileSync(join(dataDir, 'dynamodb-endpoint'), 'utf8').trim();
  const table = createTable({ tableName: 'screening', endpoint });
  const seedStarted = performance.now();
  await seedBystanders(table, admin.tenant_id, loadSnapshot(), clientsWanted - matchingWanted);
  const seedMs = performance.now() - seedStarted;
  const usedBefore = await screensUsed(api);

  const listedAt = Date.now();
  mirror.list();
  const seen = await awaitAlerts(api, matching, listedAt, alertTimeoutMs);
  const charged = (await screensUsed(api)) - usedBefore;
  // Each client's alert: in the queue (and when), or late (not re-screened yet), or missing (why).
  console.table(
    seen.clients.map((client, i) => ({
      client: `alert-lag-${i}`,
      alert: client.state,
      'ms after listing': client.ms ?? '',
      're-screens': client.rescreens,
      screen: client.screen_id,
      detail: client.detail,
    })),
  );
  if (!seen.complete) {
    const late = seen.clients.filter((c) => c.state === 'late').length;
    const missing = seen.clients.filter((c) => c.state === 'missing').length;
    console.log(
      `After ${alertTimeoutMs} ms, ${seen.screens.size} of ${matchingWanted} alerts pending: ${late} late (not re-screened yet), ${missing} missing${recentLog()}`,
    );
    for (const line of logLines.filter((l) => typeof l.msg === 'string' && /sync|rescreen|run/.test(l.msg)))
      console.log(JSON.stringify(line).slice(0, 400));
    printServiceProblems();
    process.exitCode = 1;
  }

  // The sync that published the listing (later syncs find nothing new and log that too).
  const synced = await waitFor('the sync log', async () =>
    logLines.find(
      (line) =>
        line.msg === 'list sync finished' &&
        timeOf(line) >= listedAt &&
        (line.updated as string[]).includes('un_sc'),
    ),
  );
  const delta = await waitFor('the list-change log', async () =>
    lastLog('list-change rescreens started', listedAt),
  );

  console.log(
    `Designation to alert: ${matchingWanted} of ${clientsWanted.toLocaleString('en')} monitored clients bear the new designee's name ` +
      `(seeded in ${(seedMs / 1000).toFixed(1)} s; service on ${url}, its own process).`,
  );
  console.table([
    {
      'lag ms (file listed -> all alerts pending)': seen.ms,
      'sync finished at ms': timeOf(synced) - listedAt,
      'alerts pending': seen.screens.size,
      'name-key lookups': delta.keys_looked_up,
      'name-key items read': delta.key_items_read,
      'clients read': delta.candidates,
      'clients matching': delta.matching,
      'screens charged': charged,
    },
  ]);
  const ok = seen.complete && charged === matchingWanted && delta.matching === matchingWanted;
  console.log(
    ok
      ? `OK: exactly ${matchingWanted} alerts, ${matchingWanted} screens charged, nobody else re-screened.`
      : `UNEXPECTED: ${seen.screens.size} alerts pending, ${charged} screens charged, ${delta.matching} clients matched.`,
  );
  if (!ok) printServiceProblems();
  process.exitCode = ok ? 0 : 1;
} catch (error) {
  // What the service said went wrong (a 500's detail names only its request id).
  printServiceProblems();
  throw error;
} finally {
  service.kill('SIGTERM');
  await new Promise((done) => service.once('exit', done));
  rmSync(work, { recursive: true, force: true });
}
