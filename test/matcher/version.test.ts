import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  MATCHER_VERSION_FILE,
  matcherSourceFiles,
  matcherSourceVersion,
  matcherVersionFileText,
} from '../../lib/matcher/source-hash.ts';
import { MATCHER_VERSION } from '../../lib/matcher/version.ts';

describe('the matcher version recorded on screen receipts', () => {
  it('is the hash of the matcher sources as they are now (run `npm run matcher:version` after changing them)', () => {
    const current = matcherSourceVersion();
    expect(
      MATCHER_VERSION,
      `lib/matcher changed since its version was recorded: run \`npm run matcher:version\` and commit ${MATCHER_VERSION_FILE}`,
    ).toBe(current);
    expect(readFileSync(MATCHER_VERSION_FILE, 'utf8')).toBe(matcherVersionFileText(current));
  });

  it('covers every matcher module and the list modules matching reads, not the list parsers', () => {
    const files = matcherSourceFiles();
    expect(files).toEqual(
      expect.arrayContaining([
        'matcher/screen.ts',
        'matcher/results.ts',
        'matcher/risk.ts',
        'matcher/romanise/han.ts',
        'watchlists/countries.ts',
      ]),
    );
    expect(files).not.toContain('matcher/version.ts');
    expect(
      files.filter((f) => f.startsWith('watchlists/') && /un-consolidated|ofac|snapshot/.test(f)),
    ).toEqual([]);
  });
});
