/**
 * Script → Latin transliteration for names.
 *
 * Lists publish names in Latin script while customers often hold the passport spelling in the
 * original script (Путин, محمد, Βλαντίμιρ). Each table follows the common romanisation used by the
 * lists themselves (BGN/PCGN-like for Cyrillic, ALA-LC-like for Arabic), not a reversible standard:
 * the goal is a spelling the similarity scorer can compare with what the list shows.
 *
 * One module per script family under romanise/: alphabets (Cyrillic, Greek, Armenian, Georgian),
 * abjads (Arabic with Persian and Urdu letters, Hebrew), Korean Hangul, Japanese kana, Ethiopic,
 * the Khmer and Thai abugidas, Han (pinyin) and the Indic scripts. Other scripts pass through
 * unchanged and are later dropped by normalisation.
 *
 * Han, foreign-name katakana and the Indic scripts are read a whole word at a time (a Chinese
 * name's surname, a foreign name's parts, an Indic word's final consonant decide the spelling),
 * before the character-by-character pass of the other scripts.
 */

import { ARABIC, isLetterAt, transliterateArabicChar, transliterateHebrewChar } from './romanise/abjads.ts';
import { ARMENIAN, CYRILLIC, GEORGIAN, GREEK, GREEK_DIGRAPHS } from './romanise/alphabets.ts';
import { ARABIC_NAMES } from './romanise/arabic-names.ts';
import { transliterateEthiopic } from './romanise/ethiopic.ts';
import { HAN_RE, romaniseHan } from './romanise/han.ts';
import { HANGUL_SURNAMES, hangulRunLength, transliterateHangul } from './romanise/hangul.ts';
import { INDIC_RE, romaniseIndic } from './romanise/indic.ts';
import { isKana, romaniseForeignKatakana, transliterateKana } from './romanise/kana.ts';
import { transliterateKhmer, transliterateThai } from './romanise/southeast-asian.ts';

const HAS_NON_LATIN =
  /[\u0370-\u03ff\u0400-\u052f\u0530-\u058f\u0590-\u05ff\u0600-\u06ff\u0900-\u0d7f\u0e00-\u0e7f\u10a0-\u10ff\u1200-\u137f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7a3]/;
const KANA_RE = /[\u3041-\u30fc]/;
const UKRAINIAN_LETTERS_RE = /[іїєґ]/;
/** Letters Persian writes and Arabic does not: پ چ ژ گ, and its own keh and yeh (ک ی). */
const PERSIAN_LETTERS_RE = /[\u067e\u0686\u0698\u06af\u06a9\u06cc]/;

/**
 * Transliterates every supported non-Latin character of `text` to Latin letters and leaves
 * everything else unchanged. Case is not preserved for transliterated characters.
 */
export function transliterate(text: string): string {
  if (!HAS_NON_LATIN.test(text)) return text;
  let source = text.toLowerCase();
  if (INDIC_RE.test(source)) source = romaniseIndic(source);
  if (KANA_RE.test(source)) source = romaniseForeignKatakana(source);
  // Han beside kana is Japanese, whose kanji readings pinyin does not give: left unread.
  else if (HAN_RE.test(source)) source = romaniseHan(source);
  if (/[\u0370-\u03ff]/.test(source)) {
    for (const [pattern, replacement] of GREEK_DIGRAPHS) source = source.replace(pattern, replacement);
  }
  // Ukrainian writes і, ї, є and ґ, which Russian does not.
  const ukrainian = UKRAINIAN_LETTERS_RE.test(source);
  const persian = PERSIAN_LETTERS_RE.test(source);
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    const code = ch.charCodeAt(0);
    if (code < 0x0370) {
      out += ch;
    } else if (code >= 0xac00 && code <= 0xd7a3) {
      // A Korean name is written as one run of syllables: family name first, then given name.
      const runStart = !(source.charCodeAt(i - 1) >= 0xac00 && source.charCodeAt(i - 1) <= 0xd7a3);
      const runLength = hangulRunLength(source, i);
      if (runStart && runLength >= 2 && runLength <= 4 && HANGUL_SURNAMES[ch]) {
        out += `${HANGUL_SURNAMES[ch]} `;
      } else {
        out += transliterateHangul(code);
      }
    } else if (code >= 0x0600 && code <= 0x06ff) {
      const known = isLetterAt(source, i - 1, ARABIC) ? undefined : knownArabicName(source, i);
      if (known) {
        out += known.latin;
        i = known.end - 1;
        continue;
      }
      // The article ال is written joined to the name; lists write it apart ("al-Baghdadi"). Not in
      // Persian, where ال opens names of its own (الهام Elham, الیاس Elyas, الیکساندر Aleksandr).
      if (
        !persian &&
        ch === 'ا' &&
        source[i + 1] === 'ل' &&
        !isLetterAt(source, i - 1, ARABIC) &&
        isLetterAt(source, i + 3, ARABIC)
      ) {
        out += 'al ';
        i++;
      } else {
        out += transliterateArabicChar(source, i);
      }
    } else if (code >= 0x0590 && code <= 0x05ff) {
      out += transliterateHebrewChar(source, i);
    } else if (isKana(code)) {
      out = transliterateKana(out, code, i > 0 && isKana(source.charCodeAt(i - 1)));
    } else if (code >= 0x1200 && code <= 0x137f) {
      out += transliterateEthiopic(code);
    } else if (code >= 0x1780 && code <= 0x17ff) {
      out += transliterateKhmer(code);
    } else if (code >= 0x0e00 && code <= 0x0e7f) {
      const [latin, end] = transliterateThai(source, i);
      out += latin;
      i = end;
    } else if (ch === 'ո' && source[i + 1] === 'ւ') {
      // Armenian ու is the vowel u.
      out += 'u';
      i++;
    } else if (ch === 'г' && ukrainian) {
      // Ukrainian г is h (ґ is g): "Гриценко" is Hrytsenko.
      out += 'h';
    } else {
      out += CYRILLIC[ch] ?? GREEK[ch] ?? ARMENIAN[ch] ?? GEORGIAN[ch] ?? ch;
    }
  }
  return out;
}

const ARABIC_WORD_RE = /[\u0621-\u064a\u0671-\u06d3]+/y;

/**
 * The common name (romanise/arabic-names.ts) written at `start`, with or without the article
 * ("الخليل" → "al khalil"): its usual Latin spelling and the index after it.
 */
function knownArabicName(source: string, start: number): { latin: string; end: number } | undefined {
  ARABIC_WORD_RE.lastIndex = start;
  const word = ARABIC_WORD_RE.exec(source)?.[0];
  if (!word) return undefined;
  const end = start + word.length;
  const latin = ARABIC_NAMES[word];
  if (latin) return { latin, end };
  if (word.startsWith('ال') && word.length >= 5) {
    const rest = ARABIC_NAMES[word.slice(2)];
    if (rest) return { latin: `al ${rest}`, end };
  }
  return undefined;
}
