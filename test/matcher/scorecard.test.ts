import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCORECARD } from '../../eval/scorecard.ts';
import { matcherSourceVersion } from '../../lib/matcher/source-hash.ts';

describe('the published scorecard (docs/scorecard.md)', () => {
  it('describes the matcher as it is now (run `npm run eval` after changing the matcher, and commit docs/scorecard.md)', () => {
    const text = readFileSync(SCORECARD, 'utf8');
    const recorded = /^- Matcher version: (matcher-[0-9a-f]+)$/m.exec(text)?.[1];
    expect(recorded, 'docs/scorecard.md is older than the matcher code: run `npm run eval`').toBe(
      matcherSourceVersion(),
    );
  });

  it('carries every section a release is judged on', () => {
    const text = readFileSync(SCORECARD, 'utf8');
    for (const heading of [
      '## Recall on listed-person variants',
      '### Per list',
      '### Per variant kind',
      '## Innocents per 1,000 screens, by script and origin',
      '## Wrong date of birth',
      '## Pair F1 on the public name benchmark',
      '## Speed',
    ])
      expect(text).toContain(heading);
    expect(text).toMatch(/^- Commit: [0-9a-f]{7,}/m);
    expect(text).toMatch(/^- Snapshot: built \d{4}-\d{2}-\d{2}/m);
  });
});
