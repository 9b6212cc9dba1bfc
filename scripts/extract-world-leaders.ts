/**
 * Writes data/pep/world_leaders_2019/world-leaders.tsv (name, office, country) from the CIA World
 * Leaders JSON conversion. The conversion itself is not shipped (its repository grants no
 * licence); see lib/watchlists/world-leaders.ts.
 * Usage: npm run extract:world-leaders [-- <json.zip>]   (default: ../shared/data/pep/cia_world_leaders_2019/json.zip)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { defaultDataDir } from '../lib/watchlists/snapshot.ts';
import { extractWorldLeaders, WORLD_LEADERS_FILE } from '../lib/watchlists/world-leaders.ts';

const input = resolve(
  process.argv[2] ?? join(defaultDataDir(), '../../shared/data/pep/cia_world_leaders_2019/json.zip'),
);
const output = join(defaultDataDir(), WORLD_LEADERS_FILE);
const tsv = extractWorldLeaders(readFileSync(input));
mkdirSync(dirname(output), { recursive: true });
writeFileSync(output, tsv);
console.log(
  `${output}: ${tsv.split('\n').filter((l) => l && !l.startsWith('#')).length - 1} rows from ${input}`,
);
