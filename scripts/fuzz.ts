/**
 * `npm run fuzz`: FUZZ_RUNS (default 10,000) generated requests, seeded by FUZZ_SEED (default
 * 20261124), across every route of the manifest, against the local server on its embedded stores
 * (test/support/fuzz-requests.ts says what is generated). Prints the requests by status class,
 * every rule broken (a 5xx, or a 4xx without a JSON `detail`). Then clients that go away
 * mid-request (test/support/connection-drops.ts): FUZZ_DROP_ROUNDS (default 3) rounds of
 * connections to the stream routes, the exports and buffered routes, closed 0-150 ms after they
 * were sent. Last, whether the server still answers /health and a screen; exits 1 if any rule broke.
 */
process.env.LOG_LEVEL ??= 'fatal';
const { startLocalStack } = await import('../infra/local/stack.ts');
const { fuzzServer, fuzzTargets } = await import('../test/support/fuzz-requests.ts');
const { dropConnections, dropRequests } = await import('../test/support/connection-drops.ts');

const runs = Number(process.env.FUZZ_RUNS ?? 10_000);
const seed = Number(process.env.FUZZ_SEED ?? 20261124);
const dropRounds = Number(process.env.FUZZ_DROP_ROUNDS ?? 3);
const stack = await startLocalStack({ dataDir: null });
let failed = false;
try {
  const started = performance.now();
  const targets = await fuzzTargets(stack.url, stack.demoKeys);
  const outcome = await fuzzServer(stack.url, targets, { runs, seed });
  const seconds = (performance.now() - started) / 1000;
  const dropsStarted = performance.now();
  const drops = await dropConnections(
    stack.url,
    dropRequests(
      { admin: targets.keys.admin, madeUp: 'isk_tmadeup.uabsent.Zm9vYmFyYmF6cXV4cXV1eA' },
      targets.ids.batch,
    ),
    { rounds: dropRounds },
  );
  const dropSeconds = (performance.now() - dropsStarted) / 1000;
  const health = await fetch(`${stack.url}/health`);
  // A key the generated requests never used (they rotate and revoke theirs).
  const untouched = stack.demoKeys.filter(
    (k) => k.tenant_id === 'tdemoenterprise' && k.role === 'analyst',
  )[1];
  const screen = await fetch(`${stack.url}/screen`, {
    method: 'POST',
    headers: { 'x-api-key': untouched.api_key, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'After The Fuzz Quillonby' }),
  });
  const classes = Object.entries(outcome.byStatusClass)
    .sort()
    .map(([statusClass, count]) => `${statusClass} ${count}`)
    .join(', ');
  process.stdout.write(
    `${outcome.requests} requests (seed ${seed}) in ${seconds.toFixed(1)} s: ${classes}\n` +
      `rules broken (5xx, or 4xx without a JSON detail): ${outcome.violations.length}\n` +
      `connections dropped mid-request: ${drops.dropped} in ${dropSeconds.toFixed(1)} s (refused: ${drops.refused})\n` +
      `GET /health afterwards: ${health.status}; POST /screen afterwards: ${screen.status}\n`,
  );
  for (const violation of outcome.violations.slice(0, 20))
    process.stdout.write(
      `  ${violation.status} ${violation.request.method} ${violation.request.path} ${violation.body}\n`,
    );
  failed =
    outcome.violations.length > 0 || drops.refused > 0 || health.status !== 200 || screen.status !== 200;
} finally {
  await stack.close();
}
process.exit(failed ? 1 : 0);
