/**
 * Builds data/snapshot/watchlists.json from the list files under data/ and prints what each list
 * contributed. Usage: npm run build:snapshot [-- <output path>] [--force]
 *
 * A content hash of every input (below) is kept beside the snapshot (`<output>.inputs-sha256`):
 * when the snapshot exists and its inputs have not changed, nothing is rebuilt (`--force` rebuilds).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { readSnapshot, writeSnapshot } from '../lib/matcher/snapshot-file.ts';
import { buildSnapshot, defaultDataDir, defaultSnapshotPath } from '../lib/watchlists/snapshot.ts';

const args = process.argv.slice(2);
const force = args.includes('--force');
const output = args.find((arg) => arg !== '--force') ?? defaultSnapshotPath();

/**
 * What the build reads: every list file under data/ (the snapshot itself left out), the code that
 * parses, links and indexes them (lib/watchlists, lib/matcher, lib/common, this script), and the
 * lock file (the parsers' versions). A whole directory, so a file added to one is covered too.
 */
const repoRoot = resolve(import.meta.dirname, '..');
const INPUTS = [
  'data',
  'lib/watchlists',
  'lib/matcher',
  'lib/common',
  'scripts/build-snapshot.ts',
  'package-lock.json',
];
function inputsHash(): string {
  const hash = createHash('sha256');
  const snapshotDir = resolve(repoRoot, 'data/snapshot');
  const add = (path: string) => {
    if (path === snapshotDir || !existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) add(join(path, name));
      return;
    }
    hash
      .update(`${relative(repoRoot, path)}\0`)
      .update(readFileSync(path))
      .update('\0');
  };
  for (const input of INPUTS) add(resolve(repoRoot, input));
  return hash.digest('hex');
}
const hashFile = `${output}.inputs-sha256`;
const inputs = inputsHash();
if (
  !force &&
  existsSync(output) &&
  existsSync(hashFile) &&
  readFileSync(hashFile, 'utf8').trim() === inputs
) {
  console.log(
    `${output} is up to date (inputs unchanged, sha256 ${inputs.slice(0, 12)}); --force rebuilds it`,
  );
  process.exit(0);
}

const started = Date.now();
const snapshot = buildSnapshot(defaultDataDir(), {
  // One line per list as it is parsed: the progress `npm start` shows while it compiles.
  onList: (list, parsed, total) =>
    console.log(
      `parsed ${list.id}: ${list.individual_count} individuals (${parsed} of ${total} lists, ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    ),
});
console.log(`linked into ${snapshot.people.length} people; compiling their name index`);
writeSnapshot(snapshot, output);
writeFileSync(hashFile, `${inputs}\n`);
const buildMs = Date.now() - started;

const loadStarted = performance.now();
readSnapshot(output);
const loadMs = performance.now() - loadStarted;

const rows = snapshot.lists.map((list) => ({
  list: list.id,
  category: list.category,
  source_date: list.source_date,
  records: list.entity_count,
  individuals: list.individual_count,
  linked: list.linked_count ?? 0,
}));
console.table(rows);
const names = snapshot.people.reduce((sum, person) => sum + person.names.length, 0);
const sizeMb = statSync(output).size / 1_048_576;
console.log(
  `${snapshot.people.length} people to screen (listings of one person on several lists linked), ${names} names → ${output} ` +
    `(${sizeMb.toFixed(1)} MB; built in ${buildMs} ms; read + JSON.parse ${loadMs.toFixed(0)} ms)`,
);
