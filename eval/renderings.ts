/**
 * Renderings of Latin-script names into other scripts, as a national of each would write a
 * foreign (mostly English) name: rule tables written for this evaluation from the published
 * practice of each script (Russian after the reverse of BGN/PCGN with the usual English-name
 * conventions, Ukrainian and Bulgarian after their national romanisation tables read backwards,
 * Macedonian after its official Cyrillic, Greek after ELOT 743 read backwards, Armenian and
 * Georgian after their national tables (ISO 9985, the 2002 Georgian national system) read
 * backwards, Hebrew and Arabic/Persian consonantal spelling with matres lectionis, Latvian and
 * Lithuanian phonetic respelling with the nominative ending). No package renders Latin into these
 * scripts (any-ascii and the matcher's own romanisers read the other way), so these tables are the
 * generator; the matcher never sees them.
 */

export const RENDER_SCRIPTS = [
  'greek',
  'russian',
  'ukrainian',
  'bulgarian',
  'macedonian',
  'hebrew',
  'arabic',
  'persian',
  'armenian',
  'georgian',
  'latvian',
  'lithuanian',
] as const;
export type RenderScript = (typeof RENDER_SCRIPTS)[number];

/** English spelling reduced to sound units the tables map: digraphs first. */
const UNITS = [
  'shch',
  'tch',
  'sch',
  'sh',
  'ch',
  'zh',
  'kh',
  'th',
  'ph',
  'ck',
  'qu',
  'ts',
  'ee',
  'oo',
  'ou',
  'ea',
  'ei',
  'ai',
  'ya',
  'yu',
  'yo',
  'ye',
] as const;

/**
 * English spelling rewritten closer to its sound, as renderings of English names follow the
 * sound, not the letters ("George" → Джордж, "John" → Джон, "Sarah" → Сара, "Whitesides" →
 * Уайтсайдс): silent h after a vowel, silent final e, soft g, wh, the long a and i of a
 * vowel-consonant-e syllable, ay/ai/ey, oa, ew. Soft c is read before the silent e goes, as
 * soft g is ("Vance" → Ванс, "Sharice" → Шарайс; not Ванк, Шарайк). Non-English names (most
 * sanctioned people's Latin names are transliterations already) have few of these and pass
 * almost unchanged.
 */
function englishSounds(w: string): string {
  return w
    .replace(/^wh/, 'u')
    .replace(/c(?=[eiy])/g, 's')
    .replace(/g(?=[eiy])/g, 'j')
    .replace(/^je(?=o)/, 'j')
    .replace(/([aeiou])h(?![aeiou])/g, '$1')
    .replace(/ey$/, 'i')
    .replace(/(ay|ai)(?=[^aeiou]|$)/g, 'ei')
    .replace(/a([bcdfgjklmnprstvz])e(s?)$/, 'ei$1$2')
    .replace(/i([bcdfgjklmnprstvz])e(s?)(?=[^aeiou]|$)/g, 'ai$1$2')
    .replace(/([aeiou][bcdfgjklmnprstvz]+)e$/, '$1')
    .replace(/oa/g, 'o')
    .replace(/ew/g, 'yu')
    .replace(/ie$/, 'i');
}

/** Splits a lower-case word into sound units ("mcconnell" → mak, k, o, n, n, e, l, l). */
function units(word: string, english: boolean): string[] {
  const letters = word.toLowerCase().replace(/[^a-z]/g, '');
  let w = english ? englishSounds(letters) : letters;
  if (w.startsWith('mc')) w = `mak${w.slice(2)}`;
  const out: string[] = [];
  let i = 0;
  while (i < w.length) {
    const unit = UNITS.find((u) => w.startsWith(u, i));
    if (unit) {
      out.push(unit === 'tch' ? 'ch' : unit === 'sch' ? 'sh' : unit === 'ck' ? 'k' : unit);
      i += unit.length;
      continue;
    }
    const c = w[i];
    const next = w[i + 1] ?? '';
    if (c === 'c') out.push(/[eiy]/.test(next) ? 's' : 'k');
    else if (c === 'x') out.push('k', 's');
    else if (c === 'q') out.push('k');
    else if (c === 'y') out.push(i === 0 || /[aeiou]/.test(next) ? 'j' : 'i');
    else if (c === 'j') out.push('dzh');
    else out.push(c);
    i++;
  }
  // A double consonant is written once in most of these scripts' renderings of English names.
  return out;
}

function collapseDoubles(us: string[]): string[] {
  return us.filter((u, i) => i === 0 || u !== us[i - 1] || /[aeiou]/.test(u));
}

type Table = Record<string, string>;

const RUSSIAN: Table = {
  ei: 'ей',
  ai: 'ай',
  dzh: 'дж',
  a: 'а',
  b: 'б',
  v: 'в',
  g: 'г',
  d: 'д',
  e: 'е',
  z: 'з',
  i: 'и',
  j: 'й',
  k: 'к',
  l: 'л',
  m: 'м',
  n: 'н',
  o: 'о',
  p: 'п',
  r: 'р',
  s: 'с',
  t: 'т',
  u: 'у',
  f: 'ф',
  h: 'х',
  w: 'у',
  shch: 'щ',
  sh: 'ш',
  ch: 'ч',
  zh: 'ж',
  kh: 'х',
  th: 'т',
  ph: 'ф',
  qu: 'кв',
  ts: 'ц',
  ee: 'и',
  oo: 'у',
  ou: 'у',
  ea: 'и',
  ya: 'я',
  yu: 'ю',
  yo: 'ё',
  ye: 'е',
  mak: 'мак',
};
const UKRAINIAN: Table = {
  ...RUSSIAN,
  g: 'ґ',
  h: 'г',
  kh: 'х',
  i: 'і',
  e: 'е',
  yo: 'йо',
  ye: 'є',
  j: 'й',
  ee: 'і',
  ea: 'і',
};
const BULGARIAN: Table = { ...RUSSIAN, yo: 'йо', ye: 'е', shch: 'щ' };
const MACEDONIAN: Table = {
  ...RUSSIAN,
  j: 'ј',
  ya: 'ја',
  yu: 'ју',
  yo: 'јо',
  ye: 'е',
  shch: 'шч',
  zh: 'ж',
  dzh: 'џ',
};
const GREEK: Table = {
  ei: 'έι',
  ai: 'άι',
  dzh: 'τζ',
  a: 'α',
  b: 'μπ',
  v: 'β',
  g: 'γκ',
  d: 'ντ',
  e: 'ε',
  z: 'ζ',
  i: 'ι',
  j: 'ι',
  k: 'κ',
  l: 'λ',
  m: 'μ',
  n: 'ν',
  o: 'ο',
  p: 'π',
  r: 'ρ',
  s: 'σ',
  t: 'τ',
  u: 'ου',
  f: 'φ',
  h: 'χ',
  w: 'ου',
  shch: 'σ',
  sh: 'σ',
  ch: 'τσ',
  zh: 'ζ',
  kh: 'χ',
  th: 'θ',
  ph: 'φ',
  qu: 'κου',
  ts: 'τσ',
  ee: 'ι',
  oo: 'ου',
  ou: 'ου',
  ea: 'ι',
  ya: 'για',
  yu: 'γιου',
  yo: 'γιο',
  ye: 'γιε',
  mak: 'μακ',
};
const HEBREW: Table = {
  ei: 'יי',
  ai: 'איי',
  dzh: "ג'",
  a: 'א',
  b: 'ב',
  v: 'ב',
  g: 'ג',
  d: 'ד',
  e: '',
  z: 'ז',
  i: 'י',
  j: 'י',
  k: 'ק',
  l: 'ל',
  m: 'מ',
  n: 'נ',
  o: 'ו',
  p: 'פ',
  r: 'ר',
  s: 'ס',
  t: 'ט',
  u: 'ו',
  f: 'פ',
  h: 'ה',
  w: 'ו',
  shch: 'שצ',
  sh: 'ש',
  ch: "צ'",
  zh: "ז'",
  kh: 'ח',
  th: 'ת',
  ph: 'פ',
  qu: 'קו',
  ts: 'צ',
  ee: 'י',
  oo: 'ו',
  ou: 'או',
  ea: 'י',
  ya: 'יא',
  yu: 'יו',
  yo: 'יו',
  ye: 'יה',
  mak: 'מק',
};
const ARABIC: Table = {
  ei: 'ي',
  ai: 'اي',
  dzh: 'ج',
  a: 'ا',
  b: 'ب',
  v: 'ف',
  g: 'غ',
  d: 'د',
  e: 'ي',
  z: 'ز',
  i: 'ي',
  j: 'ي',
  k: 'ك',
  l: 'ل',
  m: 'م',
  n: 'ن',
  o: 'و',
  p: 'ب',
  r: 'ر',
  s: 'س',
  t: 'ت',
  u: 'و',
  f: 'ف',
  h: 'ه',
  w: 'و',
  shch: 'شتش',
  sh: 'ش',
  ch: 'تش',
  zh: 'ج',
  kh: 'خ',
  th: 'ث',
  ph: 'ف',
  qu: 'كو',
  ts: 'تس',
  ee: 'ي',
  oo: 'و',
  ou: 'او',
  ea: 'ي',
  ya: 'يا',
  yu: 'يو',
  yo: 'يو',
  ye: 'ي',
  mak: 'ماك',
};
const PERSIAN: Table = {
  ...ARABIC,
  p: 'پ',
  g: 'گ',
  ch: 'چ',
  zh: 'ژ',
  v: 'و',
  k: 'ک',
  e: 'ی',
  i: 'ی',
  j: 'ی',
  ee: 'ی',
  ea: 'ی',
  ya: 'یا',
  yu: 'یو',
  yo: 'یو',
  ye: 'ی',
  mak: 'مک',
  qu: 'کو',
};
const ARMENIAN: Table = {
  ei: 'եյ',
  ai: 'այ',
  dzh: 'ջ',
  a: 'ա',
  b: 'բ',
  v: 'վ',
  g: 'գ',
  d: 'դ',
  e: 'ե',
  z: 'զ',
  i: 'ի',
  j: 'յ',
  k: 'ք',
  l: 'լ',
  m: 'մ',
  n: 'ն',
  o: 'ո',
  p: 'փ',
  r: 'ր',
  s: 'ս',
  t: 'թ',
  u: 'ու',
  f: 'ֆ',
  h: 'հ',
  w: 'ու',
  shch: 'շչ',
  sh: 'շ',
  ch: 'չ',
  zh: 'ժ',
  kh: 'խ',
  th: 'թ',
  ph: 'ֆ',
  qu: 'քու',
  ts: 'ց',
  ee: 'ի',
  oo: 'ու',
  ou: 'ու',
  ea: 'ի',
  ya: 'յա',
  yu: 'յու',
  yo: 'յո',
  ye: 'յե',
  mak: 'մաք',
};
const GEORGIAN: Table = {
  ei: 'ეი',
  ai: 'აი',
  dzh: 'ჯ',
  a: 'ა',
  b: 'ბ',
  v: 'ვ',
  g: 'გ',
  d: 'დ',
  e: 'ე',
  z: 'ზ',
  i: 'ი',
  j: 'ი',
  k: 'ქ',
  l: 'ლ',
  m: 'მ',
  n: 'ნ',
  o: 'ო',
  p: 'პ',
  r: 'რ',
  s: 'ს',
  t: 'თ',
  u: 'უ',
  f: 'ფ',
  h: 'ჰ',
  w: 'უ',
  shch: 'შჩ',
  sh: 'შ',
  ch: 'ჩ',
  zh: 'ჟ',
  kh: 'ხ',
  th: 'თ',
  ph: 'ფ',
  qu: 'ქუ',
  ts: 'ც',
  ee: 'ი',
  oo: 'უ',
  ou: 'აუ',
  ea: 'ი',
  ya: 'ია',
  yu: 'იუ',
  yo: 'იო',
  ye: 'იე',
  mak: 'მაკ',
};
const LATVIAN: Table = {
  ei: 'ei',
  ai: 'ai',
  dzh: 'dž',
  a: 'a',
  b: 'b',
  v: 'v',
  g: 'g',
  d: 'd',
  e: 'e',
  z: 'z',
  i: 'i',
  j: 'j',
  k: 'k',
  l: 'l',
  m: 'm',
  n: 'n',
  o: 'o',
  p: 'p',
  r: 'r',
  s: 's',
  t: 't',
  u: 'u',
  f: 'f',
  h: 'h',
  w: 'v',
  shch: 'šč',
  sh: 'š',
  ch: 'č',
  zh: 'ž',
  kh: 'h',
  th: 't',
  ph: 'f',
  qu: 'kv',
  ts: 'c',
  ee: 'ī',
  oo: 'ū',
  ou: 'au',
  ea: 'ī',
  ya: 'ja',
  yu: 'ju',
  yo: 'jo',
  ye: 'je',
  mak: 'mak',
};
const LITHUANIAN: Table = { ...LATVIAN, ee: 'y', ea: 'y', ou: 'au' };

const TABLES: Record<RenderScript, Table> = {
  greek: GREEK,
  russian: RUSSIAN,
  ukrainian: UKRAINIAN,
  bulgarian: BULGARIAN,
  macedonian: MACEDONIAN,
  hebrew: HEBREW,
  arabic: ARABIC,
  persian: PERSIAN,
  armenian: ARMENIAN,
  georgian: GEORGIAN,
  latvian: LATVIAN,
  lithuanian: LITHUANIAN,
};

const HEBREW_FINALS: Record<string, string> = { כ: 'ך', מ: 'ם', נ: 'ן', פ: 'ף', צ: 'ץ' };

/** One word rendered in `script`. */
export function renderWord(word: string, script: RenderScript, english = false): string {
  const table = TABLES[script];
  let us = units(word, english);
  if (script !== 'russian' && script !== 'ukrainian' && script !== 'bulgarian') us = collapseDoubles(us);
  let out = '';
  for (let k = 0; k < us.length; k++) {
    const u = us[k];
    let letter = table[u] ?? '';
    if (k === 0 && u === 'e' && script === 'russian') letter = 'э';
    if (k === 0 && u === 'o' && script === 'armenian') letter = 'օ';
    if (k === 0 && u === 'e' && script === 'armenian') letter = 'է';
    if (
      k === 0 &&
      (u === 'e' || u === 'i') &&
      (script === 'hebrew' || script === 'arabic' || script === 'persian')
    )
      letter = script === 'hebrew' ? 'א' : 'ا';
    out += letter;
  }
  if (script === 'greek' && out.endsWith('σ')) out = `${out.slice(0, -1)}ς`;
  if (script === 'hebrew' && out.length > 0) {
    const last = out[out.length - 1];
    if (HEBREW_FINALS[last]) out = out.slice(0, -1) + HEBREW_FINALS[last];
  }
  if (script === 'latvian' || script === 'lithuanian') {
    // The nominative ending of a man's name: -s (Latvian), -as (Lithuanian) after a consonant.
    if (/[bcdfghklmnprtvzščž]$/.test(out)) out += script === 'latvian' ? 's' : 'as';
    out = out[0].toUpperCase() + out.slice(1);
  } else if (
    script === 'greek' ||
    script === 'russian' ||
    script === 'ukrainian' ||
    script === 'bulgarian' ||
    script === 'macedonian' ||
    script === 'armenian'
  ) {
    out = out.slice(0, 1).toUpperCase() + out.slice(1);
  }
  return out;
}

/**
 * A name (words in reading order) rendered in `script`, word by word; `english`: an English name,
 * rendered by its sound (`englishSounds`), not letter by letter.
 */
export function renderName(words: readonly string[], script: RenderScript, english = false): string {
  return words
    .map((w) => renderWord(w, script, english))
    .filter((w) => w !== '')
    .join(' ');
}
