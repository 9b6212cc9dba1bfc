/**
 * `npm run bench:near`: what the stored near tokens (lib/matcher/near-tokens.ts) save per screen,
 * measured in one process so both sides see the same machine: a matcher on the snapshot as written
 * and one on the same snapshot with its near tokens left out (each query token then looked up and
 * compared, as before they were stored), each fresh, alternately, over `npm run bench`'s 3,000
 * queries after its 300 warm-up screens. Prints each round's p50 and mean CPU time per screen; the
 * first round of each side also warms the JIT and is worth discounting.
 */

import { attachedCompiledIndex } from '../lib/matcher/compiled-index.ts';
import { createMatcher, type Matcher } from '../lib/matcher/screen.ts';
import { loadSnapshot } from '../lib/matcher/snapshot-file.ts';
import { CHECK_TYPES } from '../lib/watchlists/types.ts';
import { benchInput } from './matcher.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const WARM_UP = 300;

function matcher(withNear: boolean): Matcher {
  const snapshot = loadSnapshot();
  const stored = attachedCompiledIndex(snapshot);
  if (!withNear && stored) stored.near = undefined;
  return createMatcher(snapshot);
}

function main(): void {
  const { queries } = benchInput();
  for (let round = 0; round < ROUNDS; round++) {
    for (const withNear of round % 2 === 0 ? [true, false] : [false, true]) {
      const m = matcher(withNear);
      for (let i = 0; i < WARM_UP; i++) m.screen(queries[i], CHECK_TYPES);
      const times: number[] = [];
      const cpu = process.cpuUsage();
      for (const q of queries) {
        const t = performance.now();
        m.screen(q, CHECK_TYPES);
        times.push((performance.now() - t) * 1000);
      }
      const used = process.cpuUsage(cpu);
      times.sort((a, b) => a - b);
      console.log(
        `round ${round + 1}, ${withNear ? 'near tokens stored ' : 'near tokens left out'}: p50 ${times[times.length >> 1].toFixed(0)} µs, CPU ${((used.user + used.system) / queries.length).toFixed(0)} µs per screen`,
      );
    }
  }
}

main();
