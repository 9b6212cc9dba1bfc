/**
 * Refreshes test/support/file-durations.json from the last `npm test` (its .vitest-results.json,
 * or the one named: `npm run test:durations -- /tmp/clone/.vitest-results.json`):
 * each test file's time, so the next run starts the slowest files first
 * (test/support/longest-first-sequencer.ts). Usage: npm run test:durations
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const results = JSON.parse(
  readFileSync(resolve(root, process.argv[2] ?? '.vitest-results.json'), 'utf8'),
) as {
  testResults: {
    name: string;
    startTime: number;
    endTime: number;
    assertionResults: { duration?: number }[];
  }[];
};
const durations: Record<string, number> = {};
for (const file of results.testResults) {
  // The tests' own time (hooks included in the span); a file whose tests took no time still has
  // its start-up, which the span leaves out, so the sum of its tests is the floor.
  const span = file.endTime - file.startTime;
  const tests = file.assertionResults.reduce((sum, test) => sum + (test.duration ?? 0), 0);
  // Relative to the repository the run was in (a clone elsewhere, as CI's, names its own root).
  const own = relative(root, file.name);
  const path = own.startsWith('..') ? file.name.slice(file.name.indexOf('/test/') + 1) : own;
  durations[path] = Math.round(Math.max(span, tests));
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(resolve(root, 'test/support/file-durations.json'), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${Object.keys(sorted).length} files → test/support/file-durations.json`);
