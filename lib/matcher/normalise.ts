/**
 * Name normalisation and tokenisation: the one path every listed name and every query name takes
 * before comparison, so both sides are reduced the same way.
 *
 * Steps: `SURNAME, Given` → `Given SURNAME`; transliterate non-Latin scripts; fold case and
 * diacritics; split on punctuation; join the Arabic `Abd al-` prefix to its name; drop titles and
 * honorifics; mark particles; attach name-variant keys and a phonetic key to each token.
 */

import { otherAlphabetReadings, withDigraphs } from './latin-orthographies.ts';
import { NAME_VARIANT_GROUPS, NICKNAMES } from './name-variants.ts';
import { HAN_RE, isForeignHanName } from './romanise/han.ts';
import { INDIC_RE } from './romanise/indic.ts';
import { phoneticKey, vowelShare } from './string-similarity.ts';
import { PARTICLES, TITLES } from './titles.ts';
import { transliterate } from './transliterate.ts';

export interface NameToken {
  /** Folded Latin form (a-z, 0-9). */
  text: string;
  /** Canonical keys of the name-variant dictionary this token belongs to (may be empty). */
  variantKeys: readonly string[];
  /** Consonant-skeleton phonetic key. */
  phonetic: string;
  /** A particle (al, bin, van, de): kept, but it weighs little. */
  particle: boolean;
  /** A single letter standing for a name ("V. V. Putin"). */
  initial: boolean;
  /** Few vowels: probably a rendering of Arabic or Hebrew script, compared by skeleton. */
  vowelPoor: boolean;
  /** Transliterated from a non-Latin script: vowels are a guess, the skeleton is what counts. */
  transliterated: boolean;
  /**
   * Read from Han characters: the pinyin is exact, so a token spelt otherwise is another syllable
   * (pinyin and Wade-Giles spellings of one syllable still agree through `siniticKey`).
   */
  readFromHan?: boolean;
  /** Read from an Indic script, which writes every vowel: a short name one letter apart is another. */
  readFromIndic?: boolean;
  /**
   * Part of a name written in Vietnamese letters (`isVietnameseName`): each part is one syllable
   * spelt exactly, so a syllable one letter apart is another name ("Anh" is not "Oanh"), and "Lê",
   * "Đỗ" or "Văn" are names, not the particles "le", "do" and "van" of European names.
   */
  readFromVietnamese?: boolean;
  /**
   * Read from Arabic script, which leaves short vowels unwritten: a Latin spelling two letters
   * apart ("khulud" / "Khaled") may be another name altogether.
   */
  readFromArabic?: boolean;
  /**
   * Read from Arabic or Hebrew script, which write few vowels and one letter for b and v (Hebrew)
   * or f and v (Arabic): compared by the looser skeleton of token-similarity.ts `skeletonsOf`.
   */
  readFromAbjad?: boolean;
  /** Read from Greek, whose χ (read "ch") renders a foreign h or kh, not the English ch. */
  readFromGreek?: boolean;
  /** Read from Cyrillic, whose х (read "kh") renders a foreign h as well as kh ("Харрис" for Harris). */
  readFromCyrillic?: boolean;
  /** Read from Georgian, whose ფ (read "p") renders a foreign f as well as p ("ფინსთრა" for Feenstra). */
  readFromGeorgian?: boolean;
  /**
   * The token read as Polish, Czech, Baltic or Turkish spelling, rewritten the English way the
   * lists spell ("wasiljewicz" → "vasilyevich"); empty for most tokens (latin-orthographies.ts)
   * and for every token read from another script.
   */
  readings: readonly string[];
  /**
   * A Latvian or Lithuanian respelling of a foreign name: its readings include the name without
   * the nominative ending, compared as renderings spell it (token-similarity.ts `rendersAs`).
   */
  respelt?: true;
  /** Respelt in a name written with letters only Latvian and Lithuanian write ("Maiks Džonsons"). */
  balticLetters?: true;
  /**
   * The pinyin/Wade-Giles syllable key of `text` (`siniticKey`), worked out at the token's first
   * comparison and kept: a listed token is compared with many queries.
   */
  sinitic: string | undefined;
}

const SPECIAL_LETTERS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ŀ: 'l',
  ħ: 'h',
};

const SPECIAL_RE = /[ßæœøłđðþıŀħ]/g;
/** Letters only Latvian and Lithuanian write (with š, ž, č, which Czech and Slovak share). */
const BALTIC_LETTERS_RE = /[āēīūģķļņėįųĀĒĪŪĢĶĻŅĖĮŲ]|[šžčŠŽČ]\S*(?:s)\b/u;
/**
 * A name written without Baltic letters whose parts all end in a vowel or s, one of them in a
 * Lithuanian nominative ending after a consonant ("Kevinas Hernas", "Sergei Leonovas").
 */
function looksLithuanian(name: string): boolean {
  const words = name.split(/[\s,]+/).filter((w) => w.length > 0);
  return (
    words.length >= 2 &&
    words.every((w) => /(?:[aeiouy]|s)$/i.test(w)) &&
    words.some((w) => /[^aeiouy](?:as|is|us|ys)$/i.test(w))
  );
}

const LATVIAN_ENDING_RE = /[^aeiouys]s$/;

/**
 * A name written without Baltic letters in letters Latvian has, whose parts all end in a vowel or
 * s, half of them at least in the Latvian nominative -s after a consonant ("Adrians Smits", "Sara
 * Makbraids"; one is enough beside a háček letter: "Mohamads Ali Džafari"). Portuguese "Davi
 * Martins" reads so too; a respelling writes every vowel it hears (token-similarity.ts
 * `fewerVowels`, `stemShortOfVowel`), which keeps such a name from agreeing loosely.
 */
function looksLatvian(name: string): boolean {
  const words = foldText(name)
    .split(/[\s,]+/)
    .filter((w) => w.length > 0);
  // Latvian writes no q, w, x or y ("Pablo Maryns" is Marin misspelt, not respelt).
  if (words.length < 2 || /[qwxy]/.test(words.join('')) || !words.every((w) => /(?:[aeiou]|s)$/.test(w)))
    return false;
  const endings = words.filter((w) => LATVIAN_ENDING_RE.test(w)).length;
  return endings > 0 && (2 * endings >= words.length || /[šžč]/i.test(name));
}

/** Their nominative endings of a man's name. */
const BALTIC_ENDING_RE = /(?:as|is|us|ys|s)$/;
const MARKS_RE = /\p{M}+/gu;
const APOSTROPHES_RE = /['’‘`ʻʼ´]/g;
const NON_ALNUM_RE = /[^a-z0-9]+/g;

/**
 * Lower-cases, strips diacritics and maps the letters NFKD cannot decompose (ß, ø, ł, ...).
 * Non-Latin letters of unsupported scripts survive this step and are removed by tokenisation.
 */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(MARKS_RE, '')
    .toLowerCase()
    .replace(SPECIAL_RE, (c) => SPECIAL_LETTERS[c]);
}

const VARIANT_KEYS: Map<string, string[]> = (() => {
  const map = new Map<string, string[]>();
  const add = (token: string, key: string) => {
    const keys = map.get(token) ?? [];
    if (!keys.includes(key)) keys.push(key);
    map.set(token, keys);
  };
  for (const group of NAME_VARIANT_GROUPS) for (const token of group) add(token, group[0]);
  const canonicalOf = (name: string): string[] => map.get(name) ?? [name];
  for (const [nick, fulls] of Object.entries(NICKNAMES)) {
    for (const full of fulls) for (const key of canonicalOf(full)) add(nick, key);
  }
  return map;
})();

/** The variant-dictionary keys of a folded token (its group's canonical spelling), if any. */
export function variantKeysOf(token: string): readonly string[] {
  return VARIANT_KEYS.get(token) ?? [];
}

const ABD_PREFIX_RE = /^ab(?:d|de|da|do|di)$/;
/**
 * Abdu and Abdou are given names in their own right (West Africa, the Horn, Yemen), not "Abd al-":
 * they join the next word only when the article follows ("Abdou el-Karim").
 */
const ABDU_RE = /^abd(?:u|ou)$/;
/** Somali "Aw" (a particle of respect before a name, "Abdi Aw Mohamed") is never an "Abd al-" stem. */
const NEVER_ABD_STEM = 'aw';
const ABD_JOINED_RE = /^abd(?:e|a|o|ou|i)l(?=[a-z]{3})/;
const ABD_ASSIMILATED_RE = /^abd[ue]([rsnzdt])\1?(?=[a-z]{3})/;
/** The article run into the name after the prefix ("Abd alKhaliq", "Abdelelkarim"): al-, el-, ul-. */
const ABD_ARTICLE_RUN_IN_RE = /^abdul(?:al|el|ul)(?=[a-z]{3})/;

/**
 * Arabic "Abd al-Rahman" appears as "Abdul Rahman", "Abdel Rahman", "Abdurrahman", "Abd al Rahman"
 * and "Abdulrahman" across lists; all become the single token "abdulrahman".
 */
function joinAbdPrefix(tokens: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const next = tokens[i + 1];
    const prefix =
      ABD_PREFIX_RE.test(t) ||
      t === 'abdul' ||
      t === 'abdel' ||
      t === 'abdal' ||
      (ABDU_RE.test(t) && PARTICLES.has(next));
    // "Abdul Abdul Momin": the first is a name of its own, the second the prefix of the next.
    const nextIsPrefix =
      tokens[i + 2] !== undefined && (next === 'abdul' || next === 'abdel' || next === 'abdal');
    if (next !== undefined && next !== NEVER_ABD_STEM && prefix && !nextIsPrefix) {
      let j = i + 1;
      if (PARTICLES.has(tokens[j]) && tokens[j + 1] !== undefined) j++;
      let rest = tokens[j];
      if (rest === 'allah' || rest === 'ullah' || rest === 'ellah' || rest === 'lh') rest = 'lah';
      out.push(canonicalAbd(`abdul${rest}`));
      i = j;
      continue;
    }
    out.push(canonicalAbd(t));
  }
  return out;
}

function canonicalAbd(token: string): string {
  if (!token.startsWith('abd')) return token;
  const assimilated = ABD_ASSIMILATED_RE.exec(token);
  if (assimilated) return `abdul${assimilated[1]}${token.slice(assimilated[0].length)}`;
  return token.replace(ABD_JOINED_RE, 'abdul').replace(ABD_ARTICLE_RUN_IN_RE, 'abdul');
}

/** Puts `SURNAME, Given names` in reading order; lists with several commas are left as they are. */
function reorderSurnameFirst(name: string): string {
  const parts = name.split(',');
  if (parts.length !== 2) return name;
  const [surname, given] = parts;
  if (surname.trim() === '' || given.trim() === '') return name;
  return `${given} ${surname}`;
}

const NON_ASCII_RE = /[^\u0020-\u007e]/;
/**
 * Letters whose romanisation is a guess at the vowels (and so is compared by its consonants). Han
 * and the northern Indic scripts and the Dravidian scripts but Tamil are not among them: pinyin is
 * the spelling the lists themselves give Chinese names, and those abugidas write every vowel, so
 * their names are compared letter for letter like Latin ones ("gang" is not "jing", "pande" not
 * "pinate"). Tamil writes k and g, t and d with one letter, so its spelling is a guess.
 */
const HAS_NON_LATIN_RE =
  /[^\p{Script=Latin}\p{Script=Han}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{M}\p{P}\p{Z}\p{N}\p{S}]/u;
const DIGITS_RE = /^[0-9]+$/;
/**
 * Letters only Vietnamese writes among the Latin alphabets of names: ĩ, ơ, ũ, ư and the vowels
 * with a tone mark below or a hook above (the Latin Extended Additional block U+1EA0–U+1EF9 is
 * Vietnamese's own). Not ă (Romanian writes it) nor đ (Croatian and Serbian do).
 */
const VIETNAMESE_LETTER_RE = /[ĩơũưĨƠŨƯ\u1ea0-\u1ef9]/u;
/**
 * Vietnamese family names, as Vietnamese writes them: together they are borne by most Vietnamese.
 * Folded, some are words of other names too ("le", "do", "ho", "ly"); with their marks they are not.
 */
const VIETNAMESE_FAMILY_NAMES: ReadonlySet<string> = new Set(
  'nguyễn trần lê phạm hoàng huỳnh vũ võ đặng bùi đỗ hồ ngô dương lý trương đinh đoàn trịnh lương lâm hà tô'.split(
    ' ',
  ),
);
/** A Vietnamese syllable is one short word. */
const VIETNAMESE_SYLLABLE_MAX = 7;

/**
 * Whether a name is written as Vietnamese (see `NameToken.readFromVietnamese`): with a letter only
 * Vietnamese writes, or of short words one of which is a Vietnamese family name with its marks
 * ("Khánh Vân Lê"). A name written without marks is not read so: its spelling may be a list's or a
 * customer's approximation, compared as any Latin name.
 */
export function isVietnameseName(name: string): boolean {
  if (VIETNAMESE_LETTER_RE.test(name)) return true;
  const words = name
    .normalize('NFC')
    .toLowerCase()
    .split(/[\s,.'-]+/u)
    .filter((w) => w.length > 0);
  return (
    words.length >= 2 &&
    words.every((w) => w.length <= VIETNAMESE_SYLLABLE_MAX) &&
    words.some((w) => VIETNAMESE_FAMILY_NAMES.has(w) && NON_ASCII_RE.test(w))
  );
}

const ARABIC_SCRIPT_RE = /[\u0600-\u06ff]/;
const ABJAD_SCRIPT_RE = /[\u0590-\u06ff]/;
/** Serbian and Macedonian ј; a j read from Cyrillic that is not the second letter of dj, lj or nj. */
const CYRILLIC_JE_RE = /\u0458/i;
const CYRILLIC_J_READ_RE = /(?<![dln])j/g;
const GREEK_SCRIPT_RE = /[\u0370-\u03ff]/;
/** Greek γι before a vowel, read back as gi: the y of a foreign name. */
const GREEK_GI_RE = /gi(?=[aeiou])/g;
const CYRILLIC_SCRIPT_RE = /[\u0400-\u052f]/;
const GEORGIAN_SCRIPT_RE = /[\u10a0-\u10ff]/;

/** Folded word list of a name, before titles, particles and variant keys are applied. */
export function nameWords(name: string): string[] {
  let folded: string;
  if (!NON_ASCII_RE.test(name)) {
    folded = reorderSurnameFirst(name).toLowerCase().replace(APOSTROPHES_RE, '');
  } else {
    const reordered = reorderSurnameFirst(name.normalize('NFC'));
    folded = foldText(transliterate(reordered)).replace(APOSTROPHES_RE, '');
  }
  return folded.split(NON_ALNUM_RE).filter((w) => w.length > 0 && !DIGITS_RE.test(w));
}

/** Builds the token record of one folded word. */
export function makeToken(
  text: string,
  particle = false,
  transliterated = false,
  readFromHan = false,
  readFromIndic = false,
): NameToken {
  const readings = otherAlphabetReadings(transliterated || readFromHan || readFromIndic ? '' : text);
  return tokenWith(text, particle, transliterated, readFromHan, readFromIndic, phoneticKey(text), readings);
}

/**
 * `makeToken`'s token with its phonetic key and other-alphabet readings given instead of worked
 * out (the compiled index stores them for every listed token, so a cold start does not redo them).
 */
export function tokenWith(
  text: string,
  particle: boolean,
  transliterated: boolean,
  readFromHan: boolean,
  readFromIndic: boolean,
  phonetic: string,
  readings: readonly string[],
): NameToken {
  return {
    transliterated,
    readFromHan,
    readFromIndic,
    text,
    variantKeys: variantKeysOf(text),
    phonetic,
    particle,
    initial: text.length === 1,
    vowelPoor: text.length >= 3 && vowelShare(text) < 0.2,
    readings,
    sinitic: undefined,
    // Every flag `tokeniseName` may set later, present from the start: every token then has one
    // object shape (V8 hidden class), and the comparisons reading tokens stay monomorphic instead
    // of meeting a shape per script. Undefined, as an absent flag reads (JSON leaves them out).
    readFromVietnamese: undefined,
    readFromArabic: undefined,
    readFromAbjad: undefined,
    readFromGreek: undefined,
    readFromCyrillic: undefined,
    readFromGeorgian: undefined,
    respelt: undefined,
    balticLetters: undefined,
  };
}

/**
 * Normalises a person's name into tokens ready for scoring. Titles are dropped unless nothing
 * else would remain ("President" alone stays a name); particles are kept and flagged.
 */
export function tokeniseName(name: string): NameToken[] {
  const nonAscii = NON_ASCII_RE.test(name);
  // A foreign name in Han ("弗拉基米尔·普京") is a guess at the foreign spelling, not pinyin.
  const transliterated =
    nonAscii && (HAS_NON_LATIN_RE.test(name) || (HAN_RE.test(name) && isForeignHanName(name)));
  const readFromHan = nonAscii && !transliterated && HAN_RE.test(name);
  const readFromIndic = nonAscii && !transliterated && INDIC_RE.test(name);
  const tokens = nameParts(name).map((p) =>
    makeToken(p.text, p.particle, transliterated, readFromHan, readFromIndic),
  );
  if (transliterated && ARABIC_SCRIPT_RE.test(name)) {
    for (const t of tokens) t.readFromArabic = true;
    withArticleRead(tokens);
  }
  if (transliterated && ABJAD_SCRIPT_RE.test(name)) for (const t of tokens) t.readFromAbjad = true;
  if (transliterated && GREEK_SCRIPT_RE.test(name)) {
    for (const t of tokens) {
      t.readFromGreek = true;
      // Greek γι before a vowel is y, which Greek has no letter for ("Γιουρι" Yuri, "Ργιαν" Ryan,
      // "Γιακουσεβ" Yakushev); read letter by letter it is gi (Γιάννης is also spelt Giannis).
      // `search`, not `test`: a global expression's `test` starts where its last match ended.
      if (t.text.search(GREEK_GI_RE) >= 0)
        t.readings = [...new Set([...t.readings, t.text.replace(GREEK_GI_RE, 'y')])];
    }
  }
  if (transliterated && CYRILLIC_SCRIPT_RE.test(name)) {
    for (const t of tokens) {
      t.readFromCyrillic = true;
      // Serbian and Macedonian ј, read j as their Latin alphabets write it ("Јовановић"
      // Jovanovic), is the y of a foreign name ("Јахја" Yahya, "Јурии" Yuriy): one more reading.
      if (CYRILLIC_JE_RE.test(name) && t.text.search(CYRILLIC_J_READ_RE) >= 0)
        t.readings = [...new Set([...t.readings, t.text.replace(CYRILLIC_J_READ_RE, 'y')])];
    }
  }
  if (transliterated && GEORGIAN_SCRIPT_RE.test(name)) for (const t of tokens) t.readFromGeorgian = true;
  if (nonAscii && !transliterated && isVietnameseName(name)) {
    for (const t of tokens) {
      t.readFromVietnamese = true;
      t.particle = false;
    }
  }
  const latin = nonAscii && !transliterated && !readFromHan && !readFromIndic;
  const plainLatin = !transliterated && !readFromHan && !readFromIndic;
  const balticLetters = latin && BALTIC_LETTERS_RE.test(name);
  if (balticLetters || (plainLatin && (looksLithuanian(name) || looksLatvian(name)))) {
    // Latvian and Lithuanian respell a foreign name as it sounds and give it their nominative
    // ending ("Mičs Makonels", "Mičas Makonelas" for Mitch McConnell): the name without it is
    // one more reading, its háčeks spelt out. Written without Baltic letters, a name is read so
    // when its parts end as Latvian or Lithuanian parts do ("Adrians Smits" for Adrian Smith).
    const spelt = nameParts(withDigraphs(name.normalize('NFC')) ?? name);
    if (spelt.length === tokens.length) {
      for (let i = 0; i < tokens.length; i++) {
        if (tokens[i].particle) continue;
        // Every part is respelt, with an ending or not ("Džimi", "Ašli"): compared as a rendering.
        tokens[i].respelt = true;
        if (balticLetters) tokens[i].balticLetters = true;
        const stem = spelt[i].text.replace(BALTIC_ENDING_RE, '');
        if (stem === spelt[i].text || stem.length < 3) continue;
        tokens[i].readings = [...new Set([...tokens[i].readings, stem])];
      }
    }
  }
  const digraphs = latin ? withDigraphs(name.normalize('NFC')) : undefined;
  if (digraphs !== undefined) {
    // "Ajaš" folds to "ajas"; the lists write "Ayash": the háček spelt out is one more reading.
    const spelt = nameParts(digraphs);
    if (spelt.length === tokens.length) {
      for (let i = 0; i < tokens.length; i++) {
        const text = spelt[i].text;
        if (text === tokens[i].text) continue;
        tokens[i].readings = [...new Set([...tokens[i].readings, text, ...otherAlphabetReadings(text)])];
      }
    }
  }
  return tokens;
}

/**
 * Arabic script writes a foreign name's opening al, el or il as the article does, ال joined to
 * what follows ("اليكساندر" for Aleksandr, "الينا" for Elena, "الفريد" for Alfred), and reading
 * back splits it off ("al iksandr"): the part after an "al" is also read with it, so the name is
 * found by its whole skeleton.
 */
function withArticleRead(tokens: NameToken[]): void {
  for (let i = 1; i < tokens.length; i++) {
    const t = tokens[i];
    if (tokens[i - 1].text !== 'al' || t.particle || t.initial) continue;
    t.readings = [...new Set([...t.readings, `al${t.text}`])];
  }
}

/**
 * The Arabic article run into the pilgrim's title: "elHajj" is "el Hajj" (the title then dropped,
 * the article kept as the list's "el-Hajj" keeps it). Only Hajj and its spellings: "Alsheikh" is
 * also a family name (Al ash-Sheikh), which splitting would lose. The run-in forms the titles list
 * itself ("alhajj") are dropped whole, as before.
 */
const ARTICLE_TITLE_RE = /^(al|el)(ha[a-z]{2,3})$/;

/** A word that is the article and a title run together, as the two words; else the word. */
function splitArticleTitle(word: string): string | string[] {
  const m = ARTICLE_TITLE_RE.exec(word);
  return m !== null && !TITLES.has(word) && TITLES.has(m[2]) ? [m[1], m[2]] : word;
}

/** The words of a name that take part in matching, with their particle flag (see `tokeniseName`). */
export function nameParts(name: string): { text: string; particle: boolean }[] {
  const words = joinAbdPrefix(nameWords(name)).flatMap(splitArticleTitle);
  const withoutTitles = words.filter((w) => !TITLES.has(w));
  const kept = withoutTitles.length > 0 ? withoutTitles : words;
  const parts: { text: string; particle: boolean }[] = [];
  for (let i = 0; i < kept.length; i++) {
    const w = kept[i];
    // "Ben" opening a name is a given name, not the Hebrew/Arabic particle.
    const particle = PARTICLES.has(w) && kept.length > 1 && !(i === 0 && w.length >= 3);
    parts.push({ text: w, particle });
  }
  return parts;
}

/** A readable normalised form of a name, for cache keys and explanations. */
export function normaliseName(name: string): string {
  return tokeniseName(name)
    .map((t) => t.text)
    .join(' ');
}

/**
 * One Chinese syllable in pinyin or Wade-Giles (apostrophes already dropped): an optional initial
 * and a final. Permissive on purpose: it only decides whether a token can be read as syllables.
 */
const SINITIC_SYLLABLE_RE =
  /^(?:zh|ch|sh|ts|tz|hs|[bpmfdtnlgkhjqxrzcsyw])?(?:iang|iong|iung|uang|ieh|ien|iao|ian|ing|ang|eng|ong|ung|uai|uan|uei|ai|ei|ao|ou|an|en|ia|ie|iu|in|ua|uo|ui|un|ue|eh|ih|erh|er|a|o|e|i|u)$/;

/** Initials the two systems write differently for one sound, and aspiration lost with the apostrophe. */
const SINITIC_INITIALS: Record<string, string> = {
  ts: 'z',
  tz: 'z',
  c: 'z',
  zh: 'j',
  ch: 'j',
  q: 'j',
  r: 'j',
  hs: 's',
  x: 's',
  sh: 's',
  t: 'd',
  p: 'b',
  k: 'g',
};
const SINITIC_FINALS: Record<string, string> = {
  ung: 'ong',
  iung: 'iong',
  ieh: 'ie',
  eh: 'e',
  ih: 'i',
  erh: 'er',
  ien: 'ian',
  uei: 'ui',
};
const SINITIC_INITIAL_RE = /^(?:zh|ch|sh|ts|tz|hs|[bpmfdtnlgkhjqxrzcsyw])/;

function siniticSyllableKey(syllable: string): string {
  const initial = SINITIC_INITIAL_RE.exec(syllable)?.[0] ?? '';
  // Vowel-initial syllables ("an", "er") have no initial; a lone initial letter is not a syllable.
  const rest = syllable.slice(initial.length);
  const final = rest === '' ? syllable : rest;
  const head = rest === '' ? '' : initial;
  return (SINITIC_INITIALS[head] ?? head) + (SINITIC_FINALS[final] ?? final);
}

const siniticCache = new Map<string, string>();
const SINITIC_CACHE_LIMIT = 50_000;

/**
 * A key shared by the pinyin and Wade-Giles spellings of one Chinese name ("Zedong" / "Tsetung",
 * "Xiaoping" / "Hsiaoping"), also merging x with s, which customers often confuse; '' when the
 * token cannot be read as 1–4 Chinese syllables. Syllables are matched longest first from the
 * left, with backtracking, so "xian" stays one syllable and "tsetung" splits as "tse" + "tung".
 */
export function siniticKey(token: string): string {
  if (token.length < 2 || token.length > 14) return '';
  const cached = siniticCache.get(token);
  if (cached !== undefined) return cached;
  segmentGeneration++;
  const key = segmentSinitic(token, 0, 0) ?? '';
  if (siniticCache.size >= SINITIC_CACHE_LIMIT) siniticCache.clear();
  siniticCache.set(token, key);
  return key;
}

/** Longest syllable `SINITIC_SYLLABLE_RE` reads ("zhuang", "hsiung"). */
const SINITIC_SYLLABLE_MAX = 6;
/** Most syllables `siniticKey` reads a token as. */
const SINITIC_SYLLABLES_MAX = 4;
/**
 * Places (position, syllables read so far) of the token being segmented from which no reading
 * succeeds, marked with `segmentGeneration`: backtracking reaches a place by many paths, and a
 * place that failed once fails again (a name that is no pinyin is tried at every split).
 */
const segmentFailed = new Int32Array(15 * (SINITIC_SYLLABLES_MAX + 1));
let segmentGeneration = 0;

function segmentSinitic(token: string, from: number, count: number): string | undefined {
  if (from === token.length) return count > 0 ? '' : undefined;
  if (count === SINITIC_SYLLABLES_MAX) return undefined;
  // What is left cannot be read in the syllables left.
  if (token.length - from > (SINITIC_SYLLABLES_MAX - count) * SINITIC_SYLLABLE_MAX) return undefined;
  const place = from * (SINITIC_SYLLABLES_MAX + 1) + count;
  if (segmentFailed[place] === segmentGeneration) return undefined;
  for (
    let end = Math.min(token.length, from + 6);
    end > from + 1 || (end > from && from + 1 === token.length);
    end--
  ) {
    const syllable = token.slice(from, end);
    if (!SINITIC_SYLLABLE_RE.test(syllable)) continue;
    const rest = segmentSinitic(token, end, count + 1);
    if (rest !== undefined) return `${siniticSyllableKey(syllable)}.${rest}`;
  }
  segmentFailed[place] = segmentGeneration;
  return undefined;
}
