/**
 * Scoring of one query name against one listed name, on the alignment of their tokens
 * (alignment.ts). Each token is weighed by rarity so a shared common token ("Mohammed", "John")
 * carries little evidence. A query part facing an unexplained listed part is a conflict (a
 * different given name, patronymic or father's name) and keeps the pair below the alert
 * threshold; a part present on one side only is an omission and costs a fraction of its weight.
 * Arabic name structure is respected: "Abd al-X" names are compared on X, and the person's own
 * name before "bin" is not confused with the father's name after it.
 */

import { alignment, alignTokens } from './alignment.ts';
import { COMMON_GIVEN_NAMES } from './name-variants.ts';
import { type NameToken, tokeniseName } from './normalise.ts';
import { MATCH_FLOOR } from './risk.ts';
import { editDistance } from './string-similarity.ts';
import {
  ABD_PREFIX,
  alignableSimilarity,
  isPatronymic,
  renderedAlike,
  rendersAlike,
  skeletonOnly,
} from './token-similarity.ts';
import {
  COMMON_GIVEN_WEIGHT,
  INITIAL_WEIGHT,
  PARTICLE_WEIGHT,
  PATRONYMIC_WEIGHT,
  UNSEEN_TOKEN_WEIGHT,
} from './weights.ts';

/** Weight of the "Abd al-" part left unexplained when "Abdul X" aligns with a bare "X". */
const ABD_PART_WEIGHT = 0.5;
/**
 * Similarity of a bare "Abd al-" (the query's "Abdul Shahlai") to a listed Abd-name ("Abdul Reza
 * SHAHLAI"): the name cut short to its first element, as an initial is to a name.
 */
const ABD_CUT_SHORT_PAIR = 0.9;
/** Particles introducing the father's name in an Arabic name chain. */
const NASAB: ReadonlySet<string> = new Set(['bin', 'ibn', 'ben', 'bint', 'binti', 'bte']);
/** Above this a token pair counts at face value; below, it is discounted steeply. */
const CLEAN_PAIR = 0.92;
/** How steeply: each point of similarity below `CLEAN_PAIR` costs this many more. */
const UNCLEAN_DISCOUNT = 0.8;
/** Share of its weight an extra listed token (middle name, patronymic) costs. */
const LIST_EXTRA_COST = 0.2;
/** Share of its weight an unmatched query token costs when the listed name has parts left over too. */
const CONFLICT_COST = 1;
/** Share of its weight an unmatched query token costs when every listed part is accounted for. */
const QUERY_EXTRA_COST = 0.35;
/** Score ceiling of names with a conflicting part: below the alert threshold. */
const CONFLICT_CAP = 0.66;
/** At most this score when only one name part is shared by names with more parts. */
const SINGLE_PART_CAP = 0.72;
/** At most this score when one name part and only initials are shared. */
const INITIALS_CAP = 0.85;
/** At most this score when no name part (only particles or initials) is shared. */
const NO_PART_CAP = 0.5;
/**
 * At most this score (the weak band: an alert only with an agreeing date of birth) when half or
 * more of the aligned name parts agree only loosely across scripts: a consonant skeleton or sound
 * key shared by a rendering of another script and a listed spelling more than a typo apart
 * ("khulud" / "Khaled", "hmuda" / "Hammad"). Such agreement is common between unrelated names; it
 * needs more parts that agree in spelling (exactly, as a known variant or within a typo) than
 * parts that agree loosely to count as a name match.
 */
export const LOOSE_ONLY_CAP = 0.78;
/**
 * At most this score (the partial band) when the two name parts of the query face the listed
 * parts in reversed order and one of them is only near ("Lucas Franco" / "Frank Lucas"): a
 * customer may write a name surname first, and may misspell it, but the two together are too
 * weak for a strong match.
 */
const CROSSED_NEAR_CAP = 0.89;
/**
 * At least this score (the partial band) when a two-part query is the listed name's first and last
 * parts spelt alike, its middle left out ("Talib ISMAIL" for "ISMAIL, Talib Husayn Ali Jarak"):
 * the middle parts of a long name cost a fraction each, but together they must not sink a name
 * whose first name and surname both agree.
 */
const FIRST_AND_LAST_FLOOR = 0.8;
/**
 * ...when one of the two parts is not common (rarity weight at least this): two common parts
 * ("Mohamed Abbas") are many people's first and last names.
 */
const FIRST_AND_LAST_RARITY = 0.7;
/** Matched weight below which the evidence is too thin for a confident score... */
const EVIDENCE_MIN = 0.6;
/** ...and the factor applied with no evidence at all (rising linearly to 1 at `EVIDENCE_MIN`). */
const NO_EVIDENCE_FACTOR = 0.75;

/**
 * Pairwise alert threshold of `compareNames`: a pair scoring at or above it is a name match
 * worth an analyst's attention. Chosen on the dev half of the name benchmark's Person pairs
 * (eval/run.ts, `EVAL_VERBOSE=1` prints the sweep); it is the matcher's reporting floor, so every
 * pair that alerts here is shown as a match.
 */
export const NAME_ALERT_THRESHOLD = MATCH_FLOOR;

/** Weight of a token: how much evidence sharing it carries. */
export type TokenWeigher = (token: NameToken) => number;

/** Rarity model used when no list index is at hand: common given names weigh half. */
export const defaultWeigher: TokenWeigher = (token) => {
  if (token.particle) return PARTICLE_WEIGHT;
  if (token.initial) return INITIAL_WEIGHT;
  if (isPatronymic(token)) return PATRONYMIC_WEIGHT;
  if (COMMON_GIVEN_NAMES.has(token.text)) return COMMON_GIVEN_WEIGHT;
  for (const k of token.variantKeys) if (COMMON_GIVEN_NAMES.has(k)) return COMMON_GIVEN_WEIGHT;
  return UNSEEN_TOKEN_WEIGHT;
};

export interface AlignedPair {
  query: string;
  listed: string;
  similarity: number;
}

export interface NameScore {
  /** 0..1 */
  score: number;
  /** Aligned token pairs, best first. */
  pairs: AlignedPair[];
  /** Query tokens (not particles) with no counterpart on the listed name. */
  unmatchedQuery: string[];
  /** Listed tokens (not particles) with no counterpart in the query. */
  unmatchedListed: string[];
  /**
   * Rarity weight of the rarest aligned pair of name parts (not particles or initials; a pair
   * weighs as its commoner side), 0 when none: a name whose aligned parts are all common (a
   * frequent given and family name) may be many people.
   */
  rarestMatched: number;
}

function contribution(s: number): number {
  return s >= CLEAN_PAIR ? s : Math.max(0, s - (CLEAN_PAIR - s) * UNCLEAN_DISCOUNT);
}

const bySimilarity = (x: AlignedPair, y: AlignedPair): number => y.similarity - x.similarity;

function inDescendingSimilarity(pairs: readonly AlignedPair[]): boolean {
  for (let k = 1; k < pairs.length; k++) if (pairs[k].similarity > pairs[k - 1].similarity) return false;
  return true;
}

/**
 * Removes the first of `count` weights equal to `value` (the last one when none is, as
 * `splice(indexOf(value), 1)` does); returns the new count.
 */
function removeWeight(list: Float64Array, count: number, value: number): number {
  if (count === 0) return 0;
  let at = count - 1;
  for (let k = 0; k < count; k++) {
    if (list[k] === value) {
      at = k;
      break;
    }
  }
  list.copyWithin(at, at + 1, count);
  return count - 1;
}

/** Weights of the parts left unaligned, per side (scratch reused across calls). */
let leftQuery = new Float64Array(64);
let leftListed = new Float64Array(64);

/** Sorts the first `count` weights in descending order (stable, as `Array.prototype.sort`). */
function sortDescending(list: Float64Array, count: number): void {
  for (let k = 1; k < count; k++) {
    const v = list[k];
    let x = k;
    while (x > 0 && list[x - 1] < v) {
      list[x] = list[x - 1];
      x--;
    }
    list[x] = v;
  }
}

/**
 * Scores a tokenised query against a tokenised listed name. `similarity(i, j)` may be supplied to
 * memoise token comparisons across many listed names sharing tokens; only its values from
 * `ALIGNABLE` up are used, so it may return `alignableSimilarity`. `listedName(token)`: whether
 * some list carries the query token as a name part (an Abd-name no list carries may be one cut
 * short; with no lists at hand every token counts as carried). The callbacks must not call
 * `scoreTokens`.
 */
export function scoreTokens(
  query: readonly NameToken[],
  listed: readonly NameToken[],
  weigh: TokenWeigher = defaultWeigher,
  similarity: (i: number, j: number) => number = (i, j) => alignableSimilarity(query[i], listed[j]),
  listedName: (token: NameToken) => boolean = () => true,
): NameScore {
  const nq = query.length;
  const nl = listed.length;
  if (nq === 0 || nl === 0)
    return { score: 0, pairs: [], unmatchedQuery: [], unmatchedListed: [], rarestMatched: 0 };
  alignTokens(query, listed, similarity);
  const { q: chosenQ, q2: chosenQ2, l: chosenL, l2: chosenL2, s: chosenS, usedQ, usedL } = alignment;
  const chosenCount = alignment.count;
  if (leftQuery.length < nq + nl) {
    leftQuery = new Float64Array(2 * (nq + nl));
    leftListed = new Float64Array(2 * (nq + nl));
  }

  let num = 0;
  let den = 0;
  let evidence = 0;
  let matchedParts = 0;
  let matchedInitials = 0;
  let rarestMatched = 0;
  // Arrays of their final length: growing one by `push` from empty reserves 16 slots, and a screen
  // scores dozens of names (allocation is what sets the young-generation collections' pace).
  const pairs = new Array<AlignedPair>(chosenCount);
  let abdShortForms = 0;
  let abdOnQuery = 0;
  // Whether a query Abd-name that no list carries as a name ("abdulshahlai": "Abdul" before a
  // surname, not a given name such as "Abdulkarim") aligned with a bare listed part ("SHAHLAI").
  let abdCutShort = false;
  let looseParts = 0;
  let firmParts = 0;
  // Parts that agree only as one name rendered (`rendersAlike`): firm when the query has no part
  // the listed name lacks, loose otherwise; those of two consonants firm only beside a firm part.
  let renderedParts = 0;
  let shortRenderedParts = 0;
  for (let c = 0; c < chosenCount; c++) {
    const q = chosenQ[c];
    const q2 = chosenQ2[c];
    const l = chosenL[c];
    const l2 = chosenL2[c];
    const s = chosenS[c];
    if (q2 < 0 && l2 < 0) {
      const qAbd = query[q].text.startsWith(ABD_PREFIX);
      if (qAbd !== listed[l].text.startsWith(ABD_PREFIX)) {
        abdShortForms++;
        if (qAbd) abdOnQuery++;
        if (qAbd && !listedName(query[q])) abdCutShort = true;
      }
    }
    let wq = 0;
    let wl = 0;
    wq += weigh(query[q]);
    if (q2 >= 0) wq += weigh(query[q2]);
    wl += weigh(listed[l]);
    if (l2 >= 0) wl += weigh(listed[l2]);
    const initialPair =
      query[q].initial ||
      (q2 >= 0 && query[q2].initial) ||
      listed[l].initial ||
      (l2 >= 0 && listed[l2].initial);
    const particlePair = query[q].particle && (q2 < 0 || query[q2].particle);
    const w = initialPair ? INITIAL_WEIGHT : (wq + wl) / 2;
    num += w * contribution(s);
    den += w;
    if (!particlePair && !initialPair) {
      // A pair is as telling as its commoner side: "John" aligned with a rarer "Jack" is common.
      const rarity = wq < wl ? wq : wl;
      if (rarity > rarestMatched) rarestMatched = rarity;
      evidence += w * contribution(s);
      matchedParts += q2 >= 0 || l2 >= 0 ? 2 : 1;
      const agreement = q2 < 0 && l2 < 0 ? acrossScripts(query[q], listed[l]) : 'firm';
      if (agreement === 'loose') looseParts++;
      else if (agreement === 'rendered') renderedParts++;
      else if (agreement === 'short') shortRenderedParts++;
      else firmParts++;
    }
    if (initialPair) matchedInitials++;
    pairs[c] = {
      query: q2 >= 0 ? query[q].text + query[q2].text : query[q].text,
      listed: l2 >= 0 ? `${listed[l].text} ${listed[l2].text}` : listed[l].text,
      similarity: s,
    };
  }
  // A Vietnamese query's "Lê" or "Văn" facing a listed "Le" or "Van" read as a particle: there it
  // is a name too, and one the query does not share is a conflict like any other.
  const listedParticles = !query[0].readFromVietnamese;
  const unmatchedQuery = new Array<string>(unalignedParts(query, usedQ, true));
  const unmatchedListed = new Array<string>(unalignedParts(listed, usedL, listedParticles));
  let queryParts = 0;
  let listedParts = 0;
  let leftQueryCount = 0;
  let leftListedCount = 0;
  for (let j = 0; j < nl; j++) {
    if (listed[j].particle && listedParticles) continue;
    listedParts++;
    if (usedL[j]) continue;
    unmatchedListed[leftListedCount] = listed[j].text;
    leftListed[leftListedCount++] = weigh(listed[j]);
  }
  for (let i = 0; i < nq; i++) {
    if (query[i].particle) continue;
    queryParts++;
    if (usedQ[i]) continue;
    unmatchedQuery[leftQueryCount] = query[i].text;
    leftQuery[leftQueryCount++] = weigh(query[i]);
  }
  // A query part facing an unexplained listed part is a conflict ("Barack" vs "Michelle", a
  // different father's name in an Arabic name chain, a different patronymic): the two names
  // assert different things about the same slot, which is evidence of a different person and
  // costs both parts in full. Parts left over on one side only are omissions: a middle name or
  // patronymic the customer left out costs little, a name part the list lacks a little more.
  // "Abdul Hanif" aligned with a bare "Hanif" leaves the "Abd al-" part unexplained: harmless on
  // its own, a conflict when the other name has a part of its own in that place.
  for (let k = 0; k < abdShortForms; k++) {
    const onQuery = k < abdOnQuery;
    // ... unless the other side wrote the prefix apart and misspelt ("Adbul Bari" / "Abdulbari").
    const other = onQuery ? listed : query;
    const used = onQuery ? usedL : usedQ;
    let fragment = -1;
    for (let x = 0; x < other.length; x++) {
      if (!used[x] && !other[x].particle && isAbdFragment(other[x].text)) {
        fragment = x;
        break;
      }
    }
    // ... or the query's "Abdul X", no name on any list, with X a listed part, is a listed
    // Abd-name cut short: "Abdul Shahlai" for "Abdul Reza SHAHLAI" stands as "A. Shahlai" does.
    const cutShort = onQuery && fragment < 0 && abdCutShort ? unusedAbdName(listed, usedL) : -1;
    if (fragment >= 0) {
      used[fragment] = 1;
      if (onQuery) leftListedCount = removeWeight(leftListed, leftListedCount, weigh(other[fragment]));
      else leftQueryCount = removeWeight(leftQuery, leftQueryCount, weigh(other[fragment]));
      const unmatched = onQuery ? unmatchedListed : unmatchedQuery;
      unmatched.splice(unmatched.indexOf(other[fragment].text), 1);
    } else if (cutShort >= 0) {
      usedL[cutShort] = 1;
      leftListedCount = removeWeight(leftListed, leftListedCount, weigh(listed[cutShort]));
      unmatchedListed.splice(unmatchedListed.indexOf(listed[cutShort].text), 1);
      num += INITIAL_WEIGHT * contribution(ABD_CUT_SHORT_PAIR);
      den += INITIAL_WEIGHT;
      matchedInitials++;
      pairs.push({ query: ABD_PREFIX, listed: listed[cutShort].text, similarity: ABD_CUT_SHORT_PAIR });
      abdCutShort = false;
    } else if (onQuery) leftQuery[leftQueryCount++] = ABD_PART_WEIGHT;
    else leftListed[leftListedCount++] = ABD_PART_WEIGHT;
  }
  sortDescending(leftQuery, leftQueryCount);
  sortDescending(leftListed, leftListedCount);
  const conflicts = Math.min(leftQueryCount, leftListedCount);
  for (let k = 0; k < leftQueryCount; k++)
    den += leftQuery[k] * (k < conflicts ? CONFLICT_COST : QUERY_EXTRA_COST);
  for (let k = 0; k < leftListedCount; k++)
    den += leftListed[k] * (k < conflicts ? CONFLICT_COST : LIST_EXTRA_COST);
  let score = den > 0 ? num / den : 0;
  if (
    leftQueryCount === 0 &&
    queryParts === 2 &&
    rarestMatched >= FIRST_AND_LAST_RARITY &&
    firstAndLast(query, listed, listedParts)
  )
    score = Math.max(score, FIRST_AND_LAST_FLOOR);
  if (conflicts > 0 || lineageCrossed(query, listed)) score = Math.min(score, CONFLICT_CAP);
  // One shared name part between fuller names is a lead, never a strong match on its own; with
  // agreeing initials ("V. V. Putin") it is a partial match at most.
  if (matchedParts <= 1 && Math.max(queryParts, listedParts) >= 2) {
    score = Math.min(score, matchedInitials > 0 && matchedParts === 1 ? INITIALS_CAP : SINGLE_PART_CAP);
  }
  if (matchedParts === 0) score = Math.min(score, NO_PART_CAP);
  // A rendering of the whole name whose every part has the listed consonants and vowels among the
  // listed ones is the name written in another script; with parts of its own left over, the parts
  // that agree only so are as loose as any skeleton agreement.
  if (leftQueryCount === 0) firmParts += renderedParts;
  else looseParts += renderedParts;
  if (leftQueryCount === 0 && firmParts > 0) firmParts += shortRenderedParts;
  else looseParts += shortRenderedParts;
  if (looseParts > 0 && looseParts >= firmParts) score = Math.min(score, LOOSE_ONLY_CAP);
  // Read back from another script, a part only near its listed counterpart is a guess at the
  // spelling: with the order crossed too, the name is a lead, not a match.
  if (queryParts === 2 && crossedWithNearPart(query, listed))
    score = Math.min(score, query[0].transliterated ? LOOSE_ONLY_CAP : CROSSED_NEAR_CAP);
  if (evidence < EVIDENCE_MIN)
    score *= NO_EVIDENCE_FACTOR + ((1 - NO_EVIDENCE_FACTOR) * evidence) / EVIDENCE_MIN;
  // Usually in order already (the alignment picks pairs best first), and a sort copies the array.
  if (!inDescendingSimilarity(pairs)) pairs.sort(bySimilarity);
  return { score: Math.min(1, score), pairs, unmatchedQuery, unmatchedListed, rarestMatched };
}

/**
 * How two aligned tokens agree when one is a rendering of another script (or vowel-less) or a
 * Baltic respelling: 'loose' when only by their consonants (not the same text, not one
 * name-variant group, more than a typo apart), 'rendered' or 'short' when as one name rendered
 * (`rendersAlike`: the listed consonants, the written vowels among the listed ones), else 'firm'.
 */
function acrossScripts(a: NameToken, b: NameToken): 'firm' | 'loose' | 'rendered' | 'short' {
  if (a.transliterated === b.transliterated && !a.vowelPoor && !b.vowelPoor) {
    // Two Latin spellings: loose only when a Baltic respelling agrees by its skeleton alone.
    if (!a.respelt && !b.respelt) return 'firm';
    if (!skeletonOnly(a, b)) return 'firm';
    return rendersAlike(a, b) ?? 'loose';
  }
  if (a.text === b.text) return 'firm';
  for (const k of a.variantKeys) if (b.variantKeys.includes(k)) return 'firm';
  if (a.readFromArabic || b.readFromArabic) {
    // Arabic script has no letters for v, p, e and o: f, b, i and u stand for them ("فلاديمير بوتين").
    if (editDistance(arabicSounds(a.text), arabicSounds(b.text), 2) <= 1) return 'firm';
    if (renderedAlike(a, b)) return 'firm';
    return rendersAlike(a, b) ?? 'loose';
  }
  const typos = Math.max(a.text.length, b.text.length) < 6 ? 1 : 2;
  if (editDistance(a.text, b.text, typos + 1) <= typos) return 'firm';
  if (renderedAlike(a, b)) return 'firm';
  return rendersAlike(a, b) ?? 'loose';
}

const ARABIC_SOUNDS: Record<string, string> = { v: 'f', p: 'b', e: 'i', o: 'u' };

function arabicSounds(text: string): string {
  return text.replace(/[vpeo]/g, (c) => ARABIC_SOUNDS[c]);
}

/**
 * Tokens of one side that the alignment left without a counterpart, particles aside unless
 * `particles` is false.
 */
function unalignedParts(tokens: readonly NameToken[], used: Uint8Array, particles: boolean): number {
  let n = 0;
  for (let k = 0; k < tokens.length; k++) if (!(particles && tokens[k].particle) && !used[k]) n++;
  return n;
}

/** The first listed part left unaligned that is a whole Abd-name ("abdulreza"), or -1. */
function unusedAbdName(listed: readonly NameToken[], used: Uint8Array): number {
  for (let j = 0; j < listed.length; j++)
    if (!used[j] && listed[j].text.startsWith(ABD_PREFIX) && listed[j].text.length >= ABD_PREFIX.length + 3)
      return j;
  return -1;
}

function isAbdFragment(text: string): boolean {
  return text.length >= 3 && text.length <= 6 && text[0] === 'a' && editDistance(text, ABD_PREFIX, 2) <= 2;
}

/** Index of the first nasab particle ("bin", "ibn", "bint"): the person's own name precedes it. */
function nasabIndex(tokens: readonly NameToken[]): number {
  for (let i = 1; i < tokens.length; i++) if (tokens[i].particle && NASAB.has(tokens[i].text)) return i;
  return -1;
}

/**
 * In "Ahmad bin Hasan" Ahmad is the person and Hasan his father; "Hasan bin Ahmad" is the father's
 * name order reversed, i.e. another person (plausibly the son), though every part is shared. So is
 * a query whose own name faces the listed father's while nothing of it faces the listed person's
 * own: "Ahmad bin Uthman" is the father of "Othman bin Ahmed bin Othman", not him.
 */
function lineageCrossed(query: readonly NameToken[], listed: readonly NameToken[]): boolean {
  const qn = nasabIndex(query);
  if (qn < 0) return false;
  const ln = nasabIndex(listed);
  if (ln < 0) return false;
  let ownToLineage = false;
  let lineageToOwn = false;
  let ownToOwn = false;
  // The alignment just made by `scoreTokens`.
  for (let c = 0; c < alignment.count; c++) {
    const i = alignment.q[c];
    const j = alignment.l[c];
    if (query[i].particle) continue;
    if (i < qn && j > ln) ownToLineage = true;
    if (i > qn && j < ln) lineageToOwn = true;
    if (i < qn && j < ln) ownToOwn = true;
  }
  return ownToLineage && (lineageToOwn || !ownToOwn);
}

/**
 * Whether the alignment just made pairs the query's two parts, spelt alike, with the first and the
 * last written-out parts of a listed name of three or more, in that order.
 */
function firstAndLast(
  query: readonly NameToken[],
  listed: readonly NameToken[],
  listedParts: number,
): boolean {
  if (listedParts < 3 || alignment.count < 2) return false;
  let first = -1;
  let last = -1;
  for (let j = 0; j < listed.length; j++) {
    if (listed[j].particle || listed[j].initial) continue;
    if (first < 0) first = j;
    last = j;
  }
  let pairedFirst = false;
  let pairedLast = false;
  for (let c = 0; c < alignment.count; c++) {
    if (alignment.q2[c] >= 0 || alignment.l2[c] >= 0 || alignment.s[c] < CLEAN_PAIR) continue;
    const i = alignment.q[c];
    const j = alignment.l[c];
    if (query[i].particle) continue;
    // A part the listed name repeats ("WALI RAIS PADSHA DIN PADSHA") may be paired at either place.
    if (listed[j].text === listed[first].text && i < query.length - 1) pairedFirst = true;
    if (listed[j].text === listed[last].text && i > 0) pairedLast = true;
  }
  return pairedFirst && pairedLast;
}

/**
 * Whether the alignment just made pairs exactly two name parts (not particles or initials), in
 * reversed order on the two sides, one of them not spelt alike.
 */
function crossedWithNearPart(query: readonly NameToken[], listed: readonly NameToken[]): boolean {
  let first = -1;
  let second = -1;
  for (let c = 0; c < alignment.count; c++) {
    const i = alignment.q[c];
    const j = alignment.l[c];
    if (alignment.q2[c] >= 0 || alignment.l2[c] >= 0) return false;
    if (query[i].particle || query[i].initial || listed[j].initial) continue;
    if (first < 0) first = c;
    else if (second < 0) second = c;
    else return false;
  }
  if (second < 0) return false;
  const { q, l, s } = alignment;
  const crossed = q[first] < q[second] !== l[first] < l[second];
  return crossed && (s[first] < 1 || s[second] < 1);
}

/**
 * Pairwise name similarity in 0..1 of two full names, with the built-in rarity model. A pair at
 * or above `NAME_ALERT_THRESHOLD` is treated as a name match.
 */
export function compareNames(a: string, b: string): number {
  return scoreTokens(tokeniseName(a), tokeniseName(b)).score;
}

// ---------------------------------------------------------------------------------------------
// Corroborating fields
