/**
 * Similarity of two name tokens: spelling (Jaro-Winkler blended with edit distance under a typo
 * budget: at most two edits, three make another name), name-variant keys, phonetic and consonant
 * skeletons for renderings of other scripts, pinyin/Wade-Giles syllable keys, patronymic stems,
 * Baltic endings and the Arabic "Abd al-" prefix ("Abd al-X" names are compared on X).
 */

import { makeToken, type NameToken, siniticKey } from './normalise.ts';
import {
  editDistance,
  jaroWinkler,
  renderedVowelsAgree,
  renderingFold,
  renderingSkeleton,
  renderingSkeletons,
  sameFold,
  sameRendering,
} from './string-similarity.ts';

/** Joined Arabic "Abd al-" prefix, as produced by normalisation. */
export const ABD_PREFIX = 'abdul';
/** Similarity of "Abd al-X" to its short form "X". */
const ABD_SHORT_FORM = 0.95;
/** Least similarity of two tokens within the typo budget: aligned, but discounted. */
const TYPO_FLOOR = 0.8;
/** Most similarity of two same-script tokens beyond the typo budget: never aligned. */
const BEYOND_BUDGET = 0.72;
/** Token pairs below this similarity are not aligned at all. */
const ALIGN_MIN = 0.75;
/** Two renderings of one pinyin / Wade-Giles syllable sequence. */
const SINITIC_PAIR = 0.93;
/** Two spellings in one group of the name-variant dictionary (Mohammed / Muhammad, Bill / William). */
const VARIANT_PAIR = 0.95;
/**
 * One name in another Latin alphabet's letters ("Wasiljewicz" / "Vasilyevich", "Jajla" / "Yayla"):
 * the same sounds, so as close as two spellings of a variant group.
 */
const OTHER_ALPHABET_PAIR = 0.95;
/** A stem and the stem with a Baltic nominative ending ("Putin" / "Putinas"). */
const INFLECTED_PAIR = 0.95;
/** An initial and a name starting with its letter; also two particles with one phonetic key. */
const INITIAL_PAIR = 0.9;
/** Two different particles ("al" / "bin"). */
const OTHER_PARTICLE_PAIR = 0.5;
/** Two patronymics on the same given-name stem. */
const PATRONYMIC_STEM_PAIR = 0.98;
/** Same phonetic key across scripts, and within the typo budget in one script. */
const PHONETIC_OTHER_SCRIPT = 0.93;
/**
 * A rendering of a Latin name in another script read back, or a Baltic respelling, that is the
 * listed spelling once the renderings' spelling choices are folded (`sameRendering`: "dzhon" /
 * "John", "makkonnell" / "McConnell", "Makonels" / "McConnell").
 */
const RENDERING_PAIR = 0.93;
const PHONETIC_SAME_SCRIPT = 0.86;
/**
 * A rendering of another script read back, or a Baltic respelling, whose consonant skeleton is the
 * listed spelling's (`renderingSkeleton`: "mkvriid" / "McBride", "liunuu" / "Leonov", "dzordz" /
 * "George") and writes, between them, only vowels the listed spelling has there
 * (`renderedVowelsAgree`): aligned, above the partial band's contribution; as one name rendered
 * (`rendersAlike`) it is `RENDERING_PAIR` (name-score.ts counts such a pair as firm when the
 * whole name is rendered).
 */
const SKELETON_RENDERING_PAIR = 0.87;
/** Shortest skeleton compared so: one consonant is many names'. */
const SKELETON_MIN = 2;
/**
 * Shortest skeleton from which an agreement with the written vowels counts as the name spelt
 * (`rendersAlike`): two consonants and a vowel or two are still many names' ("Sin" / "Sean").
 */
const FIRM_SKELETON = 3;
/** Consonant skeletons of vowel-less renderings one edit apart. */
const SKELETON_PAIR = 0.85;
/** Factor for tokens that start with different letters and sounds. */
const FIRST_LETTER_FACTOR = 0.93;
const PATRONYMIC_RE =
  /(?:[oeu][vfw](?:ich|itch|itsh|itsch|itsj|itj|itx|its|ics|ici|ic|ych|icz|iç)|ovna|evna|ovnaa|oglu|ogly|kyzy|qizi)$/;
/** Baltic nominative endings ("Putinas", "Vladimirs") added to a stem the other side shows bare. */
const BALTIC_ENDINGS = ['s', 'as', 'is', 'us', 'ys'];

/** Similarity of two name tokens in 0..1. */
export function tokenSimilarity(a: NameToken, b: NameToken): number {
  return compareTokens(a, b, false);
}

/**
 * `tokenSimilarity(a, b)` whenever that reaches `ALIGNABLE`; otherwise some value in 0..1 below
 * it (never above the exact similarity). Scoring and candidate selection only use similarities
 * from `ALIGNABLE` up, so they can skip the Jaro-Winkler work on pairs already beyond the typo
 * budget, which is most pairs of different names.
 */
export function alignableSimilarity(a: NameToken, b: NameToken): number {
  return compareTokens(a, b, true);
}

/** Least similarity that `alignableSimilarity` reports exactly. */
export const ALIGNABLE = ALIGN_MIN;

/** Edits from which two name parts that are both names the lists carry are two names. */
const KNOWN_NAMES_APART = 2;

/**
 * Whether a query part that is itself a name part the lists carry (the caller knows the lists) is
 * another name than `listed`, not a misspelling of it: both written in the Latin alphabet as typed
 * (not read from another script, with no reading in another Latin alphabet), two or more edits
 * apart, and in no name-variant group together ("Martins" / "Marin", "Bykov" / "Boikov"). A
 * typo seldom lands on another name the lists carry; a namesake's name always does. Names with
 * the "Abd" prefix are left to `abdSimilarity`, which compares them on what follows it.
 */
export function anotherKnownName(query: NameToken, listed: NameToken): boolean {
  if (query.particle || query.initial || listed.particle || listed.initial) return false;
  if (query.transliterated || listed.transliterated || query.vowelPoor || listed.vowelPoor) return false;
  if (query.readings.length > 0 || listed.readings.length > 0) return false;
  if (query.text.startsWith('abd') || listed.text.startsWith('abd')) return false;
  for (const k of query.variantKeys) if (listed.variantKeys.includes(k)) return false;
  return editDistance(query.text, listed.text, KNOWN_NAMES_APART) >= KNOWN_NAMES_APART;
}

/** `cut`: see `alignableSimilarity`. */
function compareTokens(a: NameToken, b: NameToken, cut: boolean): number {
  if (a.text === b.text) return 1;
  if (a.particle || b.particle) {
    if (a.particle && b.particle)
      return a.phonetic === b.phonetic && a.phonetic !== '' ? INITIAL_PAIR : OTHER_PARTICLE_PAIR;
    return 0;
  }
  if (a.initial || b.initial) return a.text[0] === b.text[0] ? INITIAL_PAIR : 0;
  // One letter or two apart, but another person: a woman's form of a Slavic name and the man's
  // ("Ivanova" / "Ivanov", "Evgeniya" / "Evgeniy"), and a surname and the patronymic made from
  // the same name ("Ivanov" / "Ivanovich", "Aleksandrova" / "Aleksandrovna").
  if (slavicGenderPair(a.text, b.text) || surnameAndPatronymic(a, b))
    return Math.min(spellingSimilarity(a, b, cut), BEYOND_BUDGET);
  // A Vietnamese syllable written with its tone marks is exact: one letter apart is another name
  // ("Thiên" is not "Tiến", "Hồng" not "Hùng"), whatever the Chinese syllable keys say.
  if (a.readFromVietnamese || b.readFromVietnamese)
    return Math.min(spellingSimilarity(a, b, cut), BEYOND_BUDGET);
  if (a.variantKeys.length > 0 && b.variantKeys.length > 0) {
    for (const k of a.variantKeys) if (b.variantKeys.includes(k)) return VARIANT_PAIR;
  }
  if (hasInflectedEnding(a.text, b.text) || hasInflectedEnding(b.text, a.text)) return INFLECTED_PAIR;
  if ((a.readings.length > 0 || b.readings.length > 0) && (readsAs(a, b.text) || readsAs(b, a.text)))
    return OTHER_ALPHABET_PAIR;
  // Only across scripts or for a Baltic respelling: most tokens have readings, and a Latin pair
  // has its readings' own comparison above.
  if (
    (a.respelt || b.respelt || a.transliterated || b.transliterated) &&
    (rendersAs(a, b) || rendersAs(b, a))
  )
    return Math.max(RENDERING_PAIR, spellingSimilarity(a, b, cut));
  const skeleton = skeletonRendering(a, b);
  if (skeleton !== undefined && renderedVowelsAgree(skeleton.rendering, skeleton.listed)) {
    // One name rendered (`rendersAlike`) is as close as another script's rendering folded alike.
    const pair = rendersAlike(a, b) === 'rendered' ? RENDERING_PAIR : SKELETON_RENDERING_PAIR;
    return Math.max(pair, spellingSimilarity(a, b, cut));
  }
  if (a.text.length > 6 && b.text.length > 6 && isPatronymic(a) && isPatronymic(b))
    return patronymicSimilarity(a, b, cut);
  const aAbd = a.text.startsWith(ABD_PREFIX) && a.text.length >= ABD_PREFIX.length + 3;
  const bAbd = b.text.startsWith(ABD_PREFIX) && b.text.length >= ABD_PREFIX.length + 3;
  if (aAbd || bAbd) return abdSimilarity(a, b, aAbd, bAbd, cut);
  // Pinyin and Wade-Giles spell one Chinese name apart ("Zedong" / "Tse-tung") by more than a typo.
  const sinitic = siniticOf(a);
  if (sinitic !== '' && sinitic === siniticOf(b))
    return Math.max(SINITIC_PAIR, spellingSimilarity(a, b, cut));
  // Pinyin read from Han characters is exact: one letter apart is another syllable ("jin" is not
  // "rin", "fei" not "wei"), and Chinese syllables are too short for a typo budget to mean a typo.
  // So are short names read from an Indic script, which writes every vowel: "Mala" is not "Mali".
  const shortIndic = (a.readFromIndic || b.readFromIndic) && Math.max(a.text.length, b.text.length) <= 4;
  if (a.readFromHan || b.readFromHan || shortIndic)
    return Math.min(spellingSimilarity(a, b, cut), BEYOND_BUDGET);
  return spellingSimilarity(a, b, cut);
}

/**
 * Two patronymics are the fathers' given names with a suffix whose spelling follows the language
 * ("Vladimirovich", "Wladimirowitsch", "Volodymyrovych"): compared on the given-name stems, so the
 * name-variant dictionary applies and a different father's name remains a conflict.
 */
function patronymicSimilarity(a: NameToken, b: NameToken, cut: boolean): number {
  const stemA = a.text.replace(PATRONYMIC_RE, '');
  const stemB = b.text.replace(PATRONYMIC_RE, '');
  if (stemA.length < 3 || stemB.length < 3) return spellingSimilarity(a, b, cut);
  if (stemA === stemB) return PATRONYMIC_STEM_PAIR;
  const s = compareTokens(
    makeToken(stemA, false, a.transliterated),
    makeToken(stemB, false, b.transliterated),
    cut,
  );
  // The whole words are compared only for a typo: spelt alike they share the suffix, so
  // "Mikhailovich" and "Nikolayevich" (fathers Mikhail and Nikolay) look near as words.
  return editDistance(a.text, b.text, 2) <= 1 ? Math.max(s, spellingSimilarity(a, b, cut)) : s;
}

/**
 * "Abd al-X" names share their first five letters whatever X is, so two of them are compared on X
 * ("Abdul Hamid" / "Abdul Ghani" differ); the bare X is a common short form of the full name
 * ("Abdul Hanif" / "Hanif") and compares almost as the same name.
 */
function abdSimilarity(a: NameToken, b: NameToken, aAbd: boolean, bAbd: boolean, cut: boolean): number {
  const stemA = aAbd ? makeToken(a.text.slice(ABD_PREFIX.length), false, a.transliterated) : a;
  const stemB = bAbd ? makeToken(b.text.slice(ABD_PREFIX.length), false, b.transliterated) : b;
  // The stem's first letter is inside the name, where a typo costs what it costs anywhere else.
  const s = stemA.text === stemB.text ? 1 : spellingSimilarity(stemA, stemB, cut, !(aAbd && bAbd));
  // A misspelt prefix ("Abudl Salam" run together) is still compared letter by letter.
  return aAbd && bAbd ? s : Math.max(s * ABD_SHORT_FORM, spellingSimilarity(a, b, cut));
}

function spellingSimilarity(a: NameToken, b: NameToken, cut: boolean, initialCounts = true): number {
  const maxLen = Math.max(a.text.length, b.text.length);
  // A typo is one or two keystrokes whatever the length of the name; three or more edits make
  // another name ("Castro" / "Castillo", "Marcos" / "Marquez"), not a misspelling of this one.
  const budget = maxLen <= 2 ? 0 : maxLen <= 4 ? 1 : 2;
  // Renderings of another script disagree mostly on vowels; the consonant skeleton carries the name.
  const otherScript = a.vowelPoor || b.vowelPoor || a.transliterated !== b.transliterated;
  // Beyond the budget a same-script pair ends at most at BEYOND_BUDGET, below ALIGNABLE: only the
  // skeleton comparison of another script's rendering can lift it. The distance is then needed
  // only up to the budget (it is exact up to its limit), and is at least the length difference.
  const skip = cut && !otherScript;
  if (skip && Math.abs(a.text.length - b.text.length) > budget) return 0;
  const distance = editDistance(a.text, b.text, skip ? budget : budget + 2);
  if (skip && distance > budget) return 0;
  let s = 0.5 * jaroWinkler(a.text, b.text) + 0.5 * (1 - Math.min(distance, maxLen) / maxLen);
  if (distance <= budget) s = Math.max(s, TYPO_FLOOR);
  else s = Math.min(s, BEYOND_BUDGET);
  // Folded alike, the two open alike too ("kharris" / Harris: Cyrillic х for h).
  const rendered = otherScript && a.transliterated !== b.transliterated && renderedAlike(a, b);
  if (rendered) s = Math.max(s, RENDERING_PAIR);
  if (a.phonetic === b.phonetic && a.phonetic.length >= 3) {
    if (otherScript) s = Math.max(s, PHONETIC_OTHER_SCRIPT);
    else if (distance <= budget) s = Math.max(s, PHONETIC_SAME_SCRIPT);
  } else if (otherScript && a.phonetic.length >= 2 && b.phonetic.length >= 2) {
    // Vowel-less renderings of Arabic or Hebrew script: compare the consonant skeletons.
    const sk = jaroWinkler(a.phonetic, b.phonetic);
    const skDistance = editDistance(a.phonetic, b.phonetic, 2);
    if (skDistance <= 1 && sk >= SKELETON_PAIR) s = Math.max(s, SKELETON_PAIR);
  }
  if (initialCounts && !rendered && a.text[0] !== b.text[0] && a.phonetic[0] !== b.phonetic[0])
    s *= FIRST_LETTER_FACTOR;
  return s;
}

/**
 * Whether two parts, one read back from another script, are one name as renderings fold it
 * (`sameRendering`), also by one of its readings; an abjad's word-initial alef, read "a", stands for any vowel there ("asa",
 * אסא / اسا for Issa).
 */
export function renderedAlike(a: NameToken, b: NameToken): boolean {
  if (sameRendering(a.text, b.text)) return true;
  // A reading back's other readings ("yuri" for "giuri", Greek γι; "aliksandr" for "al iksandr").
  const [t, o] = a.transliterated ? [a, b] : [b, a];
  if (t.transliterated && !o.transliterated)
    for (const r of t.readings) if (sameRendering(r, o.text)) return true;
  const [r, l] = a.readFromAbjad ? [a, b] : [b, a];
  if (!r.readFromAbjad || r.text[0] !== 'a' || !/^[eiou]/.test(l.text)) return false;
  return sameRendering(r.text, `a${l.text.slice(1)}`);
}

/** Whether a token is a rendering of another script read back or a Baltic respelling. */
function isRendering(token: NameToken): boolean {
  return token.transliterated || token.respelt === true;
}

/**
 * The spelling of `a` or `b` (a rendering of another script, or a Baltic respelling's stem) whose
 * consonant skeleton, read either way where a letter may be a vowel or v, is the other token's
 * (`renderingSkeleton`), with the other's text; undefined when there is none.
 */
function skeletonRendering(a: NameToken, b: NameToken): SkeletonAgreement | undefined {
  if (a.particle || b.particle || a.initial || b.initial) return undefined;
  if (isRendering(a) && !isRendering(b)) return skeletonOf(a, b);
  if (isRendering(b) && !isRendering(a)) return skeletonOf(b, a);
  if (isRendering(a) && isRendering(b)) return skeletonOf(a, b) ?? skeletonOf(b, a);
  return undefined;
}

interface SkeletonAgreement {
  rendering: string;
  listed: string;
  skeleton: string;
}

function skeletonOf(rendering: NameToken, listed: NameToken): SkeletonAgreement | undefined {
  const found = skeletonOfSpelling(rendering, listed, listed.text);
  // Latvian and Lithuanian write a foreign w as v ("Vesli" for Wesley, "Vacons" for Watson); the
  // skeleton leaves w out as a vowel, so a respelling is also compared with the listed w as v.
  // (`search`, not `test`: a global expression's `test` starts where its last match ended.)
  if (
    found !== undefined ||
    !rendering.respelt ||
    rendering.transliterated ||
    listed.text.search(LISTED_W_RE) < 0
  )
    return found;
  return skeletonOfSpelling(rendering, listed, listed.text.replace(LISTED_W_RE, 'v'));
}

/** A listed w opening the name or between vowels (Wesley, Howard; not Shwe), which a Baltic respelling writes v. */
const LISTED_W_RE = /(?<=^|[aeiouy])w(?=[aeiouy])/g;

function skeletonOfSpelling(
  rendering: NameToken,
  listedToken: NameToken,
  text: string,
): SkeletonAgreement | undefined {
  const own = text === listedToken.text;
  const target = own ? skeletonsOf(listedToken).plain : renderingSkeleton(text);
  if (target.length < SKELETON_MIN) return undefined;
  const { spellings, readBothWays, strict, looked } = skeletonsOf(rendering);
  // A Baltic ending is the name's own s only where the listed name ends in an s sound, and the
  // rest is spelt as renderings fold it, a letter apart at most ("Sefus" / CEPHUS, "Šarais" /
  // Sharice; not "Moraes" / MORRIS).
  const count = target.endsWith('s') ? spellings.length : looked;
  const baltic = rendering.respelt === true && !rendering.transliterated;
  for (let k = 0; k < count; k++) {
    if (k >= looked && editDistance(renderingFold(spellings[k]), renderingFold(text), 2) > 1) continue;
    if (baltic && (stemShortOfVowel(spellings[k], text) || fewerVowels(spellings[k], text))) continue;
    // A rendering of an alphabet writes b, p, f and v apart, and its first letter.
    if (strict !== undefined) {
      if (strict[k] !== (own ? strictSkeletonOf(listedToken) : renderingSkeleton(text, true))) continue;
      if (!sameOpening(spellings[k], text)) continue;
    }
    if (readBothWays[k].includes(target)) return { rendering: spellings[k], listed: text, skeleton: target };
  }
  return undefined;
}

/**
 * The other spellings a reading back of another script may stand for (`scriptSpellings`, the
 * token's own text aside): candidate selection looks them up as it looks up the text.
 */
export function otherScriptSpellings(token: NameToken): string[] {
  if (!token.transliterated || token.particle || token.initial) return [];
  const text = token.text;
  // Cyrillic х (read "kh") renders a foreign h as well ("Шихадах" for SHIHADAH): looked up so,
  // and compared as renderings fold it (kh as h, string-similarity.ts `renderingFold`); its
  // skeleton keeps the k, as most Cyrillic х are Russian kh (Mikhail, Zakharov).
  const out = token.readFromCyrillic && text.includes('kh') ? [text.replace(/kh/g, 'h')] : [];
  for (const t of scriptSpellings(token, text)) if (t !== text) out.push(t);
  return out;
}

/**
 * The spellings a reading back of another script may stand for where one of its letters renders
 * two Latin ones: Greek χ (read "ch") a foreign h or kh ("Χουφμαν" for Huffman, "Ζαχαροβ" for
 * Zakharov), and μπ and ντ (read "b" and "d" as a word opens) an mp or mb, an nt or nd inside a
 * word ("Θομπσον" for Thompson, "Σταντον" for Stanton); Georgian ფ (read "p")
 * an f ("ფინსთრა" for Feenstra).
 */
function scriptSpellings(token: NameToken, text: string): string[] {
  if (token.readFromGreek) {
    const out = [text.replace(/ch/g, 'h')];
    if (text.includes('ch')) out.push(text.replace(/ch/g, 'kh'));
    if (/.b/.test(text))
      for (const t of [...out]) out.push(t.replace(/(?<=.)b/g, 'mp'), t.replace(/(?<=.)b/g, 'mb'));
    if (/.d/.test(text))
      for (const t of [...out]) out.push(t.replace(/(?<=.)d/g, 'nt'), t.replace(/(?<=.)d/g, 'nd'));
    return out;
  }
  if (token.readFromGeorgian && text.includes('p')) return [text, text.replace(/p/g, 'f')];
  return [text];
}

/**
 * How two aligned tokens agree as one name rendered: one is another script's rendering (or a
 * Baltic respelling) with the other's consonant skeleton, and the vowels it writes are, in order,
 * the other's ("jurj" / "George"; not "khlud" / "Khaled"): 'rendered' from three consonants,
 * 'short' with two ("sin" / "Sean"), which are many names'; undefined when they do not.
 */
export function rendersAlike(a: NameToken, b: NameToken): 'rendered' | 'short' | undefined {
  const r = skeletonRendering(a, b);
  if (r === undefined || !renderedVowelsAgree(r.rendering, r.listed)) return undefined;
  // Counted on the consonants the rendering writes: a vowel letter read as v adds none ("tod").
  if (Math.min(r.skeleton.length, writtenConsonants(r.rendering)) >= FIRM_SKELETON) return 'rendered';
  // Two consonants: the same opening, and a vowel written besides a ("Sin" / SEAN, "Modi" /
  // MOODY; not "Sara" / YASSER, "Par" / AYEBARE), its consonants as written ("tod" is not DAVID).
  // An abjad leaves the vowel after the first letter unwritten: its opening is that letter's
  // ("jri", ג'רי for Jerry; "kli", קלי for Kelly).
  const abjad = a.readFromAbjad === true || b.readFromAbjad === true;
  const opening = abjad ? sameFirstConsonant(r.rendering, r.listed) : sameOpening(r.rendering, r.listed);
  return opening && /[eiouy]/.test(r.rendering) && renderingSkeleton(r.rendering) === r.skeleton
    ? 'short'
    : undefined;
}

/**
 * Consonants a rendering writes, by skeleton class: a letter repeated across a vowel counts twice
 * ("dauiduuik", داویدوویک for Davidovic, writes d, d and k), a doubled one once.
 */
function writtenConsonants(rendering: string): number {
  const skeleton = renderingSkeleton(rendering);
  if (skeleton.length >= FIRM_SKELETON) return skeleton.length;
  let n = 0;
  for (const syllable of rendering.split(/[aeiouyhw]+/)) n += renderingSkeleton(syllable).length;
  return n;
}

/**
 * Whether two Latin tokens, one a Baltic respelling, agree only by `renderingSkeleton`: not spelt
 * alike within a typo, as another alphabet reads it, nor with a Baltic ending added.
 */
export function skeletonOnly(a: NameToken, b: NameToken): boolean {
  if (a.text === b.text || skeletonRendering(a, b) === undefined) return false;
  const maxLen = Math.max(a.text.length, b.text.length);
  if (editDistance(a.text, b.text, 2) <= (maxLen <= 4 ? 1 : 2)) return false;
  if (hasInflectedEnding(a.text, b.text) || hasInflectedEnding(b.text, a.text)) return false;
  if ((a.readings.length > 0 || b.readings.length > 0) && (readsAs(a, b.text) || readsAs(b, a.text)))
    return false;
  return !(rendersAs(a, b) || rendersAs(b, a));
}

/**
 * A token's skeletons, worked out once per token: its text's (`plain`) and, for a rendering, each
 * spelling's (the text and a Baltic respelling's readings) read both ways (`renderingSkeletons`).
 */
function skeletonsOf(token: NameToken): TokenSkeletons {
  let s = tokenSkeletons.get(token);
  if (s === undefined) {
    let spellings = isRendering(token) ? [token.text, ...token.readings] : [];
    // A Baltic respelling is compared without its nominative ending ("Makonels" as "makonel"),
    // and, written after a vowel, with it, which may be the name's own ("Sefus" for CEPHUS); an
    // s after a consonant is the ending. Baltic c is ts, j is y. The stems alone are looked up
    // (`renderingSkeletonKeys`): an ending read as the name's would draw every listed name with
    // an s after the stem's consonants.
    let withEnding: string[] = [];
    if (token.respelt && !token.transliterated) {
      // A Baltic zh is a ž: the Turkish reading of j as zh is no respelling's ("Maja" is Maya).
      if (!token.text.includes('z')) spellings = spellings.filter((t) => !t.includes('zh'));
      const stems = new Set(spellings.map((t) => balticLetters(withoutBalticEnding(t))));
      const own = balticLetters(token.text);
      if (/[aeiouy]s$/.test(own) && !stems.has(own)) withEnding = [own];
      spellings = [...stems];
    }
    spellings = [...new Set(spellings.flatMap((t) => scriptSpellings(token, t)))];
    const looked = spellings.length;
    spellings = [...spellings, ...withEnding];
    // Only the abjads write b and v (Hebrew), f and v (Arabic) with one letter and leave vowels
    // unwritten: other scripts' renderings write every letter, so b, p, f and v stay apart, and a
    // letter read as a vowel is one.
    const abjad = token.readFromAbjad === true;
    s = {
      plain: renderingSkeleton(token.text),
      looked,
      spellings,
      readBothWays: spellings.map((t) =>
        (abjad ? renderingSkeletons(t) : [renderingSkeleton(t)]).filter((k) => k.length >= SKELETON_MIN),
      ),
      strict: abjad ? undefined : spellings.map((t) => renderingSkeleton(t, true)),
    };
    tokenSkeletons.set(token, s);
  }
  return s;
}

interface TokenSkeletons {
  plain: string;
  /** How many of `spellings`, from the first, candidate selection looks up. */
  looked: number;
  spellings: string[];
  readBothWays: string[][];
  /** A rendering of an alphabet's spellings' strict skeletons (b, p, f and v apart); none for an abjad's. */
  strict: string[] | undefined;
}

function strictSkeletonOf(token: NameToken): string {
  let s = strictSkeletons.get(token);
  if (s === undefined) {
    s = renderingSkeleton(token.text, true);
    strictSkeletons.set(token, s);
  }
  return s;
}

const strictSkeletons = new WeakMap<NameToken, string>();

const OPENING_LETTER_RE = /^(?:[kstdgcz]h|[a-z])/;

/**
 * Whether two spellings open with one consonant, or both with a vowel: a digraph (kh, sh, th, dh,
 * gh, ch, zh) is a letter of its own, which an abjad writes apart ("krai", الكراي, is not KHURY);
 * single letters agree by strict skeleton class (g and j, Hebrew ג; c and k or s).
 */
function sameFirstConsonant(a: string, b: string): boolean {
  const va = /^[aeiouyhw]/.test(a);
  if (va || /^[aeiouyhw]/.test(b)) return va === /^[aeiouyhw]/.test(b);
  const la = OPENING_LETTER_RE.exec(a)?.[0] ?? '';
  const lb = OPENING_LETTER_RE.exec(b)?.[0] ?? '';
  if (la.length !== lb.length) return false;
  // A c is read with the letter after it (c before e is s: "sisik", سيسيك, is CESIC).
  return la === lb || renderingSkeleton(a.slice(0, 2), true)[0] === renderingSkeleton(b.slice(0, 2), true)[0];
}

/** Whether two spellings open alike: both with a vowel, or with consonants of one skeleton class. */
function sameOpening(a: string, b: string): boolean {
  const va = /^[aeiouyhw]/.test(a);
  const vb = /^[aeiouyhw]/.test(b);
  if (va || vb) return va === vb;
  // s and z are two letters in every alphabet ("Sichev" is not "Zaitsev").
  if (a[0] !== b[0] && /^[sz]/.test(a) && /^[sz]/.test(b)) return false;
  return renderingSkeleton(a.slice(0, 2), true) === renderingSkeleton(b.slice(0, 2), true);
}

/**
 * Baltic letters as the English spelling writes their sounds: c is ts ("Uaicaids" for
 * Whitesides), j is y ("Jakubecs" for YAKUBETS; the English j is dž, spelt out "dzh").
 */
function balticLetters(text: string): string {
  return text.replace(/c(?!h)/g, 'ts').replace(/j/g, 'y');
}

function withoutBalticEnding(text: string): string {
  const stem = text.replace(/(?:as|is|us|ys|s)$/, '');
  return stem.length >= 3 ? stem : text;
}

/** Every skeleton a rendering's spellings may stand for (none for a token that is no rendering). */
export function renderingSkeletonKeys(token: NameToken): string[] {
  if (!isRendering(token) || token.particle || token.initial) return [];
  const { spellings, readBothWays, looked } = skeletonsOf(token);
  if (token.readFromAbjad) return [...new Set(readBothWays.slice(0, looked).flat())];
  // An alphabet's rendering is mostly found by its spelling: by skeleton only from three
  // consonants. The stem of a name written with Baltic letters, its ending taken off, from two
  // ("Maiks Džonsons" for Mike Johnson: "maik" is no typo of Mike, and Johnson alone opens more
  // names than the shortlist holds). Not so a name read as Baltic by its endings alone: "Mia
  // Davis" would meet every listed name with a d and a v.
  const stemmed = token.balticLetters === true && token.text.endsWith('s');
  const keys = new Set<string>();
  for (let k = 0; k < looked; k++) {
    const short = stemmed && !spellings[k].endsWith('s');
    for (const key of readBothWays[k]) if (short || key.length >= FIRM_SKELETON) keys.add(key);
  }
  return [...keys];
}

const tokenSkeletons = new WeakMap<NameToken, TokenSkeletons>();

/** Whether a reading of `token` in another Latin alphabet is `other` as a rendering spells it. */
function rendersAs(token: NameToken, other: NameToken): boolean {
  if (token.readings.length === 0) return false;
  const text = foldsOf(other).text;
  const baltic = token.respelt === true && !token.transliterated;
  for (const r of foldsOf(token).readings)
    if (sameFold(r, text) && !(baltic && stemShortOfVowel(r, other.text))) return true;
  return false;
}

/**
 * Whether a Baltic respelling's stem ends in a consonant where the listed name ends in a sounded
 * vowel: the respelling writes that vowel ("Lusi" for Lucy), so "Martins" is not MARTINA. (An
 * English final e is silent: "Džordžs" is George.)
 */
function stemShortOfVowel(stem: string, listed: string): boolean {
  return /[^aeiouy]$/.test(stem) && /[aiou]$/.test(listed);
}

const VOWEL_GROUPS_RE = /[aeiouy]+/g;

/**
 * Whether a Baltic respelling writes fewer syllables (vowel groups) than the listed name has, its
 * silent final e and the e of a final -er aside: the respelling writes every vowel it hears
 * ("Makbraids" for McBride, "Lataimrs" for Latimer), so "Martins" is not MURADIAN.
 */
function fewerVowels(spelling: string, listed: string): boolean {
  const groups = (t: string) => t.match(VOWEL_GROUPS_RE)?.length ?? 0;
  return groups(spelling) < groups(renderingFold(listed).replace(/(?<=[^aeiouy])er$/, 'r'));
}

/**
 * A token's text and readings folded as renderings spell them, worked out once per token: listed
 * tokens are compared with query after query.
 */
function foldsOf(token: NameToken): { text: string; readings: string[] } {
  let folds = tokenFolds.get(token);
  if (folds === undefined) {
    folds = { text: renderingFold(token.text), readings: token.readings.map(renderingFold) };
    tokenFolds.set(token, folds);
  }
  return folds;
}

const tokenFolds = new WeakMap<NameToken, { text: string; readings: string[] }>();

/** Slavic surnames' masculine endings, to which the feminine form adds "a" ("Putin" / "Putina"). */
const SLAVIC_MASCULINE_SURNAME_RE = /(?:ov|ev|yov|in|yn)$/;
/** Slavic adjectival surnames, masculine and feminine ("Tolstoy" / "Tolstaya", "Kowalski" / "Kowalska"). */
const SLAVIC_ADJECTIVAL_RE = /(?:skiy|skii|sky|ski|skij|tskiy|tsky|oy|iy|yy)$/;
const SLAVIC_ADJECTIVAL_FEMININE_RE = /(?:skaya|skaia|skaja|ska|tskaya|aya|aia|aja)$/;
/** Russian given names' masculine ending and the feminine one on the same stem ("Evgeniy" / "Evgeniya"). */
const MASCULINE_GIVEN_RE = /(?:iy|ii|ij|y)$/;
const FEMININE_GIVEN_RE = /(?:iya|iia|ija|ia|ya)$/;
/** Shortest stem on which the given-name endings are read as gender ("Ali" / "Alia" are not). */
const GENDER_STEM_MIN = 4;

/**
 * Whether two names are the feminine and masculine forms of one Slavic name: a surname in -ov,
 * -ev or -in and the same with "a", an adjectival surname in -skiy and -skaya, or a given name in
 * -iy and -iya on the same stem.
 */
function slavicGenderPair(a: string, b: string): boolean {
  if (a.length === b.length || !shareStem(a, b, GENDER_STEM_MIN - 1)) return false;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  if (long === `${short}a` && short.length >= GENDER_STEM_MIN && SLAVIC_MASCULINE_SURNAME_RE.test(short))
    return true;
  const masculine = SLAVIC_ADJECTIVAL_RE.exec(a) ?? SLAVIC_ADJECTIVAL_RE.exec(b);
  const feminine = SLAVIC_ADJECTIVAL_FEMININE_RE.exec(a) ?? SLAVIC_ADJECTIVAL_FEMININE_RE.exec(b);
  if (masculine && feminine) {
    const m = masculine.input.slice(0, masculine.index);
    const f = feminine.input.slice(0, feminine.index);
    if (m === f && m.length >= GENDER_STEM_MIN - 1 && masculine.input !== feminine.input) return true;
  }
  const mg = MASCULINE_GIVEN_RE.exec(a) ?? MASCULINE_GIVEN_RE.exec(b);
  const fg = FEMININE_GIVEN_RE.exec(a) ?? FEMININE_GIVEN_RE.exec(b);
  if (mg && fg && mg.input !== fg.input) {
    const m = mg.input.slice(0, mg.index);
    const f = fg.input.slice(0, fg.index);
    return m === f && m.length >= GENDER_STEM_MIN;
  }
  return false;
}

/**
 * Whether `a` and `b` start with the same `length` letters: each pair of forms above is one stem
 * with two endings, so most pairs are ruled out here, before any pattern is tried.
 */
function shareStem(a: string, b: string, length: number): boolean {
  if (a.length < length || b.length < length) return false;
  for (let k = 0; k < length; k++) if (a.charCodeAt(k) !== b.charCodeAt(k)) return false;
  return true;
}

/**
 * Whether one token is a patronymic and the other a surname on its stem ("Ivanovich" /
 * "Ivanov", "Aleksandrovna" / "Aleksandrova"): a father's name and a family name.
 */
function surnameAndPatronymic(a: NameToken, b: NameToken): boolean {
  if (!shareStem(a.text, b.text, GENDER_STEM_MIN)) return false;
  const aP = isPatronymic(a);
  if (aP === isPatronymic(b)) return false;
  const [patronymic, other] = aP ? [a.text, b.text] : [b.text, a.text];
  const stem = other.endsWith('a') ? other.slice(0, -1) : other;
  return /[oe]v$/.test(stem) && stem.length >= GENDER_STEM_MIN && patronymic.startsWith(stem);
}

/** Patronymics and Turkic "son of" suffixes carry little identifying weight. */
export function isPatronymic(token: NameToken): boolean {
  return token.text.length > 6 && PATRONYMIC_RE.test(token.text);
}

/**
 * Whether a reading of `token` in another Latin alphabet is `text`, also with a Baltic ending on
 * either side ("Jurijs" / "Yuriy").
 */
function readsAs(token: NameToken, text: string): boolean {
  const readings = token.readings;
  for (let k = 0; k < readings.length; k++) {
    const r = readings[k];
    if (r === text || hasInflectedEnding(r, text) || hasInflectedEnding(text, r)) return true;
  }
  return false;
}

function hasInflectedEnding(long: string, stem: string): boolean {
  if (stem.length < 4 || long.length <= stem.length || !long.startsWith(stem)) return false;
  return BALTIC_ENDINGS.includes(long.slice(stem.length));
}

/** The token's syllable key, worked out once per token (`NameToken.sinitic`). */
function siniticOf(token: NameToken): string {
  if (token.sinitic === undefined) token.sinitic = siniticKey(token.text);
  return token.sinitic;
}
