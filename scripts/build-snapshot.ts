/**
 * Builds data/snapshot/watchlists.json from the list files under data/ and prints what each list
 * contributed. Usage: npm run build:snapshot [-- <output path>]
 */
import { statSync } from 'node:fs';
import { readSnapshot, writeSnapshot } from '../lib/matcher/snapshot-file.ts';
import { buildSnapshot, defaultDataDir, defaultSnapshotPath } from '../lib/watchlists/snapshot.ts';

const output = process.argv[2] ?? defaultSnapshotPath();
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
