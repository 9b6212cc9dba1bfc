/**
 * `npm run bench:queue`: the analysts' alert queue over BENCH_PENDING (default 10,000) pending
 * screens. The service runs as its own process (bench/service-process.ts) on a store (DynamoDB Local)
 * in the bench's process, which the bench seeds straight with pending screens (varied risk
 * levels, lists and origins: test/support/pending-screens.ts). It then times GET /screens/pending
 * pages, each BENCH_REPEAT (default 20) times: the first page and a deep page (a cursor past
 * nine tenths of the queue), unfiltered and with filters that match many, few and no screens,
 * and prints p50/p95 per case with the rows and whether a cursor came back.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

process.env.LOG_LEVEL ??= 'warn';
const { freePort, spawnService, waitFor } = await import('./service-process.ts');
const { createTable } = await import('../lib/store/table.ts');
const { startDynamoDbLocal } = await import('../infra/local/dynamo.ts');
const { putItems } = await import('../test/support/monitored-client.ts');
const { pendingScreenItem } = await import('../test/support/pending-screens.ts');

const pendingWanted = Number(process.env.BENCH_PENDING ?? 10_000);
const repeat = Number(process.env.BENCH_REPEAT ?? 20);
const work = mkdtempSync(join(tmpdir(), 'bench-queue-'));

type Risk = 'CLEAR' | 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL';
/** Of every 100 screens: 1 CRITICAL, 4 HIGH, 15 MEDIUM, 30 LOW, 50 CLEAR, as a queue after a batch looks. */
function riskOf(i: number): Risk {
  const n = i % 100;
  return n < 1 ? 'CRITICAL' : n < 5 ? 'HIGH' : n < 20 ? 'MEDIUM' : n < 50 ? 'LOW' : 'CLEAR';
}

async function seed(table: ReturnType<typeof createTable>, tenantId: string) {
  const items = Array.from({ length: pendingWanted }, (_, i) => {
    const risk = riskOf(i);
    return pendingScreenItem(tenantId, {
      sequence: i + 1,
      // Spread over ten days, the newest last.
      day: `202603${String(1 + Math.floor((i * 10) / pendingWanted)).padStart(2, '0')}`,
      risk_level: risk,
      origin: i % 4 === 0 ? 'batch' : i % 7 === 0 ? 'rescreen' : 'api',
      lists: risk === 'CLEAR' ? [] : i % 2 === 0 ? ['ofac_sdn', 'un_sc'] : ['world_leaders_pep'],
    });
  });
  await putItems(table, items);
}

interface Timing {
  case: string;
  rows: number;
  cursor: boolean;
  p50: number;
  p95: number;
}

async function time(label: string, url: string, key: string): Promise<Timing> {
  const ms: number[] = [];
  let last: { screens: unknown[]; next_cursor: string | null } = { screens: [], next_cursor: null };
  for (let i = 0; i < repeat; i += 1) {
    const started = performance.now();
    const response = await fetch(url, { headers: { 'x-api-key': key } });
    last = await response.json();
    ms.push(performance.now() - started);
    if (!response.ok) throw new Error(`${label}: ${response.status} ${JSON.stringify(last)}`);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => Number(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))].toFixed(1));
  return {
    case: label,
    rows: last.screens.length,
    cursor: last.next_cursor !== null,
    p50: at(0.5),
    p95: at(0.95),
  };
}

const store = await startDynamoDbLocal({ path: join(work, 'dynamodb') });
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const dataDir = join(work, 'data');
const service = spawnService({ port, dataDir, env: { DYNAMODB_ENDPOINT: store.endpoint } });
try {
  await waitFor('the service', async () => ((await fetch(`${base}/health`)).ok ? true : undefined));
  const keysFile = join(dataDir, 'demo-keys.json');
  await waitFor('demo keys', async () => (existsSync(keysFile) ? true : undefined));
  const { keys: demoKeys } = JSON.parse(readFileSync(keysFile, 'utf8'));
  const analyst = demoKeys.find(
    (k: { tenant_id: string; role: string }) => k.tenant_id === 'tdemoenterprise' && k.role === 'analyst',
  );
  const table = createTable({ tableName: 'screening', endpoint: store.endpoint });
  const seedStarted = performance.now();
  await seed(table, analyst.tenant_id);
  const seedMs = performance.now() - seedStarted;

  // A cursor past nine tenths of the queue, found by walking it as a client would.
  let deep = '';
  let walked = 0;
  while (walked < pendingWanted * 0.9) {
    const page = await (
      await fetch(`${base}/screens/pending?limit=200${deep ? `&cursor=${deep}` : ''}`, {
        headers: { 'x-api-key': analyst.api_key },
      })
    ).json();
    walked += page.screens.length;
    deep = page.next_cursor;
  }

  const cases: [string, string][] = [
    ['unfiltered, limit 50', 'limit=50'],
    ['risk_level=CRITICAL (1 in 100)', 'risk_level=CRITICAL'],
    ['risk_level=HIGH,CRITICAL&list=ofac_sdn', 'risk_level=HIGH,CRITICAL&list=ofac_sdn'],
    ['origin=rescreen&check=sanctions', 'origin=rescreen&check=sanctions'],
    ['risk_level=MEDIUM (15 in 100), limit 200', 'risk_level=MEDIUM&limit=200'],
    ['list=fbi_wanted (matches none)', 'list=fbi_wanted'],
    ['since=2026-03-10 (the newest day)', 'since=2026-03-10'],
  ];
  const rows: Timing[] = [];
  for (const [label, query] of cases) {
    rows.push(await time(`first page: ${label}`, `${base}/screens/pending?${query}`, analyst.api_key));
    rows.push(
      await time(`deep page: ${label}`, `${base}/screens/pending?${query}&cursor=${deep}`, analyst.api_key),
    );
  }
  console.log(
    `GET /screens/pending over ${pendingWanted.toLocaleString('en')} pending screens (seeded in ${(seedMs / 1000).toFixed(1)} s; ` +
      `service on ${base}, its own process; deep page: cursor after ${walked.toLocaleString('en')} rows; ${repeat} requests per case, one at a time; ms).`,
  );
  console.table(rows);
} finally {
  service.kill('SIGTERM');
  await new Promise((done) => service.once('exit', done));
  await store.close();
  rmSync(work, { recursive: true, force: true });
}
