import { describe, expect, it } from 'vitest';
import { isWellFormedText, stripControls } from '../../lib/common/text-input.ts';
import { readableLetterCount } from '../../lib/screening/readable-name.ts';

describe('free-text rules', () => {
  it('strips C0, C1 and bidi controls; one-line text turns breaks into spaces, notes keep them', () => {
    const text = '\u202eAb\u0000c\u0085\r\nd\te\u2067';
    expect(stripControls(text)).toBe('Abc d e');
    expect(stripControls(text, true)).toBe('Abc\nd\te');
  });

  it('accepts text outside the Basic Multilingual Plane; refuses unpaired surrogates and noncharacters', () => {
    expect(isWellFormedText('𝔄𝔩𝔦𝔠𝔢 😀 Ελένη')).toBe(true);
    expect(isWellFormedText('a\ud800b')).toBe(false);
    expect(isWellFormedText('a\udc00')).toBe(false);
    expect(isWellFormedText('a\uffff')).toBe(false);
    expect(isWellFormedText('a\u{1fffe}')).toBe(false);
    expect(isWellFormedText('a\ufdd0')).toBe(false);
  });

  it('counts the letters the matcher can read: titles, punctuation, emoji and unread scripts count none', () => {
    expect(readableLetterCount('Владимир Путин')).toBe(13);
    expect(readableLetterCount('Mr X')).toBe(1);
    expect(readableLetterCount('--..,,')).toBe(0);
    expect(readableLetterCount('\u200b\u200b')).toBe(0);
    expect(readableLetterCount('李明')).toBe(6);
    expect(readableLetterCount('ဗလာ')).toBe(0);
    expect(readableLetterCount('𝔄𝔩')).toBe(2);
  });
});
