import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dir = new URL('../../lib/watchlists/', import.meta.url);

describe('lib/watchlists', () => {
  // The matcher reads the lists; the lists must not read the matcher, or the two form a cycle
  // (snapshot loading with the compiled name index lives in lib/matcher/snapshot-file.ts).
  it('imports nothing from lib/matcher', () => {
    const offenders = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /from '\.\.\/matcher\//.test(readFileSync(new URL(f, dir), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
