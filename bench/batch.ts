/**
 * `npm run bench:batch`: the service in its own process, as `npm start` runs it (DynamoDB Local,
 * fauxqs, sqs-consumer, the streaming server: bench/service-process.ts), driven over HTTP from
 * this process, so the client never shares the service's event loop. 500 fresh subjects through
 * POST /batch/stream, timed from the request to the `complete` event, beside 500 fresh subjects
 * sent as direct POST /screen calls, 8 in flight (half before the batch and half after, so load
 * that drifts on a shared machine weighs on both). Prints both times, their ratio (batch /
 * direct), and the service's CPU seconds per subject on each path (/proc/<pid>/stat), which do
 * not depend on what else the machine is doing. BENCH_SUBJECTS (default 500) and BENCH_ROUNDS
 * (default 1: a fresh service each round, so the tenant's fair-use request rate starts with a full bucket) change
 * the run; LOCAL_BATCH_CONSUMERS is passed to the service.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { startService } from './service-process.ts';

const total = Number(process.env.BENCH_SUBJECTS ?? 500);
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);

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

interface Round {
  direct: number;
  batch: number;
  directCpu: number;
  batchCpu: number;
  firstProgressMs: number;
  complete: unknown;
}

async function round(): Promise<Round> {
  const service = await startService();
  try {
    const key = service.demoKeys.find(
      (k) => k.plan.toLowerCase() === 'enterprise' && k.role === 'admin',
    )?.api_key;
    if (!key) throw new Error('no Enterprise demo key');
    // Warm both paths (watchlist index, JIT) as a warm Lambda would be.
    await runBatch(service.url, key, 1, 'warm-up');
    await runDirect(service.url, key, 8, 'warm-up');
    const tag = String(Date.now());
    const half = Math.ceil(total / 2);
    let cpu = service.cpuSeconds();
    const cpuSince = () => {
      const now = service.cpuSeconds();
      const spent = now - cpu;
      cpu = now;
      return spent;
    };
    const directBefore = await runDirect(service.url, key, half, `direct-a-${tag}`);
    let directCpu = cpuSince();
    const batch = await runBatch(service.url, key, total, tag);
    const batchCpu = cpuSince();
    const directAfter = await runDirect(service.url, key, total - half, `direct-b-${tag}`);
    directCpu += cpuSince();
    if (batch.progress !== total) throw new Error(`expected ${total} progress events, got ${batch.progress}`);
    return {
      direct: directBefore + directAfter,
      batch: batch.seconds,
      directCpu,
      batchCpu,
      firstProgressMs: batch.firstProgressMs,
      complete: batch.complete,
    };
  } finally {
    await service.stop();
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const ms = (seconds: number) => (seconds * 1000).toFixed(1);

const results: Round[] = [];
for (let i = 0; i < rounds; i += 1) {
  const r = await round();
  results.push(r);
  process.stdout.write(
    [
      `round ${i + 1}/${rounds}: ${total} fresh subjects, the service in its own process (npm start's entry)`,
      `  direct POST /screen, ${DIRECT_CONCURRENCY} in flight: ${r.direct.toFixed(2)} s (${(total / r.direct).toFixed(0)} screens/s), service CPU ${ms(r.directCpu / total)} ms/subject`,
      `  POST /batch/stream:                ${r.batch.toFixed(2)} s (${(total / r.batch).toFixed(0)} subjects/s), service CPU ${ms(r.batchCpu / total)} ms/subject`,
      `  ratio batch / direct:              ${(r.batch / r.direct).toFixed(2)} (time), ${(r.batchCpu / r.directCpu).toFixed(2)} (service CPU)`,
      `  first progress:                    ${r.firstProgressMs.toFixed(0)} ms`,
      `  complete event:                    ${JSON.stringify(r.complete)}`,
      '',
    ].join('\n'),
  );
}
if (rounds > 1) {
  const ratios = results.map((r) => r.batch / r.direct);
  process.stdout.write(
    `${rounds} rounds: batch / direct median ${median(ratios).toFixed(2)} (min ${Math.min(...ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)}); ` +
      `service CPU per subject median ${ms(median(results.map((r) => r.directCpu / total)))} ms direct, ${ms(median(results.map((r) => r.batchCpu / total)))} ms batch\n`,
  );
}
