/**
 * `npm run bench:compare [-- <base commit>]`: runs the matcher benchmark (bench/matcher.ts)
 * alternately on a base commit (default HEAD~1) and on this working tree, three rounds each, and
 * prints each run's figures and how many runs of each met issue 22's speed targets (all three in
 * one run). Alternating spreads the load of a shared machine over both sides. The base is checked
 * out into a temporary git worktree with this tree's node_modules linked, and its snapshot built
 * there by its own code.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Issue 22, item 6: fuse.js p50 / matcher p50, snapshot load + index build, heap after load. */
const TARGETS = { ratio: 1500, loadIndexMs: 400, heapMb: 90 };
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface RunFigures {
  side: 'base' | 'work';
  ratio: number;
  loadIndexMs: number;
  heapMb: number;
  p50Us: number;
  load: string;
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function figure(output: string, pattern: RegExp): number {
  const m = output.match(pattern);
  if (!m) throw new Error(`bench output lacks ${pattern}:\n${output}`);
  return Number(m[1].replace(/,/g, ''));
}

function benchIn(dir: string, side: RunFigures['side']): RunFigures {
  const load = loadavg()[0].toFixed(1);
  const output = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'bench/matcher.ts'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return {
    side,
    ratio: figure(output, /ratio of p50 \(fuse\.js \/ matcher\): (\d+)/),
    loadIndexMs: figure(output, /total (\d+) ms/),
    heapMb: figure(output, /heap: ([\d.]+) MB after load/),
    p50Us: figure(output, /p50 (\d+) µs/),
    load,
  };
}

const meets = (r: RunFigures): boolean =>
  r.ratio >= TARGETS.ratio && r.loadIndexMs <= TARGETS.loadIndexMs && r.heapMb <= TARGETS.heapMb;

function main(): void {
  const base = process.argv[2] ?? 'HEAD~1';
  const commit = execFileSync('git', ['rev-parse', '--short', base], { cwd: root, encoding: 'utf8' }).trim();
  const dir = mkdtempSync(join(tmpdir(), 'bench-base-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
  try {
    git('worktree', 'add', '--detach', dir, commit);
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    console.log(`base ${commit} checked out in ${dir}; building its snapshot`);
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build-snapshot.ts'], {
      cwd: dir,
      stdio: 'ignore',
    });
    const runs: RunFigures[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const [side, cwd] of [
        ['base', dir],
        ['work', root],
      ] as const) {
        const r = benchIn(cwd, side);
        runs.push(r);
        console.log(
          `${side} round ${round + 1}: ratio ${r.ratio}×, p50 ${r.p50Us} µs, load + index ${r.loadIndexMs} ms, heap ${r.heapMb} MB, load average ${r.load}${meets(r) ? ' (meets the targets)' : ''}`,
        );
      }
    }
    for (const side of ['base', 'work'] as const) {
      const mine = runs.filter((r) => r.side === side);
      console.log(
        `${side === 'base' ? `base ${commit}` : 'working tree'}: ${mine.filter(meets).length} of ${mine.length} runs met all targets (ratio ≥ ${TARGETS.ratio}×, load + index ≤ ${TARGETS.loadIndexMs} ms, heap ≤ ${TARGETS.heapMb} MB)`,
      );
    }
  } finally {
    git('worktree', 'remove', '--force', dir);
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
