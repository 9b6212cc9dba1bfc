/**
 * Refreshes test/support/file-durations.json from the last `npm test` (its .vitest-results.json):
 * each test file's time, so the next run starts the slowest files first
 * (test/support/longest-first-sequencer.ts). Usage: npm run test:durations
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const results = JSON.parse(readFileSync(resolve(root, '.vitest-results.json'), 'utf8')) as {
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
  durations[relative(root, file.name)] = Math.round(Math.max(span, tests));
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(resolve(root, 'test/support/file-durations.json'), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${Object.keys(sorted).length} files → test/support/file-durations.json`);
