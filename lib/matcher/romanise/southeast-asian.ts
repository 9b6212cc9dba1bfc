/** Khmer and Thai abugidas. */

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

export function transliterateKhmer(code: number): string {
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
export function transliterateThai(source: string, from: number): [string, number] {
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
