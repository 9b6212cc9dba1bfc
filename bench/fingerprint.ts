/**
 * `npm run bench:fingerprint`: screens a fixed set of subjects through the matcher and prints one
 * hash of every result, with the time and CPU time the screens took. A change made for speed must
 * leave the hash as it was: run it on the base commit (a `git worktree` of it) and on the change,
 * alternately, and compare.
 *
 * The subjects: 6,000 listed names, half of them with one letter dropped, a third with the listed
 * person's date of birth and a quarter with their nationality (deterministic pseudo-random picks),
 * then every invented innocent of the eval's dev half by name only and with their date of birth.
 */

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMatcher } from '../lib/matcher/screen.ts';
import { loadSnapshot } from '../lib/matcher/snapshot-file.ts';
import type { SubjectInput } from '../lib/matcher/types.ts';
import { CHECK_TYPES } from '../lib/watchlists/types.ts';
import { random } from './random.ts';

const LISTED_SUBJECTS = 6000;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The subjects, read from a snapshot loaded apart from the matcher's (whose people stay unread). */
function subjects(): SubjectInput[] {
  const { people } = loadSnapshot();
  const rnd = random(1);
  const out: SubjectInput[] = [];
  for (let i = 0; i < LISTED_SUBJECTS; i++) {
    const person = people[Math.floor(rnd() * people.length)];
    const name = person.names[Math.floor(rnd() * person.names.length)].name;
    const chars = [...name];
    chars.splice(1 + Math.floor(rnd() * Math.max(1, chars.length - 2)), 1);
    const dob = person.dobs[0]?.kind === 'date' ? person.dobs[0].date : undefined;
    out.push({
      name: i % 2 === 1 ? name : chars.join(''),
      dob: i % 3 === 0 ? dob : undefined,
      nationality: i % 4 === 0 ? person.nationalities[0] : undefined,
    });
  }
  const innocents = readFileSync(join(root, 'eval', 'fixtures', 'innocents', 'dev.csv'), 'utf8');
  for (const line of innocents.split('\n').slice(1)) {
    const [, name, dob] = line.split(',');
    if (!name) continue;
    out.push({ name }, { name, dob });
  }
  return out;
}

function main(): void {
  const matcher = createMatcher(loadSnapshot());
  const all = subjects();
  const hash = createHash('sha256');
  let alerts = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (const subject of all) {
    const result = matcher.screen(subject, CHECK_TYPES);
    if (result.risk_level !== 'CLEAR') alerts++;
    hash.update(JSON.stringify(result));
  }
  const used = process.cpuUsage(cpu);
  console.log(
    `${all.length} screens, ${alerts} not CLEAR, results ${hash.digest('hex').slice(0, 16)}; ${(performance.now() - started).toFixed(0)} ms, CPU ${((used.user + used.system) / 1000).toFixed(0)} ms`,
  );
}

main();
