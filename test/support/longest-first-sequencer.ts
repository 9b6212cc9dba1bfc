import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import durations from './file-durations.json' with { type: 'json' };

/**
 * Starts the slowest test files of each project first, so that the run does not end with one
 * worker on a minute-long file while the other idles. Vitest orders by the times it
 * cached from the last run, but a fresh clone (CI) has no cache: it would run files in the order it
 * found them, project by project, and the long browser and sync files landed last.
 *
 * The times are test/support/file-durations.json, measured by a whole run (`npm run
 * test:durations` refreshes it from the last `npm test`). A file not in it yet counts as the
 * median, so a new file neither jumps the queue nor waits for the end. Projects keep vitest's order
 * (by group, then name), each project's files together: the files of a project that shares its
 * worker's modules (`isolate: false`) follow one another on that worker, and the last project
 * (`unit`, the many short files) fills the end of the run.
 */
const known = durations as Record<string, number>;
const times = Object.values(known).sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)] ?? 0;

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const time = (spec: TestSpecification) => known[relative(root, spec.moduleId)] ?? median;
    return [...files].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        a.project.name.localeCompare(b.project.name) ||
        time(b) - time(a),
    );
  }
}
