/**
 * Name parts spelt only near their listed counterparts that are another name, not a misspelling
 * or another spelling of it: "Malkov" for MARKOV, "Hassan" for HASSAD, "Anna" for ELENA. A typo
 * seldom lands on a name that many people bear; a namesake of another family always does. The
 * matcher's knowledge of spellings of one name (name-variant groups, the folds of transliteration
 * and of renderings of other scripts) keeps Zaytsev / Zaitsev, Mohammed / Muhammad and Aleksandr
 * / Alexander one name.
 */

import type { Scored } from './candidates.ts';
import type { NameIndex } from './name-index.ts';
import type { NameToken } from './normalise.ts';
import {
  FEMININE_SURNAME_RE,
  fatherNamesOf,
  PATRONYMIC_ENDING_RE,
  populationNames,
} from './population-names.ts';
import { editDistance, renderingFold, sameRendering } from './string-similarity.ts';
import { isPatronymic, rendersAlike, tokenSimilarity } from './token-similarity.ts';

/** Aligned at least this similar, two parts are one name (a variant, a rendering): never another. */
const ONE_NAME_PAIR = 0.95;
/** Shortest part read as a name of its own here: two letters are initials and particles' length. */
const SHORTEST_PART = 3;
/** Folded spellings this many edits apart or more are more than a typo apart (`looseSurname`). */
const BEYOND_TYPO = 3;
/** How "Abd al-X" names begin however they are spelt ("Abdul", "Abdel", "Abd"). */
const ABD = 'abd';

/**
 * A part's consonants as transliterations of one name share them: the rendering fold (c as k or s,
 * kh as h, zh as j, y as i...), g as h (Ukrainian Г: Bogdanov / Bohdanov), d as t (Turkish
 * Mahmut / Mahmud), ch and ts as s (French Rachid / Rashid), h and the vowels dropped (Mohamed /
 * Muhamad, Ahmad / Ahmed).
 */
function consonants(text: string): string {
  const kept = consonantsOf.get(text);
  if (kept !== undefined) return kept;
  // Bounded: a long-running process sees ever new spellings.
  if (consonantsOf.size >= CONSONANTS_KEPT) consonantsOf.clear();
  const worked = consonantsNow(text);
  consonantsOf.set(text, worked);
  return worked;
}

/**
 * `consonants` worked out so far: `spelledAlike` compares every spelling of one part with every
 * spelling of the other, so each is read again for each pair (five regular expressions each).
 */
const consonantsOf = new Map<string, string>();
const CONSONANTS_KEPT = 20_000;

function consonantsNow(text: string): string {
  const folded = renderingFold(text).replace(/g/g, 'h').replace(/d/g, 't').replace(/c/g, 's');
  // A leading vowel is kept as one: "Saad" is not "Asad".
  const lead = /^[aeiou]/.test(folded) ? 'a' : '';
  return lead + folded.replace(/[aeiouh]/g, '').replace(/(.)\1+/g, '$1');
}

/**
 * Share of a population from which a name part typed in Latin letters is taken for the bearer's
 * own name rather than a typo that happens to land on a rare name (1 in 2,000: "Salhi", "Hassan";
 * not "Nazef", which is 1 in 7,000 in Algeria and a letter from NAYEF).
 */
const OWN_NAME_SHARE = 5e-4;

/**
 * A folded name part's highest share of a population (the population table), a woman's Slavic
 * surname read as the man's; 0 when the table does not have it (under 1 in 10,000 everywhere).
 * A part the matcher read from another script is looked up in any romanisation (`anySpelling`):
 * the reading is the matcher's ("Найля" is "naylya"), the table's the census's ("nailya").
 */
function populationShare(text: string, anySpelling = false): number {
  const population = populationNames();
  const own = anySpelling ? population.shareOfAnySpelling(text) : population.shareOf(text);
  if (own) return own.share;
  // A patronymic is its father's given name's ("Mikhailovich": Mikhail).
  const stem = text.replace(PATRONYMIC_ENDING_RE, '');
  if (stem !== text && stem.length >= SHORTEST_PART) {
    for (const father of fatherNamesOf(stem)) {
      const found = population.shareOf(father);
      if (found) return found.share;
    }
    return 0;
  }
  if (!FEMININE_SURNAME_RE.test(text)) return 0;
  return population.shareOf(text.slice(0, -1))?.share ?? 0;
}

/** Whether two tokens are parts a name may be on its own: no particle, initial or "Abd" prefix. */
function plainParts(a: NameToken, b: NameToken): boolean {
  if (a.particle || a.initial || b.particle || b.initial) return false;
  if (a.text.length < SHORTEST_PART || b.text.length < SHORTEST_PART) return false;
  // "Abd al-X" names are compared on X, and "Abdul" alone is one cut short (token-similarity.ts).
  return !a.text.startsWith(ABD) && !b.text.startsWith(ABD);
}

/**
 * Whether a query part is spelt as its bearer spells it, so that a name it is not is another
 * name. Not so read from a script that leaves vowels out, compared by its consonants (its Latin
 * reading is a guess: "jurj" for George), nor a Baltic respelling ("Makonels") or a part with a
 * reading in another Latin alphabet ("Bacha" read as the Czech "bakha"), which may be the listed
 * name in another orthography, or a typo of it in one.
 */
function ownSpelling(query: NameToken): boolean {
  return !query.vowelPoor && !query.readFromAbjad && !query.respelt && query.readings.length === 0;
}

/** A name ending in a consonant and then "i", the Arabic and Persian nisba ("Abbasi", "Mohammadi"). */
const NISBA_RE = /[^aeiouy]i$/;
/** A name ending in a consonant. */
const CONSONANT_END_RE = /[^aeiouy]$/;

/**
 * Whether one spelling is the other with the nisba "-i" added ("Mohammed" / MOHAMMADI, "Abbas" /
 * ABBASI): a family name made from the other name, not a spelling of it.
 */
function nisbaApart(a: string, b: string): boolean {
  return (NISBA_RE.test(a) && CONSONANT_END_RE.test(b)) || (NISBA_RE.test(b) && CONSONANT_END_RE.test(a));
}

/** Whether two spellings are one name's by their consonants, or as renderings fold them. */
function spelledAlike(a: string, b: string): boolean {
  if (nisbaApart(a, b)) return false;
  if (consonants(a) === consonants(b) || sameRendering(a, b)) return true;
  // ... also with a Baltic nominative ending added ("Smits" / Smith in Latvian).
  if (a.endsWith('s') && consonants(a.slice(0, -1)) === consonants(b)) return true;
  return b.endsWith('s') && consonants(b.slice(0, -1)) === consonants(a);
}

/**
 * Whether two tokens are one name by the matcher's knowledge of its spellings: a variant group,
 * their spellings or readings in another Latin alphabet alike (`spelledAlike`), or one rendered.
 */
function spellingsOfOneName(a: NameToken, b: NameToken): boolean {
  for (const k of a.variantKeys) if (b.variantKeys.includes(k)) return true;
  for (const x of [a.text, ...a.readings])
    for (const y of [b.text, ...b.readings]) if (spelledAlike(x, y)) return true;
  // A rendering of the listed name in another script, read back ("jorj" / George).
  return rendersAlike(a, b) !== undefined;
}

/**
 * Whether the query part `query`, aligned with the listed part `listed` at `similarity`, is
 * another name: spelt only near it (not one name's variants or renderings), with other consonants,
 * and itself a name many people bear ("Malkov" / MARKOV, "Salhi" / SALTI, "Anna" / ELENA). A
 * misspelling of the listed name ("Mohanmad") is no name in the population table.
 */
export function isAnotherName(query: NameToken, listed: NameToken, similarity: number): boolean {
  if (similarity >= ONE_NAME_PAIR || !plainParts(query, listed)) return false;
  if (!ownSpelling(query)) return false;
  if (spellingsOfOneName(query, listed)) return false;
  const share = populationShare(query.text, query.transliterated);
  if (share === 0) return false;
  // Typed in Latin letters, a rare name may be a typo that landed on it ("Nazef" / NAYEF): it is
  // another name when common enough, or when both spellings are names many people bear. A part
  // read from another script (Cyrillic) was written as the customer writes it.
  return query.transliterated || share >= OWN_NAME_SHARE || populationShare(listed.text) > 0;
}

/** The query's and the listed name's tokens behind an aligned pair of single parts, if it is one. */
function tokensOf(
  index: NameIndex,
  s: Scored,
  query: string,
  listed: string,
): [NameToken, NameToken] | undefined {
  const q = s.query.tokens.find((t) => t.text === query);
  if (!q) return undefined;
  const start = index.nameTokenStart[s.nameId];
  for (let k = 0; k < index.nameLengths[s.nameId]; k++) {
    const t = index.vocab[index.nameTokenIds[start + k]];
    if (t.text === listed) return [q, t];
  }
  return undefined;
}

/**
 * Whether some aligned pair of single parts is spelt only near (below `ONE_NAME_PAIR`) and is
 * neither one name's spellings (`spellingsOfOneName`) nor the listed part with one letter
 * mistyped inside it or two swapped (`isTypo`): "Taik" / TAWFIK, "Wafa" / WAFY.
 */
export function nearBeyondSpelling(
  index: NameIndex,
  s: Scored,
  isTypo: (query: string, listed: string) => boolean,
): boolean {
  for (const p of s.name.pairs) {
    if (p.similarity >= ONE_NAME_PAIR || p.listed.includes(' ') || isTypo(p.query, p.listed)) continue;
    const tokens = tokensOf(index, s, p.query, p.listed);
    if (tokens && plainParts(tokens[0], tokens[1]) && !spellingsOfOneName(tokens[0], tokens[1])) return true;
  }
  return false;
}

/**
 * The first aligned pair whose query part is another name than its listed counterpart
 * (`isAnotherName`), as [query, listed] texts; undefined when every part is the listed one's name.
 */
export function anotherNameAligned(index: NameIndex, s: Scored): [string, string] | undefined {
  for (const p of s.name.pairs) {
    if (p.similarity >= ONE_NAME_PAIR || p.listed.includes(' ')) continue;
    const tokens = tokensOf(index, s, p.query, p.listed);
    if (tokens && isAnotherName(tokens[0], tokens[1], p.similarity)) return [p.query, p.listed];
  }
  return undefined;
}

/**
 * The listed name's surname, folded: its last plain part (no particle or initial), or its first
 * when the last is a patronymic (a Russian name written surname first without a comma,
 * "Киселёв Михаил Сергеевич"); undefined for a name of one part.
 */
function listedSurname(index: NameIndex, nameId: number): string | undefined {
  const start = index.nameTokenStart[nameId];
  const plain: NameToken[] = [];
  for (let k = 0; k < index.nameLengths[nameId]; k++) {
    const t = index.vocab[index.nameTokenIds[start + k]];
    if (!t.particle && !t.initial) plain.push(t);
  }
  if (plain.length < 2) return undefined;
  const last = plain[plain.length - 1];
  return isPatronymic(last) && !isPatronymic(plain[0]) ? plain[0].text : last.text;
}

/**
 * Whether the listed surname is aligned only loosely: with a query part spelt more than a typo
 * apart even as renderings fold their spelling choices, and not one name rendered ("Chernishev" /
 * KRASOV, whose consonants another script's skeleton comparison lets meet). The query's surname
 * is then another family's.
 */
export function looseSurname(index: NameIndex, s: Scored): boolean {
  const surname = listedSurname(index, s.nameId);
  if (surname === undefined) return false;
  for (const p of s.name.pairs) {
    if (p.listed !== surname || p.similarity >= ONE_NAME_PAIR) continue;
    const tokens = tokensOf(index, s, p.query, p.listed);
    if (!tokens) return false;
    const [q, l] = tokens;
    if (!plainParts(q, l) || !ownSpelling(q) || l.vowelPoor) return false;
    if (spellingsOfOneName(q, l)) return false;
    return editDistance(renderingFold(q.text), renderingFold(l.text), BEYOND_TYPO) >= BEYOND_TYPO;
  }
  return false;
}

/** Fathers' names at least this similar are one father's, spelt two ways (patronymicSimilarity). */
const SAME_FATHER = 0.85;

/** The Slavic patronymics of a name's tokens (-ovich, -evna...; not Turkic "son of" suffixes). */
function slavicPatronymic(t: NameToken): boolean {
  return isPatronymic(t) && PATRONYMIC_ENDING_RE.test(t.text);
}

/**
 * A patronymic the query gives, left unmatched, against the listed person's own patronymic, on
 * any of the person's names, naming another father, as [query, listed] texts: "Svetlana Karenovna
 * Savelyeva" matched on the alias "Světlana Saveljeva" of SAVELYEVA, Svetlana Vladimirovna.
 * Undefined when the person's names give no patronymic, or one the query's agrees with.
 */
export function otherFather(index: NameIndex, s: Scored): [string, string] | undefined {
  const given = s.query.tokens.filter((t) => slavicPatronymic(t) && s.name.unmatchedQuery.includes(t.text));
  if (given.length === 0) return undefined;
  // A person's names are consecutive name ids (compiled-index.ts writes them person by person).
  let first = s.nameId;
  while (first > 0 && index.namePerson[first - 1] === s.person) first--;
  let other: [string, string] | undefined;
  for (let nameId = first; nameId < index.nameCount && index.namePerson[nameId] === s.person; nameId++) {
    const start = index.nameTokenStart[nameId];
    for (let k = 0; k < index.nameLengths[nameId]; k++) {
      const listed = index.vocab[index.nameTokenIds[start + k]];
      if (!slavicPatronymic(listed)) continue;
      for (const q of given) {
        if (tokenSimilarity(q, listed) >= SAME_FATHER) return undefined;
        other ??= [q.text, listed.text];
      }
    }
  }
  return other;
}
