/**
 * The Indic scripts (Devanagari, Bengali, Gurmukhi, Gujarati, Oriya, Tamil, Telugu, Kannada,
 * Malayalam) → Latin, as Indian and Nepali names are written in passports and on the lists
 * ("कमल अधिकारी" → "kamal adhikari", "ಪುತಿನ್" → "putin").
 *
 * The letters are read by `@indic-transliteration/sanscript` (https://github.com/indic-transliteration/sanscript.js),
 * the maintained transliterator of the Indic scripts into IAST; this module only turns IAST into
 * the plain spelling names take (ś, ṣ → sh; c → ch; ṛ → ri; the nasal ṃ → n or m) and drops the
 * inherent final vowel the northern languages do not pronounce (Hindi, Nepali, Bengali, Punjabi
 * and Gujarati write "Kamal" as कमल, which IAST spells "kamala").
 */

import { createRequire } from 'node:module';

// The package is CommonJS (`module.exports = Sanscript`) while its types declare an ES default
// export, which TypeScript's Node module resolution then puts one level deeper than it is.
type Sanscript = typeof import('@indic-transliteration/sanscript').default;
let sanscript: Sanscript | undefined;

/**
 * Sanscript, loaded at the first word written in an Indic script, never on a Latin-script screen.
 * A bundler turns the literal `require` into its own lazily evaluated copy of the package; Node's
 * ES modules (tsx, vitest) have no `require`, so one is made there.
 */
function loadSanscript(): Sanscript {
  sanscript ??= (
    typeof require === 'function'
      ? require('@indic-transliteration/sanscript')
      : createRequire(import.meta.url)('@indic-transliteration/sanscript')
  ) as Sanscript;
  return sanscript;
}

/** The Indic blocks, 128 code points each, sharing one layout (after ISCII). */
export const INDIC_RE = /[\u0900-\u0d7f]/;
const INDIC_WORD_RE = /[\u0900-\u0d7f\u200c\u200d]+/g;

const SCHEMES: readonly string[] = [
  'devanagari',
  'bengali',
  'gurmukhi',
  'gujarati',
  'oriya',
  'tamil',
  'telugu',
  'kannada',
  'malayalam',
];
/** Scripts of languages that drop the inherent vowel after a word's last consonant. */
const FINAL_SCHWA_DROPPED = new Set(['devanagari', 'bengali', 'gurmukhi', 'gujarati', 'oriya']);

const VIRAMA = 0x4d;
const NUKTA = 0x3c;
/** Malayalam chillu letters: a consonant without its vowel, written as one letter. */
const CHILLU: Record<string, string> = {
  ൺ: 'ണ്',
  ൻ: 'ന്',
  ർ: 'ര്',
  ൽ: 'ല്',
  ൾ: 'ള്',
  ൿ: 'ക്',
};

const isConsonant = (offset: number) =>
  (offset >= 0x15 && offset <= 0x39) || (offset >= 0x58 && offset <= 0x5f);

const IAST_TO_NAME: readonly (readonly [RegExp, string])[] = [
  [/jñ/g, 'gy'],
  [/[śṣ]/g, 'sh'],
  [/c(?!h)/g, 'ch'],
  [/ṛ|r̥/g, 'ri'],
  [/ṃ(?=[pbm])/g, 'm'],
  // सिंह is written Singh.
  [/ṃh/g, 'ngh'],
  [/[ṃṁ]/g, 'n'],
  [/ḥ/g, ''],
];

/** IAST sounds: aspirated stops and the diphthongs are one sound in two letters. */
const IAST_SOUND_RE = /[kgcjṭḍtdpb]h|ai|au|./gu;
const IAST_VOWEL_RE = /^(?:[aāiīuūeoṛṝḷ]|ai|au)$/;

/**
 * The inherent vowel the northern languages do not pronounce inside a word either: between a
 * vowel and consonant on its left and a consonant and vowel on its right, scanning from the end
 * (चोपरा "coparā" is Chopra, रामचन्द्र "rāmacandra" Ramchandra). In IAST every short `a` after a
 * word's first letter is an inherent vowel, since no vowel sign writes it.
 */
function dropMedialSchwa(word: string): string {
  const sounds = word.match(IAST_SOUND_RE) ?? [];
  const vowel = (i: number) => i >= 0 && i < sounds.length && IAST_VOWEL_RE.test(sounds[i]);
  const consonant = (i: number) => i >= 0 && i < sounds.length && !vowel(i);
  for (let i = sounds.length - 3; i >= 2; i--) {
    if (sounds[i] === 'a' && vowel(i - 2) && consonant(i - 1) && consonant(i + 1) && vowel(i + 2))
      sounds.splice(i, 1);
  }
  return sounds.join('');
}

/** Romanises one word of one Indic script. */
function romaniseWord(word: string): string {
  const letters = word.replace(/[\u200c\u200d]/g, '').replace(/[ൺൻർൽൾൿ]/g, (c) => CHILLU[c]);
  if (letters === '') return '';
  const block = letters.charCodeAt(0) & ~0x7f;
  const scheme = SCHEMES[(block - 0x0900) >> 7];
  if (scheme === undefined) return '';
  let native = [...letters].filter((c) => (c.charCodeAt(0) & 0x7f) !== NUKTA).join('');
  if (FINAL_SCHWA_DROPPED.has(scheme)) {
    const last = native.charCodeAt(native.length - 1) & 0x7f;
    const before = native.length > 1 ? native.charCodeAt(native.length - 2) & 0x7f : -1;
    // A final consonant with no vowel sign is pronounced bare: add the virama that says so.
    if (isConsonant(last) && before !== VIRAMA && native.length > 1)
      native += String.fromCharCode(block + VIRAMA);
  }
  let latin = loadSanscript().t(native, scheme, 'iast').normalize('NFC');
  if (FINAL_SCHWA_DROPPED.has(scheme)) latin = dropMedialSchwa(latin);
  for (const [pattern, replacement] of IAST_TO_NAME) latin = latin.replace(pattern, replacement);
  return latin;
}

/** Romanises every Indic-script word of `text`, leaving everything else unchanged. */
export function romaniseIndic(text: string): string {
  return text.replace(INDIC_WORD_RE, (word) => romaniseWord(word));
}
