/**
 * `npm run bench:batch`: 500 subjects through POST /batch/stream on the local stack (dynalite,
 * fauxqs, sqs-consumer, the streaming server), timed from the request to the `complete` event,
 * beside the same number of fresh subjects sent as direct POST /screen calls, 8 at a time, in
 * the same run. Prints both times, their ratio (batch / direct: what the queue path costs per
 * subject over the direct one), subjects per second and the time to the first `progress` event.
 * BENCH_SUBJECTS (default 500) and LOCAL_BATCH_CONSUMERS change the run.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

// Per-subject info logs would be timed too; set before the logger is first imported.
process.env.LOG_LEVEL ??= 'warn';
const { startLocalStack } = await import('../infra/local/stack.ts');
const total = Number(process.env.BENCH_SUBJECTS ?? 500);

/**
 * A realistic mix: mostly clear customers, one in ten a listed person. Every subject is new to
 * the run (the location carries the run's tag), so each one is a fresh screen on both paths.
 */
function subjects(count: number, run: string) {
  const names = ['Vladimir Putin', 'Kim Jong Un', 'Ali Khamenei', 'Joaquin Guzman', 'Nicolas Maduro'];
  return Array.from({ length: count }, (_, i) =>
    i % 10 === 0
      ? { name: names[(i / 10) % names.length], location: `Branch ${run} ${i}` }
      : { name: `Customer ${run} ${i} Example`, nationality: 'British', location: 'London' },
  );
}

async function runBatch(url: string, apiKey: string, count: number, run: string) {
  const started = performance.now();
  let firstProgress: number | undefined;
  let progress = 0;
  let complete: Record<string, unknown> | undefined;
  const parser = createParser({
    onEvent: (event: EventSourceMessage) => {
      if (event.event === 'progress') {
        firstProgress ??= performance.now() - started;
        progress += 1;
      }
      if (event.event === 'complete') complete = JSON.parse(event.data);
    },
  });
  const response = await fetch(`${url}/batch/stream`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ subjects: subjects(count, run) }),
  });
  if (response.status !== 200 || !response.body)
    throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const decoder = new TextDecoder();
  for await (const chunk of response.body) parser.feed(decoder.decode(chunk, { stream: true }));
  const seconds = (performance.now() - started) / 1000;
  return { seconds, firstProgressMs: firstProgress ?? Number.NaN, progress, complete };
}

/** The direct path: each subject its own POST /screen, DIRECT_CONCURRENCY requests in flight. */
const DIRECT_CONCURRENCY = 8;
async function runDirect(url: string, apiKey: string, count: number, run: string): Promise<number> {
  const pending = subjects(count, run);
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    while (next < pending.length) {
      const response = await fetch(`${url}/screen`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(pending[next++]),
      });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: DIRECT_CONCURRENCY }, lane));
  return (performance.now() - started) / 1000;
}

const stack = await startLocalStack({ dataDir: null });
try {
  const key = stack.demoKeys.find((k) => k.plan.toLowerCase() === 'enterprise')?.api_key;
  if (!key) throw new Error('no Enterprise demo key');
  // Warm the worker (watchlist index load) as a warm Lambda would be.
  await runBatch(stack.url, key, 1, 'warm-up');
  await runDirect(stack.url, key, 8, 'warm-up');
  const direct = await runDirect(stack.url, key, total, `direct-${Date.now()}`);
  const result = await runBatch(stack.url, key, total, String(Date.now()));
  if (result.progress !== total) throw new Error(`expected ${total} progress events, got ${result.progress}`);
  const lines = [
    `${total} fresh subjects on the local stack`,
    `  direct POST /screen, ${DIRECT_CONCURRENCY} at a time: ${direct.toFixed(2)} s (${(total / direct).toFixed(0)} screens/s)`,
    `  POST /batch/stream:                 ${result.seconds.toFixed(2)} s (${(total / result.seconds).toFixed(0)} subjects/s)`,
    `  ratio batch / direct:               ${(result.seconds / direct).toFixed(2)}`,
    `  batch total:         ${result.seconds.toFixed(2)} s`,
    `  throughput:          ${(total / result.seconds).toFixed(0)} subjects/s`,
    `  first progress:      ${result.firstProgressMs.toFixed(0)} ms`,
    `  complete event:      ${JSON.stringify(result.complete)}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await stack.close();
}
