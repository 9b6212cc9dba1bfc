/**
 * Script → Latin transliteration for names.
 *
 * Lists publish names in Latin script while customers often hold the passport spelling in the
 * original script (Путин, محمد, Βλαντίμιρ). Each table follows the common romanisation used by the
 * lists themselves (BGN/PCGN-like for Cyrillic, ALA-LC-like for Arabic), not a reversible standard:
 * the goal is a spelling the similarity scorer can compare with what the list shows.
 *
 * Covered: Cyrillic (Russian, Ukrainian, Belarusian, Serbian, Macedonian), Greek, Arabic (with
 * Persian and Urdu letters), Hebrew, Armenian, Georgian and Korean Hangul. Other scripts pass
 * through unchanged and are later dropped by normalisation.
 */

const CYRILLIC: Record<string, string> = {
  а: 'a',
  б: 'b',
  в: 'v',
  г: 'g',
  д: 'd',
  е: 'e',
  ё: 'e',
  ж: 'zh',
  з: 'z',
  и: 'i',
  й: 'y',
  к: 'k',
  л: 'l',
  м: 'm',
  н: 'n',
  о: 'o',
  п: 'p',
  р: 'r',
  с: 's',
  т: 't',
  у: 'u',
  ф: 'f',
  х: 'kh',
  ц: 'ts',
  ч: 'ch',
  ш: 'sh',
  щ: 'shch',
  ъ: '',
  ы: 'y',
  ь: '',
  э: 'e',
  ю: 'yu',
  я: 'ya',
  // Ukrainian and Belarusian
  і: 'i',
  ї: 'yi',
  є: 'ye',
  ґ: 'g',
  ў: 'u',
  // Serbian and Macedonian
  ђ: 'dj',
  ј: 'j',
  љ: 'lj',
  њ: 'nj',
  ћ: 'c',
  џ: 'dz',
  ѓ: 'gj',
  ќ: 'kj',
  ѕ: 'dz',
};

const GREEK: Record<string, string> = {
  α: 'a',
  ά: 'a',
  β: 'v',
  γ: 'g',
  δ: 'd',
  ε: 'e',
  έ: 'e',
  ζ: 'z',
  η: 'i',
  ή: 'i',
  θ: 'th',
  ι: 'i',
  ί: 'i',
  ϊ: 'i',
  ΐ: 'i',
  κ: 'k',
  λ: 'l',
  μ: 'm',
  ν: 'n',
  ξ: 'x',
  ο: 'o',
  ό: 'o',
  π: 'p',
  ρ: 'r',
  σ: 's',
  ς: 's',
  τ: 't',
  υ: 'y',
  ύ: 'y',
  ϋ: 'y',
  ΰ: 'y',
  φ: 'f',
  χ: 'ch',
  ψ: 'ps',
  ω: 'o',
  ώ: 'o',
};

/** Greek digraphs whose letter-by-letter rendering would mislead (ου = u, ντ = d as in Βλαντίμιρ). */
const GREEK_DIGRAPHS: [RegExp, string][] = [
  [/ου/g, 'u'],
  [/ού/g, 'u'],
  [/ντ/g, 'd'],
  [/μπ/g, 'b'],
  [/γκ/g, 'g'],
  [/αι/g, 'e'],
  [/ει/g, 'i'],
  [/οι/g, 'i'],
  [/αυ/g, 'av'],
  [/ευ/g, 'ev'],
];

/**
 * Arabic letters (with Persian/Urdu additions). Short vowels are not written in Arabic, so the
 * output is consonant-heavy ("mhmd"); the scorer compares such tokens by consonant skeleton.
 * Long vowels و / ي are rendered as vowels inside a word and as consonants at its start.
 */
const ARABIC: Record<string, string> = {
  ا: 'a',
  أ: 'a',
  إ: 'i',
  آ: 'a',
  ٱ: 'a',
  ء: '',
  ؤ: 'u',
  ئ: 'y',
  ب: 'b',
  ت: 't',
  ث: 'th',
  ج: 'j',
  ح: 'h',
  خ: 'kh',
  د: 'd',
  ذ: 'dh',
  ر: 'r',
  ز: 'z',
  س: 's',
  ش: 'sh',
  ص: 's',
  ض: 'd',
  ط: 't',
  ظ: 'z',
  ع: 'a',
  غ: 'gh',
  ف: 'f',
  ق: 'q',
  ك: 'k',
  ل: 'l',
  م: 'm',
  ن: 'n',
  ه: 'h',
  ة: 'a',
  ى: 'a',
  // Persian and Urdu
  پ: 'p',
  چ: 'ch',
  ژ: 'zh',
  گ: 'g',
  ک: 'k',
  ی: 'i',
  ې: 'e',
  ے: 'e',
  ٹ: 't',
  ڈ: 'd',
  ڑ: 'r',
  ں: 'n',
  ھ: 'h',
  ۃ: 'a',
  ـ: '',
};

const HEBREW: Record<string, string> = {
  א: '',
  ב: 'b',
  ג: 'g',
  ד: 'd',
  ה: 'h',
  ז: 'z',
  ח: 'kh',
  ט: 't',
  כ: 'k',
  ך: 'k',
  ל: 'l',
  מ: 'm',
  ם: 'm',
  נ: 'n',
  ן: 'n',
  ס: 's',
  ע: '',
  פ: 'p',
  ף: 'f',
  צ: 'ts',
  ץ: 'ts',
  ק: 'k',
  ר: 'r',
  ש: 'sh',
  ת: 't',
};

const ARMENIAN: Record<string, string> = {
  ա: 'a',
  բ: 'b',
  գ: 'g',
  դ: 'd',
  ե: 'e',
  զ: 'z',
  է: 'e',
  ը: 'y',
  թ: 't',
  ժ: 'zh',
  ի: 'i',
  լ: 'l',
  խ: 'kh',
  ծ: 'ts',
  կ: 'k',
  հ: 'h',
  ձ: 'dz',
  ղ: 'gh',
  ճ: 'ch',
  մ: 'm',
  յ: 'y',
  ն: 'n',
  շ: 'sh',
  ո: 'o',
  չ: 'ch',
  պ: 'p',
  ջ: 'j',
  ռ: 'r',
  ս: 's',
  վ: 'v',
  տ: 't',
  ր: 'r',
  ց: 'ts',
  ւ: 'v',
  փ: 'p',
  ք: 'k',
  օ: 'o',
  ֆ: 'f',
  և: 'ev',
};

const GEORGIAN: Record<string, string> = {
  ა: 'a',
  ბ: 'b',
  გ: 'g',
  დ: 'd',
  ე: 'e',
  ვ: 'v',
  ზ: 'z',
  თ: 't',
  ი: 'i',
  კ: 'k',
  ლ: 'l',
  მ: 'm',
  ნ: 'n',
  ო: 'o',
  პ: 'p',
  ჟ: 'zh',
  რ: 'r',
  ს: 's',
  ტ: 't',
  უ: 'u',
  ფ: 'p',
  ქ: 'k',
  ღ: 'gh',
  ყ: 'q',
  შ: 'sh',
  ჩ: 'ch',
  ც: 'ts',
  ძ: 'dz',
  წ: 'ts',
  ჭ: 'ch',
  ხ: 'kh',
  ჯ: 'j',
  ჰ: 'h',
};

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
const HANGUL_SURNAMES: Record<string, string> = {
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

// Ethiopic (Ge'ez) is a syllabary laid out in rows of eight: one consonant, seven vowel orders
// and a labialised form (Unicode 3.12 §19.1). Rows from U+1200, consonants as Amharic names
// are usually romanised; the sixth order (ə) is mostly silent in names and is left out.
const ETHIOPIC_CONSONANTS =
  'h l h m s r s sh q qw q qw b v t ch h hw n ny - k kw kh khw w - z zh y d d j g gw ng t ch p ts ts f p'.split(
    ' ',
  );
const ETHIOPIC_ORDERS = ['e', 'u', 'i', 'a', 'e', '', 'o', 'wa'];

// Khmer (UNGEGN-like): consonants and written vowels; the inherent vowel, which depends on the
// consonant series, is not guessed, so renderings agree on the skeleton the scorer compares.
const KHMER_CONSONANTS =
  'k kh k kh ng ch chh ch chh nh d th d th n t th t th n b ph p ph m y r l v s s s h l -'.split(' ');
const KHMER_VOWELS: Record<number, string> = {
  6070: 'a',
  6071: 'i',
  6072: 'i',
  6073: 'oe',
  6074: 'eu',
  6075: 'u',
  6076: 'u',
  6077: 'uo',
  6078: 'aeu',
  6079: 'oea',
  6080: 'ie',
  6081: 'e',
  6082: 'ae',
  6083: 'ai',
  6084: 'ao',
  6085: 'au',
  6086: 'm',
  6087: 'h',
};

// Thai (RTGS-like): consonants U+0E01..U+0E2E as initials; vowels written before their consonant
// (เ แ โ ใ ไ) are sounded after it; a consonant followed by another with no vowel between
// carries the inherent o (สมชาย → somchai).
const THAI_CONSONANTS =
  'k kh kh kh kh kh ng ch ch ch s ch y d t th th th n d t th th th n b p ph f ph f ph m y r rue l lue w s s s h l - h'.split(
    ' ',
  );
const THAI_VOWELS: Record<number, string> = {
  3632: 'a',
  3633: 'a',
  3634: 'a',
  3635: 'am',
  3636: 'i',
  3637: 'i',
  3638: 'ue',
  3639: 'ue',
  3640: 'u',
  3641: 'u',
  3648: 'e',
  3649: 'ae',
  3650: 'o',
  3651: 'ai',
  3652: 'ai',
};

const HAS_NON_LATIN =
  /[\u0370-\u03ff\u0400-\u052f\u0530-\u058f\u0590-\u05ff\u0600-\u06ff\u0e00-\u0e7f\u10a0-\u10ff\u1200-\u137f\u1780-\u17ff\u3040-\u30ff\uac00-\ud7a3]/;

function isLetterAt(text: string, index: number, table: Record<string, string>): boolean {
  const ch = text[index];
  return ch !== undefined && (table[ch] !== undefined || ch === 'و' || ch === 'י' || ch === 'ו');
}

function transliterateArabicChar(text: string, i: number): string {
  const ch = text[i];
  const wordStart = !isLetterAt(text, i - 1, ARABIC);
  if (ch === 'و') return wordStart ? 'w' : 'u';
  if (ch === 'ي') return wordStart ? 'y' : 'i';
  return ARABIC[ch] ?? ch;
}

function transliterateHebrewChar(text: string, i: number): string {
  const ch = text[i];
  const wordStart = !isLetterAt(text, i - 1, HEBREW);
  if (ch === 'ו') return wordStart ? 'v' : text[i + 1] === 'ו' ? 'v' : 'o';
  if (ch === 'י') return wordStart ? 'y' : 'i';
  if (ch === 'ב' && !wordStart) return 'v';
  const out = HEBREW[ch] ?? ch;
  // A word ending in ה after a consonant is usually a vowel ending (משה → moshe).
  if (ch === 'ה' && !isLetterAt(text, i + 1, HEBREW) && !wordStart) return 'e';
  return out;
}

function hangulRunLength(text: string, from: number): number {
  let n = 0;
  while (from + n < text.length && text.charCodeAt(from + n) >= 0xac00 && text.charCodeAt(from + n) <= 0xd7a3)
    n++;
  return n;
}

function transliterateHangul(code: number): string {
  const index = code - 0xac00;
  const lead = Math.floor(index / 588);
  const vowel = Math.floor((index % 588) / 28);
  const tail = index % 28;
  return HANGUL_LEADS[lead] + HANGUL_VOWELS[vowel] + HANGUL_TAILS[tail];
}

function isKana(code: number): boolean {
  return code >= 0x3041 && code <= 0x30fc;
}

/** Romanises one kana character given the Latin text produced so far. */
function transliterateKana(out: string, code: number, previousKana: boolean): string {
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

function transliterateEthiopic(code: number): string {
  if (code >= 0x1361 && code <= 0x1368) return ' ';
  if (code > 0x1357) return '';
  const consonant = ETHIOPIC_CONSONANTS[(code - 0x1200) >> 3].replace('-', '');
  const order = code & 7;
  let vowel = ETHIOPIC_ORDERS[order];
  // The first order of the h and glottal rows is sounded a (ሀይሌ → haile, አ → a).
  if (order === 0 && (consonant === '' || consonant === 'h')) vowel = 'a';
  if (order === 5 && consonant === '') vowel = 'i';
  return consonant + vowel;
}

function transliterateKhmer(code: number): string {
  if (code <= 0x17a2) return KHMER_CONSONANTS[code - 0x1780].replace('-', '');
  if (code <= 0x17b3) return code <= 0x17a4 ? 'a' : code <= 0x17a6 ? 'i' : code <= 0x17a8 ? 'u' : 'e';
  return KHMER_VOWELS[code] ?? '';
}

const THAI_FINALS: Record<string, string> = {
  y: 'i',
  w: 'o',
  ch: 't',
  s: 't',
  d: 't',
  th: 't',
  kh: 'k',
  b: 'p',
  ph: 'p',
  f: 'p',
  l: 'n',
  r: 'n',
};

function isThaiConsonant(code: number): boolean {
  return code >= 0x0e01 && code <= 0x0e2e;
}

/** Romanises a run of Thai script starting at `from`; returns the Latin text and the run's end. */
function transliterateThai(source: string, from: number): [string, number] {
  let out = '';
  let lead = '';
  // none: between syllables; initial: a consonant without its vowel yet; vowel: vowel written.
  let state: 'none' | 'initial' | 'vowel' = 'none';
  let i = from;
  for (; i < source.length; i++) {
    const code = source.charCodeAt(i);
    if (code < 0x0e00 || code > 0x0e7f) break;
    const nextIsConsonant = isThaiConsonant(source.charCodeAt(i + 1)) || i + 1 >= source.length;
    if (isThaiConsonant(code)) {
      const c = THAI_CONSONANTS[code - 0x0e01].replace('-', '');
      if (state === 'vowel' && nextIsConsonant && lead === '') {
        out += THAI_FINALS[c] ?? c;
        state = 'none';
      } else if (state === 'initial') {
        out += `o${nextIsConsonant ? (THAI_FINALS[c] ?? c) : c}`;
        state = nextIsConsonant ? 'none' : 'initial';
      } else {
        out += c + lead;
        state = lead === '' ? 'initial' : 'vowel';
        lead = '';
      }
    } else if (code >= 0x0e40 && code <= 0x0e44) {
      lead = THAI_VOWELS[code];
    } else if (THAI_VOWELS[code] !== undefined) {
      out += THAI_VOWELS[code];
      state = 'vowel';
    }
  }
  return [out, i - 1];
}

/**
 * Transliterates every supported non-Latin character of `text` to Latin letters and leaves
 * everything else unchanged. Case is not preserved for transliterated characters.
 */
export function transliterate(text: string): string {
  if (!HAS_NON_LATIN.test(text)) return text;
  let source = text.toLowerCase();
  if (/[\u0370-\u03ff]/.test(source)) {
    for (const [pattern, replacement] of GREEK_DIGRAPHS) source = source.replace(pattern, replacement);
  }
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
      // The article ال is written joined to the name; lists write it apart ("al-Baghdadi").
      if (
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
    } else {
      out += CYRILLIC[ch] ?? GREEK[ch] ?? ARMENIAN[ch] ?? GEORGIAN[ch] ?? ch;
    }
  }
  return out;
}
