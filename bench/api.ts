/**
 * `npm run bench:api`: the HTTP API under load on this machine, end to end through the service as
 * `npm start` runs it, in its own process (bench/service-process.ts: API Gateway stand-in, middy
 * chain, X-API-Key auth, the local table engine, the real matcher), driven over HTTP from this one.
 *
 * Scenarios (autocannon in a worker thread, so the load generator does not share the server's
 * event loop): concurrent POST /screen with force:true (every request a fresh screen: matcher,
 * quota charge, id allocation, two writes) over names from the shipped lists and made-up names;
 * then GET /screens/{id} and GET /screens?limit=50. Prints throughput and p50/p99 per scenario.
 *
 * The load is spread over BENCH_TENANTS (default 20) Enterprise tenants, round robin: one tenant
 * alone would meet its fair-use request rate (lib/tenancy/plans.ts, 100 requests/s on Enterprise)
 * and measure the 429, not the service.
 *
 * BENCH_SECONDS (default 10) and BENCH_CONNECTIONS (default 16) tune the run.
 */
import autocannon from 'autocannon';

// Request logs would measure the terminal, not the service: silence them unless LOG_LEVEL says
// otherwise. Set before the service modules load, since the logger reads it once.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.LOG_LEVEL ??= 'silent';
const { readFileSync } = await import('node:fs');
const { join } = await import('node:path');
const { startService } = await import('./service-process.ts');
const { createTable } = await import('../lib/store/table.ts');
const { loadSnapshot } = await import('../lib/matcher/snapshot-file.ts');
const { createTenant } = await import('../lib/tenancy/tenants.ts');

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const tenantCount = Number(process.env.BENCH_TENANTS ?? 20);

const service = await startService({ env: { LOG_LEVEL: 'silent' } });
// The tenants are made as the ops CLI makes them: straight in the service's table.
const endpoint = readFileSync(join(service.dataDir, 'dynamodb-endpoint'), 'utf8').trim();
const table = createTable({ tableName: 'screening', endpoint });
const tenantHeaders = await Promise.all(
  Array.from({ length: tenantCount }, async (_, i) => {
    const { admin } = await createTenant(table, { name: `Bench ${i}`, plan: 'enterprise' });
    return { 'x-api-key': admin.api_key, 'content-type': 'application/json' };
  }),
);
/** The i-th request's tenant: round robin over the tenants. */
const headersOf = (i: number) => tenantHeaders[i % tenantHeaders.length];

// Subjects: every 40th listed person (hits of every kind) and made-up names (the common case: clear).
const { people } = loadSnapshot();
const listed = people.filter((_, i) => i % 40 === 0).map((p) => p.primary_name);
const given = ['Anna', 'Rahul', 'Mei', 'Carlos', 'Olga', 'Kwame', 'Sofia', 'Yusuf', 'Liam', 'Ines'];
const family = ['Brennholt', 'Quillonby', 'Marsetti', 'Okonkwo-Lind', 'Vasquez Tor', 'Haddadin', 'Lindqvist'];
const madeUp = Array.from(
  { length: 400 },
  (_, i) => `${given[i % given.length]} ${family[(i * 3) % family.length]}`,
);
const subjects = [...listed, ...madeUp].map((name, i) => ({
  name,
  ...(i % 3 === 0 ? { dob: `19${50 + (i % 50)}-0${1 + (i % 9)}-1${i % 10}` } : {}),
  ...(i % 4 === 0 ? { nationality: 'British' } : {}),
  force: true,
}));
// Interleave listed and made-up names so every connection sees both.
subjects.sort((a, b) => ((a.name.length * 7919) % 101) - ((b.name.length * 7919) % 101));

// Warm-up: the matcher's first use and the JIT, outside the measured window (the first 50 screens).
const created: { id: string; headers: Record<string, string> }[] = [];
for (const [i, subject] of subjects.slice(0, 50).entries()) {
  const response = await fetch(`${service.url}/screen`, {
    method: 'POST',
    headers: headersOf(i),
    body: JSON.stringify(subject),
  });
  created.push({ id: ((await response.json()) as { screen_id: string }).screen_id, headers: headersOf(i) });
}

interface Figures {
  scenario: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
}
const results: Figures[] = [];

async function run(scenario: string, requests: autocannon.Request[]) {
  const result = await autocannon({
    url: service.url,
    connections,
    duration: seconds,
    workers: 1,
    requests,
  });
  results.push({
    scenario,
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors,
  });
}

await run(
  'POST /screen (force)',
  subjects.map((subject, i) => ({
    method: 'POST',
    path: '/screen',
    headers: headersOf(i),
    body: JSON.stringify(subject),
  })),
);
await run(
  'GET /screens/{id}',
  created.map(({ id, headers }) => ({ method: 'GET', path: `/screens/${id}`, headers })),
);
await run(
  'GET /screens?limit=50',
  tenantHeaders.map((headers) => ({ method: 'GET', path: '/screens?limit=50', headers })),
);

const serviceCpu = service.cpuSeconds();
const rss = readFileSync(`/proc/${service.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1];
table.doc.destroy();
await service.stop();

process.stdout.write(
  [
    '',
    `API benchmark: ${seconds} s per scenario, ${connections} connections, ${tenantCount} Enterprise tenants, the service in its own process, ${subjects.length} distinct subjects`,
    'scenario                 requests   req/s   p50 ms   p99 ms   max ms   non-2xx  errors',
    ...results.map(
      (r) =>
        `${r.scenario.padEnd(24)} ${String(r.requests).padStart(8)} ${String(r.rps).padStart(7)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ${String(r.max).padStart(8)} ${String(r.non2xx).padStart(9)} ${String(r.errors).padStart(7)}`,
    ),
    `service process: ${serviceCpu.toFixed(1)} CPU s in all, resident ${Math.round(Number(rss) / 1024)} MB after the run`,
    'Target: >= 300 screens/s and p99 <= 50 ms for POST /screen.',
    '',
  ].join('\n'),
);
process.exit(0);
