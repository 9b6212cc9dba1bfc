/**
 * `npm run bench:decisions`: a bank's analysts clearing a morning queue at once. The service runs
 * as its own process (bench/service-process.ts); an Enterprise tenant with 5 analysts screens
 * DECISIONS made-up subjects (default 500), then every analyst disposes their share, all at once.
 *
 * It prints the dispositions' latency (p50, p99, max), their status codes (5xx must be 0; a 429
 * is waited out as its Retry-After says and sent again, as a client would), and then, from the
 * table and the anchor file the service writes: that every decision has exactly one `done` entry,
 * and how long after the last response the chain verified with every entry and the anchor named
 * its head (the issue's bound: 30 s). Exits 1 when any of those fails.
 *
 *   npm run bench:decisions                      # 500 dispositions by 5 analysts
 *   BENCH_DECISIONS=100 npm run bench:decisions
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.LOG_LEVEL ??= 'silent';
const { readFileSync } = await import('node:fs');
const { join } = await import('node:path');
const { startService } = await import('./service-process.ts');
const { createTable } = await import('../lib/store/table.ts');
const { createTenant } = await import('../lib/tenancy/tenants.ts');
const { addTenantUser } = await import('../lib/tenancy/users.ts');
const { OPS_ACTOR, allAuditEntries } = await import('../lib/audit/trail.ts');
const { verifyTenantTrail } = await import('../lib/audit/verify.ts');
const { createFileAnchorStore } = await import('../lib/audit/anchor-store.ts');

const decisions = Number(process.env.BENCH_DECISIONS ?? 500);
const analystCount = 5;
const CHAIN_BOUND_MS = 30_000;

// BENCH_SERVICE_LOG_LEVEL=error shows the service's own log lines (what a 5xx was).
const serviceLog = process.env.BENCH_SERVICE_LOG_LEVEL;
const service = await startService({
  env: { LOG_LEVEL: serviceLog ?? 'silent' },
  stdout: serviceLog ? 'inherit' : 'ignore',
});
let failed = false;
try {
  const endpoint = readFileSync(join(service.dataDir, 'dynamodb-endpoint'), 'utf8').trim();
  const table = createTable({ tableName: 'screening', endpoint });
  // The tenant and its analysts, as the ops CLI makes them (their user.add entries are on the trail).
  const { tenant, admin } = await createTenant(table, { name: 'Bench decisions', plan: 'enterprise' });
  const analysts: Awaited<ReturnType<typeof addTenantUser>>[] = [];
  for (let i = 0; i < analystCount; i += 1)
    analysts.push(
      await addTenantUser(table, OPS_ACTOR, tenant.tenant_id, { name: `Analyst ${i}`, role: 'analyst' }),
    );
  const headersOf = (key: string) => ({ 'x-api-key': key, 'content-type': 'application/json' });

  /** Sends a request; a 429 is waited out as its Retry-After says, as a client would. */
  async function send(
    path: string,
    key: string,
    body: unknown,
  ): Promise<{ status: number; ms: number; json: unknown }> {
    const started = performance.now();
    for (;;) {
      const response = await fetch(`${service.url}${path}`, {
        method: 'POST',
        headers: headersOf(key),
        body: JSON.stringify(body),
      });
      const json = await response.json().catch(() => undefined);
      if (response.status !== 429) return { status: response.status, ms: performance.now() - started, json };
      rateLimited += 1;
      await new Promise((done) => setTimeout(done, 1000 * Number(response.headers.get('retry-after') ?? 1)));
    }
  }
  let rateLimited = 0;

  // The queue: made-up subjects, 8 screens in flight.
  const screenIds: string[] = [];
  const names = Array.from(
    { length: decisions },
    (_, i) => `Bench Decision Subject ${i.toString(36)} Quillonby`,
  );
  for (let i = 0; i < names.length; i += 8) {
    const made = await Promise.all(
      names.slice(i, i + 8).map((name) => send('/screen', admin.api_key, { name, force: true })),
    );
    for (const screen of made) {
      if (screen.status !== 200) throw new Error(`POST /screen answered ${screen.status}`);
      screenIds.push((screen.json as { screen_id: string }).screen_id);
    }
  }
  rateLimited = 0;
  // The requests of the previous window are spent: start the decisions in a fresh one.
  await new Promise((done) => setTimeout(done, 10_000));

  const started = performance.now();
  const results = await Promise.all(
    screenIds.map((id, i) =>
      send(`/screens/${id}/dispose`, analysts[i % analystCount].api_key, {
        disposition: 'cleared',
        note: `Cleared in the morning queue (${i})`,
      }),
    ),
  );
  const lastResponse = performance.now();
  const wallSeconds = (lastResponse - started) / 1000;
  const latencies = results.map((r) => r.ms).sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  const statuses = new Map<number, number>();
  for (const r of results) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  const serverErrors = results.filter((r) => r.status >= 500).length;

  // The chain: poll until every entry is chained, the chain verifies, and the anchor names its head.
  const anchors = createFileAnchorStore(join(service.dataDir, 'audit-anchors'));
  const expectedEntries = decisions + 2 * analystCount; // + each user.add's started and done entries
  let verdict: Awaited<ReturnType<typeof verifyTenantTrail>>;
  let chainedAfterMs: number | undefined;
  for (;;) {
    verdict = await verifyTenantTrail(table, tenant.tenant_id, { anchors });
    const settled =
      verdict.ok &&
      verdict.count === expectedEntries &&
      verdict.waiting === 0 &&
      verdict.anchor?.seq === verdict.head_seq;
    if (settled) {
      chainedAfterMs = performance.now() - lastResponse;
      break;
    }
    if (performance.now() - lastResponse > 120_000) break;
    await new Promise((done) => setTimeout(done, 250));
  }

  // Every decision has exactly one `done` entry naming its screen.
  const doneByScreen = new Map<string, number>();
  for await (const entry of allAuditEntries(table, tenant.tenant_id))
    if (entry.action === 'screen.dispose' && entry.outcome === 'done' && entry.target.screen_id)
      doneByScreen.set(entry.target.screen_id, (doneByScreen.get(entry.target.screen_id) ?? 0) + 1);
  const decided = results.filter((r) => r.status === 200).length;
  const withOneEntry = screenIds.filter((id) => doneByScreen.get(id) === 1).length;

  const figures = {
    dispositions: decisions,
    analysts: analystCount,
    wall_seconds: Number(wallSeconds.toFixed(2)),
    per_second: Number((decisions / wallSeconds).toFixed(1)),
    p50_ms: Math.round(at(0.5)),
    p99_ms: Math.round(at(0.99)),
    max_ms: Math.round(latencies[latencies.length - 1]),
    statuses: Object.fromEntries(statuses),
    rate_limited_then_retried: rateLimited,
    decided,
    decisions_with_exactly_one_entry: withOneEntry,
    chain: verdict.ok
      ? { ok: true, entries: verdict.count, head_seq: verdict.head_seq, waiting: verdict.waiting }
      : { ok: false, problem: verdict.problem, detail: verdict.detail },
    anchor_seq: verdict.anchor?.seq ?? null,
    chain_settled_after_last_response_ms: chainedAfterMs === undefined ? null : Math.round(chainedAfterMs),
  };
  console.log(JSON.stringify(figures, null, 2));
  const problems = [
    serverErrors > 0 && `${serverErrors} × 5xx`,
    decided !== decisions && `${decisions - decided} dispositions not 200`,
    withOneEntry !== decisions && `${decisions - withOneEntry} decisions without exactly one audit entry`,
    (chainedAfterMs === undefined || chainedAfterMs > CHAIN_BOUND_MS) &&
      `the chain did not verify with ${expectedEntries} entries and an anchor at its head within ${CHAIN_BOUND_MS / 1000} s of the last response`,
  ].filter(Boolean);
  if (problems.length > 0) {
    failed = true;
    console.error(`FAILED: ${problems.join('; ')}`);
  } else {
    console.log(
      `OK: ${decisions} dispositions by ${analystCount} analysts, p99 ${figures.p99_ms} ms, 0 × 5xx; chain of ${expectedEntries} entries verified and anchored ${figures.chain_settled_after_last_response_ms} ms after the last response`,
    );
  }
} finally {
  await service.stop();
}
process.exit(failed ? 1 : 0);
