/**
 * Matcher benchmark (`npm run bench`). Loads the full snapshot, builds the index, then screens a
 * fixed, deterministic set of queries — listed names, perturbed listed names and names on no list
 * (common given + family names combined) — through all three checks on one core, and prints
 * load time, heap, p50/p99 latency and throughput. A naive fuse.js search over every listed name
 * runs on a smaller sample for comparison.
 *
 * For a heap figure after garbage collection run with `node --expose-gc --import tsx bench/matcher.ts`
 * (the npm script does).
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fuse from 'fuse.js';
import { createMatcher } from '../lib/matcher/screen.ts';
import { loadSnapshot } from '../lib/matcher/snapshot-file.ts';
import type { SubjectInput } from '../lib/matcher/types.ts';
import { MATCHER_VERSION } from '../lib/matcher/version.ts';
import { CHECK_TYPES } from '../lib/watchlists/types.ts';
import { random } from './random.ts';

const QUERY_COUNT = 3000;
const FUSE_QUERY_COUNT = 200;

const GIVEN = [
  'James',
  'Maria',
  'Wei',
  'Fatima',
  'Olga',
  'Carlos',
  'Aisha',
  'Hiroshi',
  'Emma',
  'Lars',
  'Priya',
  'Kwame',
  'Sofia',
  'Dmitri',
  'Chloe',
  'Mehmet',
  'Ana',
  'Tomasz',
  'Nadia',
  'Peter',
];
const FAMILY = [
  'Smith',
  'Garcia',
  'Nguyen',
  'Kowalski',
  'Okafor',
  'Johansson',
  'Rossi',
  'Tanaka',
  'Müller',
  'Haddad',
  'Silva',
  'Dubois',
  'Novak',
  'Patel',
  'Kim',
  'Ivanova',
  'Brown',
  'Costa',
  'Schneider',
  'Mensah',
];

function perturb(name: string, rnd: () => number): string {
  const chars = [...name];
  const at = 1 + Math.floor(rnd() * Math.max(1, chars.length - 2));
  switch (Math.floor(rnd() * 3)) {
    case 0:
      chars.splice(at, 1);
      break;
    case 1:
      [chars[at - 1], chars[at]] = [chars[at], chars[at - 1]];
      break;
    default:
      chars.splice(at, 0, 'e');
  }
  const words = chars.join('').split(/\s+/);
  return rnd() < 0.3 ? words.reverse().join(' ') : words.join(' ');
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function heapMb(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

/**
 * The bench's queries and the names fuse.js searches, from a copy of the snapshot read apart from
 * the matcher's: the matcher's own stays as a cold start leaves it, its people parsed only as the
 * screens reach them (snapshot-people.ts), as in production.
 */
export function benchInput(): { count: number; queries: SubjectInput[]; allNames: string[] } {
  const { people } = loadSnapshot();
  const rnd = random(20240503);
  const queries: SubjectInput[] = [];
  for (let i = 0; i < QUERY_COUNT; i++) {
    const kind = i % 3;
    if (kind === 2) {
      const name = `${GIVEN[Math.floor(rnd() * GIVEN.length)]} ${FAMILY[Math.floor(rnd() * FAMILY.length)]}`;
      queries.push({
        name,
        dob: `19${50 + Math.floor(rnd() * 50)}-0${1 + Math.floor(rnd() * 9)}-1${Math.floor(rnd() * 9)}`,
      });
      continue;
    }
    const person = people[Math.floor(rnd() * people.length)];
    const name = person.names[Math.floor(rnd() * person.names.length)].name;
    queries.push({ name: kind === 0 ? name : perturb(name, rnd), nationality: person.nationalities[0] });
  }
  const allNames = people.flatMap((p) => p.names.map((n) => n.name));
  return { count: people.length, queries, allNames };
}

function main(): void {
  const heapBefore = heapMb();
  let t = performance.now();
  const snapshot = loadSnapshot();
  const snapshotMs = performance.now() - t;
  t = performance.now();
  const matcher = createMatcher(snapshot);
  const indexMs = performance.now() - t;
  const heapAfter = heapMb();
  const gcNote = (globalThis as { gc?: () => void }).gc ? 'after gc' : 'no --expose-gc: before gc';
  const { count, queries, allNames } = benchInput();
  console.log(`listed individuals: ${count}`);
  console.log(
    `snapshot load: ${snapshotMs.toFixed(0)} ms; index build: ${indexMs.toFixed(0)} ms; total ${(snapshotMs + indexMs).toFixed(0)} ms`,
  );
  console.log(`heap: ${heapAfter.toFixed(1)} MB after load (${gcNote}; ${heapBefore.toFixed(1)} MB before)`);

  // Warm-up so the JIT has compiled the hot paths before timing.
  for (let i = 0; i < 300; i++) matcher.screen(queries[i], CHECK_TYPES);
  const times: number[] = [];
  let alerts = 0;
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  for (const q of queries) {
    const t0 = performance.now();
    const r = matcher.screen(q, CHECK_TYPES);
    times.push((performance.now() - t0) * 1000);
    if (r.risk_level !== 'CLEAR') alerts++;
  }
  const totalMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  times.sort((a, b) => a - b);
  console.log(
    `matcher: ${queries.length} screens (all three checks): p50 ${percentile(times, 50).toFixed(0)} µs, p99 ${percentile(times, 99).toFixed(0)} µs, max ${times[times.length - 1].toFixed(0)} µs, ${((queries.length / totalMs) * 1000).toFixed(0)} screens/s (${alerts} not CLEAR)`,
  );
  // On a shared machine wall-clock percentiles include time the process was not scheduled.
  console.log(`mean CPU time per screen: ${((cpu.user + cpu.system) / queries.length).toFixed(0)} µs`);
  console.log(`heap after screening: ${heapMb().toFixed(1)} MB`);

  t = performance.now();
  const fuse = new Fuse(allNames, { includeScore: true, threshold: 0.3 });
  const fuseBuildMs = performance.now() - t;
  const fuseTimes: number[] = [];
  for (const q of queries.slice(0, FUSE_QUERY_COUNT)) {
    const t0 = performance.now();
    fuse.search(q.name, { limit: 10 });
    fuseTimes.push((performance.now() - t0) * 1000);
  }
  fuseTimes.sort((a, b) => a - b);
  const fuseP50 = percentile(fuseTimes, 50);
  console.log(
    `fuse.js baseline over ${allNames.length} names (build ${fuseBuildMs.toFixed(0)} ms): ${FUSE_QUERY_COUNT} searches, p50 ${(fuseP50 / 1000).toFixed(1)} ms, p99 ${(percentile(fuseTimes, 99) / 1000).toFixed(1)} ms`,
  );
  console.log(`ratio of p50 (fuse.js / matcher): ${(fuseP50 / percentile(times, 50)).toFixed(0)}×`);
  writeResults({
    measured_at: new Date().toISOString(),
    commit: gitCommit(),
    matcher_version: MATCHER_VERSION,
    listed_individuals: count,
    load_ms: Math.round(snapshotMs),
    index_ms: Math.round(indexMs),
    load_index_ms: Math.round(snapshotMs + indexMs),
    heap_mb: Number(heapAfter.toFixed(1)),
    p50_us: Math.round(percentile(times, 50)),
    p99_us: Math.round(percentile(times, 99)),
    cpu_us_per_screen: Math.round((cpu.user + cpu.system) / queries.length),
    fuse_p50_ms: Number((fuseP50 / 1000).toFixed(1)),
    ratio: Math.round(fuseP50 / percentile(times, 50)),
  });
}

/** The last run's figures, which `npm run eval` copies into docs/scorecard.md. */
export const BENCH_RESULTS = join(
  resolve(dirname(fileURLToPath(import.meta.url))),
  'results',
  'matcher-last.json',
);

function writeResults(figures: Record<string, string | number>): void {
  mkdirSync(dirname(BENCH_RESULTS), { recursive: true });
  writeFileSync(BENCH_RESULTS, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`figures written to ${BENCH_RESULTS}`);
}

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
