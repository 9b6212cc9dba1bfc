/**
 * `npm run bench:interleaved -- <commit or directory>`: the matcher of this working tree against
 * another one in one process, query by query. Each round builds a fresh matcher of each side,
 * warms both on `npm run bench`'s first 300 queries, then screens every one of its 3,000 queries
 * on both, one right after the other, the side going first alternating. A shared machine's noise
 * then falls on both sides alike, which separate processes (`npm run bench:compare`) cannot give:
 * there a run's p50 moves by a third between two runs of the same code.
 *
 * The other side is a directory holding a checkout with its own `node_modules` (an experiment's
 * git worktree) or a commit, checked out into a temporary worktree with this tree's modules
 * linked. Its snapshot is its own (`loadSnapshot` builds or recompiles it on first load, before
 * the rounds, so that every round reads it from its file). Prints
 * each round's p50 and mean per side and their ratio (this tree / the other); with
 * `BENCH_CHECK=1` also how many of the 3,000 results differ between the two (as JSON).
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMatcher, type Matcher } from '../lib/matcher/screen.ts';
import { loadSnapshot } from '../lib/matcher/snapshot-file.ts';
import { CHECK_TYPES } from '../lib/watchlists/types.ts';
import { benchInput } from './matcher.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP = 300;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
}

/** A fresh matcher of the other side, from its own modules and its own snapshot. */
async function otherMatchers(dir: string): Promise<() => Matcher> {
  const screen = await import(pathToFileURL(join(dir, 'lib/matcher/screen.ts')).href);
  const file = await import(pathToFileURL(join(dir, 'lib/matcher/snapshot-file.ts')).href);
  return () => screen.createMatcher(file.loadSnapshot()) as Matcher;
}

async function main(): Promise<void> {
  const target = process.argv[2] ?? 'HEAD~1';
  let dir = resolve(target);
  let temporary: string | undefined;
  if (!existsSync(join(dir, 'lib/matcher/screen.ts'))) {
    const commit = execFileSync('git', ['rev-parse', '--short', target], {
      cwd: root,
      encoding: 'utf8',
    }).trim();
    temporary = mkdtempSync(join(tmpdir(), 'bench-other-'));
    execFileSync('git', ['worktree', 'add', '--detach', temporary, commit], { cwd: root, stdio: 'ignore' });
    symlinkSync(join(root, 'node_modules'), join(temporary, 'node_modules'));
    dir = temporary;
    console.log(`other side: ${commit}, checked out in ${dir}`);
  } else console.log(`other side: ${dir}`);
  try {
    const otherMatcher = await otherMatchers(dir);
    // Each side's snapshot file is written (or its index recompiled) before the rounds: a side
    // building it from data/ in round 1 would screen on people held as objects, while the other
    // parses each person from the file the first time it reports them (snapshot-people.ts), as
    // every later round and every cold start does.
    loadSnapshot();
    otherMatcher();
    const { queries } = benchInput();
    for (let round = 0; round < ROUNDS; round++) {
      const a = createMatcher(loadSnapshot());
      const b = otherMatcher();
      for (let i = 0; i < WARM_UP; i++) {
        a.screen(queries[i], CHECK_TYPES);
        b.screen(queries[i], CHECK_TYPES);
      }
      const times: [number[], number[]] = [[], []];
      let differ = 0;
      for (let i = 0; i < queries.length; i++) {
        const results: unknown[] = [undefined, undefined];
        for (const s of i % 2 === 0 ? [0, 1] : [1, 0]) {
          const t = performance.now();
          results[s] = (s === 0 ? a : b).screen(queries[i], CHECK_TYPES);
          times[s].push((performance.now() - t) * 1000);
        }
        if (process.env.BENCH_CHECK && JSON.stringify(results[0]) !== JSON.stringify(results[1])) differ++;
      }
      const [p50a, p50b] = times.map(median);
      const [meanA, meanB] = times.map((t) => t.reduce((x, y) => x + y, 0) / t.length);
      console.log(
        `round ${round + 1}: p50 this tree ${p50a.toFixed(0)} µs, other ${p50b.toFixed(0)} µs (ratio ${(p50a / p50b).toFixed(3)}); mean ${meanA.toFixed(0)} / ${meanB.toFixed(0)} µs (ratio ${(meanA / meanB).toFixed(3)})${process.env.BENCH_CHECK ? `; ${differ} of ${queries.length} results differ` : ''}`,
      );
    }
  } finally {
    if (temporary) {
      execFileSync('git', ['worktree', 'remove', '--force', temporary], { cwd: root, stdio: 'ignore' });
      rmSync(temporary, { recursive: true, force: true });
    }
  }
}

await main();
