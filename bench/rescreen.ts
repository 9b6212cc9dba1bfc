/**
 * `npm run bench:rescreen`, two measurements. The service runs in its own process, as `npm
 * start` runs it (fauxqs, sqs-consumer: bench/service-process.ts), driven over HTTP from this
 * process; its table is a DynamoDB Local this process starts (DYNAMODB_ENDPOINT), so the bench can seed
 * clients straight into it. The service's CPU seconds per client are printed for both paths.
 *
 * 1. Fan-out: BENCH_DUE (default 10,000) registered clients past their due date, re-screened end
 *    to end by one rescreen run (claim, charge, queue, worker, compare, record), timed from the
 *    trigger until the run reports finished; beside the same number of fresh subjects sent as
 *    direct POST /screen calls, 8 at a time, in the same run: half before the run and half after,
 *    so load that drifts on a shared machine weighs on both. Prints both times, screens/s and
 *    the ratio (run / direct). The direct calls go round robin over BENCH_TENANTS (default 4)
 *    Enterprise tenants, so no tenant meets its fair-use request rate.
 * 2. Due selection: BENCH_REGISTERED (default 100,000) clients in one tenant, BENCH_SELECT
 *    (default 1,000) of them due: the items the due query reads, against the registered count.
 *
 * Clients are written straight into the table (the state registration leaves: profile, due
 * index keys), so the bench times the rescreen, not 100,000 registrations.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

process.env.LOG_LEVEL ??= 'warn';
const { startService } = await import('./service-process.ts');
const { startDynamoDbLocal } = await import('../infra/local/dynamo.ts');
const { createTable } = await import('../lib/store/table.ts');
const { newClientId } = await import('../lib/monitoring/client-record.ts');
const { monitoredClientItem, putItems } = await import('../test/support/monitored-client.ts');
const { findDueClients } = await import('../lib/monitoring/client-table.ts');
const { createTenant } = await import('../lib/tenancy/tenants.ts');
const { isoSeconds } = await import('../lib/common/time.ts');

const due = Number(process.env.BENCH_DUE ?? 10_000);
const registered = Number(process.env.BENCH_REGISTERED ?? 100_000);
const select = Number(process.env.BENCH_SELECT ?? 1_000);
const DIRECT_CONCURRENCY = 8;
const tenantCount = Number(process.env.BENCH_TENANTS ?? 4);

type Table = ReturnType<typeof createTable>;

/** Writes `count` client profiles, the first `dueCount` of them due a day ago, the rest in a year. */
async function seedClients(table: Table, tenantId: string, count: number, dueCount: number, tag: string) {
  const now = Date.now();
  const items = Array.from({ length: count }, (_, i) => {
    const clientId = newClientId(new Date(now - count + i));
    const dueAt = isoSeconds(new Date(i < dueCount ? now - 86_400_000 : now + 365 * 86_400_000));
    const subject =
      i % 10 === 0
        ? { name: 'Vladimir Putin', location: `Branch ${tag} ${i}` }
        : { name: `Customer ${tag} ${i} Example`, nationality: 'British' };
    return monitoredClientItem(
      tenantId,
      clientId,
      subject,
      dueAt,
      isoSeconds(new Date(now - 90 * 86_400_000)),
    );
  });
  await putItems(table, items);
}

async function runDirect(url: string, apiKeys: string[], count: number, tag: string): Promise<number> {
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      const body =
        i % 10 === 0
          ? { name: 'Vladimir Putin', location: `Branch ${tag} ${i}` }
          : { name: `Customer ${tag} ${i} Example`, nationality: 'British' };
      const response = await fetch(`${url}/screen`, {
        method: 'POST',
        headers: { 'x-api-key': apiKeys[i % apiKeys.length], 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: DIRECT_CONCURRENCY }, lane));
  return (performance.now() - started) / 1000;
}

async function runRescreen(
  url: string,
  apiKey: string,
): Promise<{ seconds: number; run: Record<string, unknown> }> {
  const started = performance.now();
  const response = await fetch(`${url}/clients/rescreen/auto/trigger`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey },
  });
  const { run_id: runId } = (await response.json()) as { run_id: string };
  for (;;) {
    const run = (await (
      await fetch(`${url}/clients/rescreen/runs/${runId}`, { headers: { 'x-api-key': apiKey } })
    ).json()) as Record<string, unknown>;
    if (run.status === 'finished') return { seconds: (performance.now() - started) / 1000, run };
    await sleep(100);
  }
}

const work = mkdtempSync(join(tmpdir(), 'bench-rescreen-'));
const store = await startDynamoDbLocal({ path: join(work, 'dynamodb') });
const table = createTable({ tableName: 'screening', endpoint: store.endpoint });
const service = await startService({ env: { DYNAMODB_ENDPOINT: store.endpoint } });
try {
  const url = service.url;
  const fanOut = await createTenant(table, { name: 'Bench fan-out', plan: 'enterprise' });
  const key = fanOut.admin.api_key;
  const directKeys = await Promise.all(
    Array.from(
      { length: tenantCount },
      async (_, i) =>
        (await createTenant(table, { name: `Bench direct ${i}`, plan: 'enterprise' })).admin.api_key,
    ),
  );
  await runDirect(url, directKeys, 16, 'warm-up');

  await seedClients(table, fanOut.tenant.tenant_id, due, due, 'rescreen');
  // Half the direct calls before the run and half after: on a machine shared with other work,
  // load that drifts during the bench then weighs on both paths alike.
  const firstHalf = Math.ceil(due / 2);
  let cpu = service.cpuSeconds();
  const directBefore = await runDirect(url, directKeys, firstHalf, `direct-a-${Date.now()}`);
  let directCpu = service.cpuSeconds() - cpu;
  cpu = service.cpuSeconds();
  const rescreen = await runRescreen(url, key);
  const runCpu = service.cpuSeconds() - cpu;
  cpu = service.cpuSeconds();
  const directAfter = await runDirect(url, directKeys, due - firstHalf, `direct-b-${Date.now()}`);
  directCpu += service.cpuSeconds() - cpu;
  const direct = directBefore + directAfter;
  if (rescreen.run.queued !== due || rescreen.run.finished !== due) {
    throw new Error(`run did not re-screen every due client: ${JSON.stringify(rescreen.run)}`);
  }

  const selection = await createTenant(table, { name: 'Bench selection', plan: 'enterprise' });
  await seedClients(table, selection.tenant.tenant_id, registered, select, 'select');
  const selectStarted = performance.now();
  const found = await findDueClients(table, selection.tenant.tenant_id, new Date());
  const selectMs = performance.now() - selectStarted;

  const perClientMs = (seconds: number) => ((seconds / due) * 1000).toFixed(1);
  const lines = [
    `Fan-out: ${due} due clients, the service in its own process (npm start's entry; its table a DynamoDB Local the bench started)`,
    `  direct POST /screen, ${DIRECT_CONCURRENCY} at a time: ${direct.toFixed(2)} s (${(due / direct).toFixed(0)} screens/s; half before the run ${directBefore.toFixed(2)} s, half after ${directAfter.toFixed(2)} s), service CPU ${perClientMs(directCpu)} ms/screen`,
    `  rescreen run (trigger to finished):  ${rescreen.seconds.toFixed(2)} s (${(due / rescreen.seconds).toFixed(0)} screens/s), service CPU ${perClientMs(runCpu)} ms/client`,
    `  ratio run / direct:                  ${(rescreen.seconds / direct).toFixed(2)} (time), ${(runCpu / directCpu).toFixed(2)} (service CPU)`,
    `Due selection: ${registered} registered, ${select} due`,
    `  items read by the due query:         ${found.length} (${((found.length / registered) * 100).toFixed(1)}% of registered) in ${selectMs.toFixed(0)} ms`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await service.stop();
  await store.close();
  table.doc.destroy();
  rmSync(work, { recursive: true, force: true });
}
