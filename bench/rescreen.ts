/**
 * `npm run bench:rescreen`, two measurements on the local stack (dynalite, fauxqs, sqs-consumer):
 *
 * 1. Fan-out: BENCH_DUE (default 10,000) registered clients past their due date, re-screened end
 *    to end by one rescreen run (claim, charge, queue, worker, compare, record), timed from the
 *    trigger until the run reports finished; beside the same number of fresh subjects sent as
 *    direct POST /screen calls, 8 at a time, in the same run: half before the run and half after,
 *    so load that drifts on a shared machine weighs on both. Prints both times, screens/s and
 *    the ratio (run / direct).
 * 2. Due selection: BENCH_REGISTERED (default 100,000) clients in one tenant, BENCH_SELECT
 *    (default 1,000) of them due: the items the due query reads, against the registered count.
 *
 * Clients are written straight into the table (the state registration leaves: profile, due
 * index keys), so the bench times the rescreen, not 100,000 registrations.
 */
import { setTimeout as sleep } from 'node:timers/promises';

process.env.LOG_LEVEL ??= 'warn';
const { startLocalStack } = await import('../infra/local/stack.ts');
const { getServices } = await import('../lib/runtime/services.ts');
const { newClientId } = await import('../lib/monitoring/client-record.ts');
const { monitoredClientItem, putItems } = await import('../test/support/monitored-client.ts');
const { findDueClients } = await import('../lib/monitoring/rescreen-run.ts');
const { createTenant } = await import('../lib/tenancy/tenants.ts');
const { isoSeconds } = await import('../lib/common/time.ts');

const due = Number(process.env.BENCH_DUE ?? 10_000);
const registered = Number(process.env.BENCH_REGISTERED ?? 100_000);
const select = Number(process.env.BENCH_SELECT ?? 1_000);
const DIRECT_CONCURRENCY = 8;

type Table = ReturnType<typeof getServices>['table'];

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

async function runDirect(url: string, apiKey: string, count: number, tag: string): Promise<number> {
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
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
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

const stack = await startLocalStack({ dataDir: null });
try {
  const { table } = getServices();
  const fanOut = await createTenant(table, { name: 'Bench fan-out', plan: 'enterprise' });
  const key = fanOut.admin.api_key;
  await runDirect(stack.url, key, 16, 'warm-up');

  await seedClients(table, fanOut.tenant.tenant_id, due, due, 'rescreen');
  // Half the direct calls before the run and half after: on a machine shared with other work,
  // load that drifts during the bench then weighs on both paths alike.
  const firstHalf = Math.ceil(due / 2);
  const directBefore = await runDirect(stack.url, key, firstHalf, `direct-a-${Date.now()}`);
  const rescreen = await runRescreen(stack.url, key);
  const directAfter = await runDirect(stack.url, key, due - firstHalf, `direct-b-${Date.now()}`);
  const direct = directBefore + directAfter;
  if (rescreen.run.queued !== due || rescreen.run.finished !== due) {
    throw new Error(`run did not re-screen every due client: ${JSON.stringify(rescreen.run)}`);
  }

  const selection = await createTenant(table, { name: 'Bench selection', plan: 'enterprise' });
  await seedClients(table, selection.tenant.tenant_id, registered, select, 'select');
  const selectStarted = performance.now();
  const found = await findDueClients(table, selection.tenant.tenant_id, new Date());
  const selectMs = performance.now() - selectStarted;

  const lines = [
    `Fan-out: ${due} due clients on the local stack`,
    `  direct POST /screen, ${DIRECT_CONCURRENCY} at a time: ${direct.toFixed(2)} s (${(due / direct).toFixed(0)} screens/s; half before the run ${directBefore.toFixed(2)} s, half after ${directAfter.toFixed(2)} s)`,
    `  rescreen run (trigger to finished):  ${rescreen.seconds.toFixed(2)} s (${(due / rescreen.seconds).toFixed(0)} screens/s)`,
    `  ratio run / direct:                  ${(rescreen.seconds / direct).toFixed(2)}`,
    `Due selection: ${registered} registered, ${select} due`,
    `  items read by the due query:         ${found.length} (${((found.length / registered) * 100).toFixed(1)}% of registered) in ${selectMs.toFixed(0)} ms`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await stack.close();
}
