/**
 * Abjads: Arabic (with Persian and Urdu letters, ALA-LC-like) and Hebrew. Short vowels are not
 * written, so renderings are consonant-heavy; the scorer compares them by consonant skeleton.
 */

/**
 * Arabic letters (with Persian/Urdu additions). Short vowels are not written in Arabic, so the
 * output is consonant-heavy ("mhmd"); the scorer compares such tokens by consonant skeleton.
 * Long vowels و / ي are rendered as vowels inside a word and as consonants at its start.
 */
export const ARABIC: Record<string, string> = {
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

export const HEBREW: Record<string, string> = {
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

export function isLetterAt(text: string, index: number, table: Record<string, string>): boolean {
  const ch = text[index];
  return ch !== undefined && (table[ch] !== undefined || ch === 'و' || ch === 'י' || ch === 'ו');
}

export function transliterateArabicChar(text: string, i: number): string {
  const ch = text[i];
  const wordStart = !isLetterAt(text, i - 1, ARABIC);
  if (ch === 'و') return wordStart ? 'w' : 'u';
  if (ch === 'ي') return wordStart ? 'y' : 'i';
  return ARABIC[ch] ?? ch;
}

/**
 * Letters a geresh after them makes another sound, as Hebrew writes foreign names (ג'ורג'
 * George, צ'רצ'יל Churchill, ז'אן Jean, ת'ומס Thomas).
 */
const HEBREW_WITH_GERESH: Record<string, string> = { ג: 'j', צ: 'ch', ז: 'zh', ת: 'th', ץ: 'ch' };
const GERESH_RE = /['\u05f3\u2019]/;

export function transliterateHebrewChar(text: string, i: number): string {
  const ch = text[i];
  // A geresh belongs to the letter before it ("ג'ורג'": the ו is inside the word).
  const before = GERESH_RE.test(text[i - 1] ?? '') ? i - 2 : i - 1;
  const wordStart = !isLetterAt(text, before, HEBREW);
  if (HEBREW_WITH_GERESH[ch] && GERESH_RE.test(text[i + 1] ?? '')) return HEBREW_WITH_GERESH[ch];
  // Alef before a consonant is the vowel a in most names (אדם adam, מארק mark, סארא sara); before
  // ו or י it only carries that vowel.
  if (ch === 'א') return text[i + 1] === 'ו' || text[i + 1] === 'י' ? '' : 'a';
  if (ch === 'ו') return wordStart ? 'v' : text[i + 1] === 'ו' ? 'v' : 'o';
  if (ch === 'י') return wordStart ? 'y' : 'i';
  if (ch === 'ב' && !wordStart) return 'v';
  const out = HEBREW[ch] ?? ch;
  // A word ending in ה after a consonant is usually a vowel ending (משה → moshe).
  if (ch === 'ה' && !isLetterAt(text, i + 1, HEBREW) && !wordStart) return 'e';
  return out;
}
