/**
 * `npm run load`: LOAD_SECONDS (default 60) of mixed traffic against the local server on its
 * embedded stores, LOAD_CONCURRENCY (default 8) requests in flight: fresh screens, repeats that
 * the rescreen window answers, reads of screens, lists and clients, dispositions, and one
 * 200-subject batch stream started at the beginning. Prints p50 and p99 per route, errors (any
 * 5xx or unexpected status), and memory at start, after warm-up and at the end: the service's
 * heap after a full collection (the main thread runs the handlers, the matcher and the worker;
 * run with --expose-gc), and the process's resident memory, (DynamoDB Local runs as its own Java process, not counted)
 * thread (the table itself is on disk, as with `npm start`).
 */
process.env.LOG_LEVEL ??= 'fatal';
const { startLocalStack } = await import('../infra/local/stack.ts');

const seconds = Number(process.env.LOAD_SECONDS ?? 60);
const concurrency = Number(process.env.LOAD_CONCURRENCY ?? 8);
const { mkdtempSync, rmSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');

/** Resident memory after a full collection (run with --expose-gc), so garbage not yet collected does not count. */
const mb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss: Math.round(rss / 1024 / 1024), heap: Math.round(heapUsed / 1024 / 1024) };
};
const rssAtStart = mb();
// The table on disk (DynamoDB Local's SQLite file, as `npm start` keeps it), so the memory measured is
// the service's, not the data written during the run.
const dataDir = mkdtempSync(join(tmpdir(), 'screening-load-'));
const stack = await startLocalStack({ dataDir });
const keyOf = (role: string) =>
  stack.demoKeys.find((k) => k.tenant_id === 'tdemoenterprise' && k.role === role)!.api_key;
const analyst = keyOf('analyst');
const admin = keyOf('admin');

const timings = new Map<string, number[]>();
const errors = new Map<string, number>();
async function call(
  route: string,
  path: string,
  key: string,
  method = 'GET',
  body?: unknown,
  expect = [200],
) {
  const started = performance.now();
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const list = timings.get(route) ?? [];
  list.push(performance.now() - started);
  timings.set(route, list);
  if (!expect.includes(response.status)) errors.set(route, (errors.get(route) ?? 0) + 1);
  return text;
}

let made = 0;
const screens: string[] = [];
const pending: string[] = [];
async function step(): Promise<void> {
  const roll = Math.random();
  if (roll < 0.3) {
    made += 1;
    const text = await call('POST /screen (fresh)', '/screen', analyst, 'POST', {
      name: made % 10 === 0 ? 'Vladimir Putin' : `Load Customer ${made} Quillonby`,
      ...(made % 10 === 0 ? { location: `Branch ${made}` } : {}),
    });
    const id = /"screen_id":"([^"]+)"/.exec(text)?.[1];
    if (id) {
      screens.push(id);
      pending.push(id);
    }
  } else if (roll < 0.4) {
    await call('POST /screen (repeat)', '/screen', analyst, 'POST', { name: 'Load Customer 1 Quillonby' });
  } else if (roll < 0.55 && screens.length > 0) {
    await call(
      'GET /screens/{id}',
      `/screens/${screens[Math.floor(Math.random() * screens.length)]}`,
      analyst,
    );
  } else if (roll < 0.65) {
    await call('GET /screens/pending', '/screens/pending?limit=25', analyst);
  } else if (roll < 0.75) {
    await call('GET /screens', '/screens?limit=25', analyst);
  } else if (roll < 0.82) {
    await call('GET /clients/screened', '/clients/screened?limit=25', analyst);
  } else if (roll < 0.9 && pending.length > 0) {
    const id = pending.pop()!;
    await call(
      'POST /screens/{id}/dispose',
      `/screens/${id}/dispose`,
      analyst,
      'POST',
      {
        disposition: 'false_positive',
        note: 'load test: not the listed person',
      },
      [200, 409],
    );
  } else {
    await call('GET /me', '/me', admin);
  }
}

const batch = (async () => {
  const started = performance.now();
  await call('POST /batch/stream (200 subjects, to complete)', '/batch/stream', analyst, 'POST', {
    subjects: Array.from({ length: 200 }, (_, i) => ({ name: `Load Batch ${i} Quillonby` })),
  });
  return performance.now() - started;
})();

let rssWarm: ReturnType<typeof mb> | undefined;
const deadline = Date.now() + seconds * 1000;
const warmAt = Date.now() + Math.min(10_000, (seconds * 1000) / 6);
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (Date.now() < deadline) {
      await step();
      if (!rssWarm && Date.now() >= warmAt) rssWarm = mb();
    }
  }),
);
await batch;
const rssAtEnd = mb();
await stack.close();
rmSync(dataDir, { recursive: true, force: true });

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const rows = [...timings]
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([route, list]) => {
    const sorted = [...list].sort((a, b) => a - b);
    return `| ${route} | ${list.length} | ${quantile(sorted, 0.5).toFixed(1)} | ${quantile(sorted, 0.99).toFixed(1)} | ${errors.get(route) ?? 0} |`;
  });
const total = [...timings.values()].reduce((sum, list) => sum + list.length, 0);
process.stdout.write(
  [
    `${total} requests in ${seconds} s, ${concurrency} in flight (${(total / seconds).toFixed(0)} req/s)`,
    '| route | requests | p50 ms | p99 ms | errors |',
    '|---|---|---|---|---|',
    ...rows,
    `service heap after GC (main thread: handlers, matcher index, worker): ${rssAtStart.heap} MB at start, ${rssWarm?.heap} MB after warm-up, ${rssAtEnd.heap} MB at the end`,
    `process resident memory (the service; DynamoDB Local is a process of its own): ${rssAtStart.rss} MB, ${rssWarm?.rss} MB, ${rssAtEnd.rss} MB`,
    '',
  ].join('\n'),
);
process.exit([...errors.values()].some((n) => n > 0) ? 1 : 0);
