/** Japanese kana (hiragana and katakana), after Hepburn. */

// Kana: hiragana U+3041..U+3096 in code-point order (katakana is the same list at +0x60),
// romanised after Hepburn. Small ya/yu/yo and small vowels combine with the syllable before.
const KANA = (
  'a a i i u u e e o o ka ga ki gi ku gu ke ge ko go sa za shi ji su zu se ze so zo ta da chi ji - tsu zu ' +
  'te de to do na ni nu ne no ha ba pa hi bi pi fu bu pu he be pe ho bo po ma mi mu me mo ya ya yu yu yo yo ' +
  'ra ri ru re ro wa wa i e o n vu ka ke'
).split(' ');
/** Small kana that modify the syllable before them rather than stand alone. */
const SMALL_KANA = new Set([0x3041, 0x3043, 0x3045, 0x3047, 0x3049, 0x3083, 0x3085, 0x3087, 0x308e]);
const SOKUON = 0x3063;

export function isKana(code: number): boolean {
  return code >= 0x3041 && code <= 0x30fc;
}

/** Romanises one kana character given the Latin text produced so far. */
export function transliterateKana(out: string, code: number, previousKana: boolean): string {
  if (code === 0x30fb) return `${out} `; // ・ separates the parts of a foreign name
  if (code === 0x30fc) return out; // ー lengthens the vowel; lists write it single
  const h = code >= 0x30a1 ? code - 0x60 : code;
  const romaji = KANA[h - 0x3041] ?? '';
  if (h === SOKUON) return `${out}-`;
  if (previousKana && SMALL_KANA.has(h) && /[aeiou]$/.test(out)) {
    const vowel = romaji.slice(-1);
    // き+ゃ → kya, し+ゃ → sha; フ+ィ → fi, ヴ+ァ → va.
    if (romaji.startsWith('y'))
      return /(sh|ch|j)i$/.test(out) ? out.slice(0, -1) + vowel : `${out.slice(0, -1)}y${vowel}`;
    return out.slice(0, -1) + vowel;
  }
  // Long ō written おう / オウ appears as a single o in lists (Tōkyō → Tokyo).
  if (previousKana && romaji === 'u' && out.endsWith('o')) return out;
  // っ doubles the consonant that follows it.
  if (out.endsWith('-')) return out.slice(0, -1) + romaji[0] + romaji;
  return out + romaji;
}
