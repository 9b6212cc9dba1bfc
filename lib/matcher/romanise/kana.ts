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

/** Katakana marks that only foreign words use: the long-vowel bar, ヴ, the small vowels and ・. */
const FOREIGN_WORD_MARKS_RE = /[ーヴァィゥェォ・]/;
const LONG_VOWEL_MARK = 0x30fc;
const KATAKANA_RUN_RE = /[\u30a1-\u30fa\u30fc]+/g;

/**
 * Japanese phonotactics undone, so a Western name written in katakana lands on the consonants
 * the lists spell ("ジョン・スミス" John Smith → "jon smis", "プーチン" Putin → "putin"): Japanese
 * puts a vowel after every consonant but n (u, or o after t and d) and writes "ti" as チ.
 */
const FOREIGN_FOLDS: readonly (readonly [RegExp, string])[] = [
  // A vowel added after a consonant that ends a word or stands before another consonant.
  // チ renders "ti" in names from Russian and other European languages (Putin プーチン).
  [/chi/g, 'ti'],
  [/([bfgkmprsz]|ts|sh)u(?=[bcdfghjklmnprstvwz]|$)/g, '$1'],
  [/([td])o$/g, '$1'],
];

/**
 * Romanises the katakana of a name that katakana marks as foreign (one with ー, ヴ, a small vowel
 * or the ・ between its parts) and folds Japanese phonotactics onto the Western spelling; any
 * other kana is left for the Hepburn reading of `transliterateKana`.
 */
export function romaniseForeignKatakana(text: string): string {
  if (!FOREIGN_WORD_MARKS_RE.test(text)) return text;
  return text.replace(KATAKANA_RUN_RE, (run) => {
    let out = '';
    for (let i = 0; i < run.length; i++) {
      const code = run.charCodeAt(i);
      // ー marks the vowel before it as the name's own (プーチン), never an added one.
      out = code === LONG_VOWEL_MARK ? `${out}_` : transliterateKana(out, code, i > 0);
    }
    for (const [pattern, replacement] of FOREIGN_FOLDS) out = out.replace(pattern, replacement);
    return out.replaceAll('_', '');
  });
}
