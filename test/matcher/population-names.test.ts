/**
 * The population table's lookups (lib/matcher/population-names.ts) as the matcher's speed work
 * left them: the romanisation key worked out in one pass, and the answers kept per country and
 * part, must give what the table gave before.
 */
import { describe, expect, it } from 'vitest';
import table from '../../data/names/name-commonness.json' with { type: 'json' };
import { PopulationNames, populationNames, spellingKey } from '../../lib/matcher/population-names.ts';

/** The key as the replacements it stands for spell it, one after the other. */
function keyByReplacing(text: string): string {
  return text
    .replace(/x/g, 'ks')
    .replace(/kh/g, 'h')
    .replace(/[jy]/g, 'i')
    .replace(/i+/g, 'i')
    .replace(/^ie/, 'e');
}

const parts = table.names.split('\n').map((line) => line.split(' ')[0]);

describe('the romanisation key of a name part', () => {
  it('is what the replacements give, for every part the table holds', () => {
    const differing = parts.filter((p) => spellingKey(p) !== keyByReplacing(p));
    expect(parts.length).toBeGreaterThan(20_000);
    expect(differing).toEqual([]);
  });

  it('is what the replacements give where they meet: kh after k, x before h, runs of i, y and j', () => {
    for (const text of [
      'kkh',
      'khh',
      'xh',
      'kxh',
      'yjy',
      'iye',
      'yevgeniy',
      'iex',
      'jie',
      'aleksey',
      'alexey',
    ])
      expect(spellingKey(text), text).toBe(keyByReplacing(text));
    expect(spellingKey('dmitrij')).toBe('dmitri');
    expect(spellingKey('yevgeniy')).toBe('evgeni');
  });
});

describe('a part’s share looked up again', () => {
  it('is the same answer, in the subject’s country and anywhere', () => {
    const fresh = new PopulationNames(table);
    const shared = populationNames();
    for (const [text, code] of [
      ['santos', 'BR'],
      ['santos', undefined],
      ['dmitrij', 'RU'],
      ['nguyen', 'VN'],
      ['nguyen', 'DE'],
      ['zzqx', undefined],
    ] as const) {
      const first = shared.shareOfAnySpelling(text, code);
      expect(shared.shareOfAnySpelling(text, code), `${text} ${code}`).toEqual(first);
      expect(fresh.shareOfAnySpelling(text, code), `${text} ${code}`).toEqual(first);
    }
    expect(shared.shareOfAnySpelling('santos', 'BR')?.country).toBe('BR');
    expect(shared.shareOfAnySpelling('zzqx')).toBeUndefined();
  });
});
