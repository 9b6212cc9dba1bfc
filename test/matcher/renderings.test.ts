import { describe, expect, it } from 'vitest';
import { compareNames, NAME_ALERT_THRESHOLD } from '../../lib/matcher/name-score.ts';
import { tokeniseName } from '../../lib/matcher/normalise.ts';
import { PARTIAL_NAME } from '../../lib/matcher/risk.ts';
import {
  renderedVowelsAgree,
  renderingSkeleton,
  renderingSkeletons,
} from '../../lib/matcher/string-similarity.ts';
import { tokenSimilarity } from '../../lib/matcher/token-similarity.ts';

describe('renderings of a Latin name in another script, read back (issue 37 item 3)', () => {
  it('folds renderings of one name to one consonant skeleton', () => {
    expect(renderingSkeleton('mcconnell')).toBe('mknl');
    expect(renderingSkeleton('makkonnell')).toBe('mknl');
    expect(renderingSkeleton('makonel')).toBe('mknl');
    expect(renderingSkeleton('dzhordzh')).toBe(renderingSkeleton('george'));
    // Two names apart stay apart.
    expect(renderingSkeleton('khaled')).not.toBe(renderingSkeleton('hamid'));
  });

  it('reads a Persian or Hebrew vowel letter as a vowel or as v', () => {
    // لیونوو → "liunuu" is Leonov: the last و is v.
    expect(renderingSkeletons('liunuu')).toContain(renderingSkeleton('leonov'));
    // A plain rendering has one skeleton.
    expect(renderingSkeletons('smit')).toEqual([renderingSkeleton('smith')]);
  });

  it('agrees on vowels only where the rendering writes the listed vowels', () => {
    expect(renderedVowelsAgree('jurj', 'george')).toBe(true);
    expect(renderedVowelsAgree('mkvriid', 'mcbride')).toBe(true);
    // خلود is not Khaled, زروق not Zuraik: the written u is where the listed name has none.
    expect(renderedVowelsAgree('khlud', 'khaled')).toBe(false);
    expect(renderedVowelsAgree('zruq', 'zuraik')).toBe(false);
  });

  it('finds a whole name rendered in Hebrew, Persian or respelt the Baltic way in the partial band', () => {
    for (const [query, listed] of [
      ["ג'ורג' לאטאיימר", 'George Latimer'],
      ['סארא מאקבראייד', 'Sarah McBride'],
      ['سیرگي لیونوو', 'Sergei Leonov'],
      ['Kevinas Hernas', 'Kevin Hern'],
      ['Džuli Fedorčaks', 'Julie Fedorchak'],
    ])
      expect({ query, partial: compareNames(query, listed) >= PARTIAL_NAME }).toEqual({
        query,
        partial: true,
      });
  });

  it('keeps names that agree only by consonants in the weak band', () => {
    const s = compareNames('خلود الشريف', 'SHARROUF, Khaled');
    expect(s >= NAME_ALERT_THRESHOLD && s < PARTIAL_NAME).toBe(true);
  });

  it('reads a Baltic j as y, never as the Turkish zh: "Maja" in a respelt name is not Massie', () => {
    const [maja] = tokeniseName('Maja Thiomas');
    expect(maja.respelt).toBe(true);
    expect(tokenSimilarity(maja, tokeniseName('Massie')[0])).toBeLessThan(0.87);
  });
});
