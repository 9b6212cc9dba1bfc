/** Korean Hangul syllables. */

// Hangul syllables decompose arithmetically into lead consonant, vowel and tail consonant
// (Unicode 3.12); romanised after Revised Romanization with the forms lists commonly use.
const HANGUL_LEADS = [
  'g',
  'kk',
  'n',
  'd',
  'tt',
  'r',
  'm',
  'b',
  'pp',
  's',
  'ss',
  '',
  'j',
  'jj',
  'ch',
  'k',
  't',
  'p',
  'h',
];
const HANGUL_VOWELS = [
  'a',
  'ae',
  'ya',
  'yae',
  'o',
  'e',
  'yo',
  'ye',
  'o',
  'wa',
  'wae',
  'oe',
  'yo',
  'u',
  'wo',
  'we',
  'wi',
  'yu',
  'u',
  'ui',
  'i',
];
const HANGUL_TAILS = [
  '',
  'k',
  'k',
  'k',
  'n',
  'n',
  'n',
  't',
  'l',
  'k',
  'm',
  'l',
  'l',
  'l',
  'p',
  'l',
  'm',
  'p',
  'p',
  't',
  't',
  'ng',
  't',
  't',
  'k',
  't',
  'p',
  't',
];

/**
 * Korean family names as lists romanise them (McCune-Reischauer-era spellings: Kim, Lee, Park),
 * which Revised Romanization would render gim, i, bak.
 */
export const HANGUL_SURNAMES: Record<string, string> = {
  김: 'kim',
  이: 'lee',
  리: 'ri',
  박: 'park',
  최: 'choi',
  정: 'jung',
  강: 'kang',
  조: 'cho',
  윤: 'yoon',
  장: 'jang',
  임: 'lim',
  한: 'han',
  오: 'oh',
  서: 'seo',
  신: 'shin',
  권: 'kwon',
  황: 'hwang',
  안: 'ahn',
  송: 'song',
  류: 'ryu',
  홍: 'hong',
};

export function hangulRunLength(text: string, from: number): number {
  let n = 0;
  while (from + n < text.length && text.charCodeAt(from + n) >= 0xac00 && text.charCodeAt(from + n) <= 0xd7a3)
    n++;
  return n;
}

export function transliterateHangul(code: number): string {
  const index = code - 0xac00;
  const lead = Math.floor(index / 588);
  const vowel = Math.floor((index % 588) / 28);
  const tail = index % 28;
  return HANGUL_LEADS[lead] + HANGUL_VOWELS[vowel] + HANGUL_TAILS[tail];
}
