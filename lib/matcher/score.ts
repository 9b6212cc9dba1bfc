/**
 * Scoring of one query name against one listed name, and of the corroborating fields (date of
 * birth, nationality, location).
 *
 * Name scoring aligns tokens order-insensitively (lists and customers disagree on name order),
 * compares each aligned pair with a blend of Jaro-Winkler and edit distance under a typo budget
 * (at most two edits: three make another name), and weighs each token by rarity so a shared
 * common token ("Mohammed", "John") carries little evidence. A query part facing an unexplained
 * listed part is a conflict (a different given name, patronymic or father's name) and keeps the
 * pair below the alert threshold; a part present on one side only is an omission and costs a
 * fraction of its weight. Arabic name structure is respected: "Abd al-X" names are compared on X,
 * and the person's own name before "bin" is not confused with the father's name after it.
 */

import type { ListedDob } from '../watchlists/types.ts';
import { COMMON_GIVEN_NAMES } from './name-variants.ts';
import { makeToken, type NameToken, siniticKey, tokeniseName } from './normalise.ts';
import { editDistance, jaroWinkler } from './string-similarity.ts';
import type { FieldExplanation } from './types.ts';

/** Joined Arabic "Abd al-" prefix, as produced by normalisation. */
const ABD_PREFIX = 'abdul';
/** Similarity of "Abd al-X" to its short form "X". */
const ABD_SHORT_FORM = 0.95;
/** Weight of the "Abd al-" part left unexplained when "Abdul X" aligns with a bare "X". */
const ABD_PART_WEIGHT = 0.5;
/** Particles introducing the father's name in an Arabic name chain. */
const NASAB: ReadonlySet<string> = new Set(['bin', 'ibn', 'ben', 'bint', 'binti', 'bte']);
/** Least similarity of two tokens within the typo budget: aligned, but discounted. */
const TYPO_FLOOR = 0.8;
/** Most similarity of two same-script tokens beyond the typo budget: never aligned. */
const BEYOND_BUDGET = 0.72;
/** Token pairs below this similarity are not aligned at all. */
const ALIGN_MIN = 0.75;
/** Above this a token pair counts at face value; below, it is discounted steeply. */
const CLEAN_PAIR = 0.92;
const SINITIC_PAIR = 0.93;
/** Share of its weight an extra listed token (middle name, patronymic) costs. */
const LIST_EXTRA_COST = 0.2;
/** Share of its weight an unmatched query token costs when the listed name has parts left over too. */
const CONFLICT_COST = 1;
/** Share of its weight an unmatched query token costs when every listed part is accounted for. */
const QUERY_EXTRA_COST = 0.35;
/** Score ceiling of names with a conflicting part: below the alert threshold. */
const CONFLICT_CAP = 0.66;
/** Weight of a patronymic ("Vladimirovich"): often omitted by lists and customers alike. */
const PATRONYMIC_WEIGHT = 0.4;
const PATRONYMIC_RE =
  /(?:[oeu][vfw](?:ich|itch|itsh|itsch|itsj|itj|itx|ics|ici|ic|ych|icz|iç)|ovna|evna|ovnaa|oglu|ogly|kyzy|qizi)$/;
/** Baltic nominative endings ("Putinas", "Vladimirs") added to a stem the other side shows bare. */
const BALTIC_ENDINGS = ['s', 'as', 'is', 'us', 'ys'];
/** Weight of an initial ("V.") and of a particle ("al", "bin"). */
const INITIAL_WEIGHT = 0.35;
const PARTICLE_WEIGHT = 0.1;
/** At most this score when only one name part is shared by names with more parts. */
const SINGLE_PART_CAP = 0.72;
/** At most this score when one name part and only initials are shared. */
const INITIALS_CAP = 0.85;
/** Matched weight below which the evidence is too thin for a confident score. */
const EVIDENCE_MIN = 0.6;

/**
 * Pairwise alert threshold of `compareNames`: a pair scoring at or above it is a name match
 * worth an analyst's attention. Chosen on the dev half of the name benchmark's Person pairs
 * (eval/run.ts, `EVAL_VERBOSE=1` prints the sweep); it equals the matcher's reporting floor
 * (`MATCH_FLOOR` in risk.ts), so every pair that alerts here is shown as a match.
 */
export const NAME_ALERT_THRESHOLD = 0.7;

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

/** `cut`: see `alignableSimilarity`. */
function compareTokens(a: NameToken, b: NameToken, cut: boolean): number {
  if (a.text === b.text) return 1;
  if (a.particle || b.particle) {
    if (a.particle && b.particle) return a.phonetic === b.phonetic && a.phonetic !== '' ? 0.9 : 0.5;
    return 0;
  }
  if (a.initial || b.initial) return a.text[0] === b.text[0] ? 0.9 : 0;
  if (a.variantKeys.length > 0 && b.variantKeys.length > 0) {
    for (const k of a.variantKeys) if (b.variantKeys.includes(k)) return 0.95;
  }
  if (hasInflectedEnding(a.text, b.text) || hasInflectedEnding(b.text, a.text)) return 0.93;
  if (a.text.length > 6 && b.text.length > 6 && isPatronymic(a) && isPatronymic(b))
    return patronymicSimilarity(a, b, cut);
  const aAbd = a.text.startsWith(ABD_PREFIX) && a.text.length >= ABD_PREFIX.length + 3;
  const bAbd = b.text.startsWith(ABD_PREFIX) && b.text.length >= ABD_PREFIX.length + 3;
  if (aAbd || bAbd) return abdSimilarity(a, b, aAbd, bAbd, cut);
  // Pinyin and Wade-Giles spell one Chinese name apart ("Zedong" / "Tse-tung") by more than a typo.
  const sinitic = siniticKey(a.text);
  if (sinitic !== '' && sinitic === siniticKey(b.text))
    return Math.max(SINITIC_PAIR, spellingSimilarity(a, b, cut));
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
  if (stemA === stemB) return 0.98;
  const s = compareTokens(
    makeToken(stemA, false, a.transliterated),
    makeToken(stemB, false, b.transliterated),
    cut,
  );
  return Math.max(s, spellingSimilarity(a, b, cut));
}

/**
 * "Abd al-X" names share their first five letters whatever X is, so two of them are compared on X
 * ("Abdul Hamid" / "Abdul Ghani" differ); the bare X is a common short form of the full name
 * ("Abdul Hanif" / "Hanif") and compares almost as the same name.
 */
function abdSimilarity(a: NameToken, b: NameToken, aAbd: boolean, bAbd: boolean, cut: boolean): number {
  const stemA = aAbd ? makeToken(a.text.slice(ABD_PREFIX.length), false, a.transliterated) : a;
  const stemB = bAbd ? makeToken(b.text.slice(ABD_PREFIX.length), false, b.transliterated) : b;
  const s = stemA.text === stemB.text ? 1 : spellingSimilarity(stemA, stemB, cut);
  // A misspelt prefix ("Abudl Salam" run together) is still compared letter by letter.
  return aAbd && bAbd ? s : Math.max(s * ABD_SHORT_FORM, spellingSimilarity(a, b, cut));
}

function spellingSimilarity(a: NameToken, b: NameToken, cut: boolean): number {
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
  if (a.phonetic === b.phonetic && a.phonetic.length >= 3) {
    if (otherScript) s = Math.max(s, 0.93);
    else if (distance <= budget) s = Math.max(s, 0.86);
  } else if (otherScript && a.phonetic.length >= 2 && b.phonetic.length >= 2) {
    // Vowel-less renderings of Arabic or Hebrew script: compare the consonant skeletons.
    const sk = jaroWinkler(a.phonetic, b.phonetic);
    const skDistance = editDistance(a.phonetic, b.phonetic, 2);
    if (skDistance <= 1 && sk >= 0.85) s = Math.max(s, 0.85);
  }
  if (a.text[0] !== b.text[0] && a.phonetic[0] !== b.phonetic[0]) s *= 0.93;
  return s;
}

/** Patronymics and Turkic "son of" suffixes carry little identifying weight. */
export function isPatronymic(token: NameToken): boolean {
  return token.text.length > 6 && PATRONYMIC_RE.test(token.text);
}

function hasInflectedEnding(long: string, stem: string): boolean {
  if (stem.length < 4 || long.length <= stem.length || !long.startsWith(stem)) return false;
  return BALTIC_ENDINGS.includes(long.slice(stem.length));
}

/** Weight of a token: how much evidence sharing it carries. */
export type TokenWeigher = (token: NameToken) => number;

/** Rarity model used when no list index is at hand: common given names weigh half. */
export const defaultWeigher: TokenWeigher = (token) => {
  if (token.particle) return PARTICLE_WEIGHT;
  if (token.initial) return INITIAL_WEIGHT;
  if (isPatronymic(token)) return PATRONYMIC_WEIGHT;
  if (COMMON_GIVEN_NAMES.has(token.text)) return 0.5;
  for (const k of token.variantKeys) if (COMMON_GIVEN_NAMES.has(k)) return 0.5;
  return 1;
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
}

/**
 * Scratch state of `scoreTokens`, reused across calls (scoring is synchronous and not re-entered
 * from its callbacks), so that scoring a shortlist creates little garbage. Candidate alignments
 * are kept in parallel arrays: first and second query index, first and second listed index (-1
 * when the part is a single token) and similarity, in descending similarity, ties in the order
 * found.
 */
let scratchCapacity = 0;
let candQ = new Int32Array(0);
let candQ2 = new Int32Array(0);
let candL = new Int32Array(0);
let candL2 = new Int32Array(0);
let candS = new Float64Array(0);
let chosenQ = new Int32Array(0);
let chosenQ2 = new Int32Array(0);
let chosenL = new Int32Array(0);
let chosenL2 = new Int32Array(0);
let chosenS = new Float64Array(0);
let chosenCount = 0;
let usedQ = new Uint8Array(0);
let usedL = new Uint8Array(0);
/** Weights of the parts left unaligned, per side. */
let leftQuery = new Float64Array(0);
let leftListed = new Float64Array(0);

function ensureScratch(nq: number, nl: number): void {
  // Single-token candidates (nq·nl), merged ones (fewer than 2·nq·nl) and the chosen ones.
  const needed = 2 * nq * nl + nq + nl;
  if (needed <= scratchCapacity) return;
  const size = Math.max(64, needed * 2);
  candQ = new Int32Array(size);
  candQ2 = new Int32Array(size);
  candL = new Int32Array(size);
  candL2 = new Int32Array(size);
  candS = new Float64Array(size);
  chosenQ = new Int32Array(size);
  chosenQ2 = new Int32Array(size);
  chosenL = new Int32Array(size);
  chosenL2 = new Int32Array(size);
  chosenS = new Float64Array(size);
  usedQ = new Uint8Array(size);
  usedL = new Uint8Array(size);
  leftQuery = new Float64Array(size);
  leftListed = new Float64Array(size);
  scratchCapacity = size;
}

/**
 * Adds a candidate to the `count` already held, keeping descending similarity with ties in the
 * order added (what a stable sort by similarity gives); returns the new count.
 */
function addCandidate(count: number, q: number, q2: number, l: number, l2: number, s: number): number {
  let k = count;
  while (k > 0 && candS[k - 1] < s) {
    candQ[k] = candQ[k - 1];
    candQ2[k] = candQ2[k - 1];
    candL[k] = candL[k - 1];
    candL2[k] = candL2[k - 1];
    candS[k] = candS[k - 1];
    k--;
  }
  candQ[k] = q;
  candQ2[k] = q2;
  candL[k] = l;
  candL2[k] = l2;
  candS[k] = s;
  return count + 1;
}

/** Greedy alignment: best candidates first, each token used once. */
function assignCandidates(count: number): void {
  for (let k = 0; k < count; k++) {
    const q = candQ[k];
    const q2 = candQ2[k];
    const l = candL[k];
    const l2 = candL2[k];
    if (usedQ[q] || (q2 >= 0 && usedQ[q2]) || usedL[l] || (l2 >= 0 && usedL[l2])) continue;
    usedQ[q] = 1;
    if (q2 >= 0) usedQ[q2] = 1;
    usedL[l] = 1;
    if (l2 >= 0) usedL[l2] = 1;
    chosenQ[chosenCount] = q;
    chosenQ2[chosenCount] = q2;
    chosenL[chosenCount] = l;
    chosenL2[chosenCount] = l2;
    chosenS[chosenCount] = candS[k];
    chosenCount++;
  }
}

/**
 * Two adjacent tokens written as one, compared by spelling only (no phonetic key). One record is
 * refilled per comparison: the comparison keeps no reference to it.
 */
const joined: NameToken = {
  text: '',
  variantKeys: [],
  phonetic: '',
  particle: false,
  initial: false,
  vowelPoor: false,
  transliterated: false,
};

function joinedToken(a: NameToken, b: NameToken): NameToken {
  joined.text = a.text + b.text;
  joined.transliterated = a.transliterated;
  return joined;
}

function contribution(s: number): number {
  return s >= CLEAN_PAIR ? s : Math.max(0, s - (CLEAN_PAIR - s) * 0.8);
}

const bySimilarity = (x: AlignedPair, y: AlignedPair): number => y.similarity - x.similarity;

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
 * `ALIGNABLE` up are used, so it may return `alignableSimilarity`. The callbacks must not call
 * `scoreTokens`.
 */
export function scoreTokens(
  query: readonly NameToken[],
  listed: readonly NameToken[],
  weigh: TokenWeigher = defaultWeigher,
  similarity: (i: number, j: number) => number = (i, j) => alignableSimilarity(query[i], listed[j]),
): NameScore {
  const nq = query.length;
  const nl = listed.length;
  if (nq === 0 || nl === 0) return { score: 0, pairs: [], unmatchedQuery: [], unmatchedListed: [] };
  ensureScratch(nq, nl);
  let count = 0;
  for (let i = 0; i < nq; i++) {
    for (let j = 0; j < nl; j++) {
      const s = similarity(i, j);
      if (s >= ALIGN_MIN) count = addCandidate(count, i, -1, j, -1, s);
    }
  }
  usedQ.fill(0, 0, nq);
  usedL.fill(0, 0, nl);
  chosenCount = 0;
  assignCandidates(count);
  // Merged or split tokens ("Ramimakhlouf" / "Rami Makhlouf"), tried only on what is left over.
  if (chosenCount < Math.max(nq, nl)) {
    count = 0;
    for (let i = 0; i < nq; i++) {
      if (usedQ[i] || query[i].text.length < 5) continue;
      for (let j = 0; j + 1 < nl; j++) {
        if (usedL[j] || usedL[j + 1]) continue;
        const s = alignableSimilarity(query[i], joinedToken(listed[j], listed[j + 1]));
        if (s >= 0.88) count = addCandidate(count, i, -1, j, j + 1, s);
      }
    }
    for (let j = 0; j < nl; j++) {
      if (usedL[j] || listed[j].text.length < 5) continue;
      for (let i = 0; i + 1 < nq; i++) {
        if (usedQ[i] || usedQ[i + 1]) continue;
        const s = alignableSimilarity(joinedToken(query[i], query[i + 1]), listed[j]);
        if (s >= 0.88) count = addCandidate(count, i, i + 1, j, -1, s);
      }
    }
    assignCandidates(count);
  }

  let num = 0;
  let den = 0;
  let evidence = 0;
  let matchedParts = 0;
  let matchedInitials = 0;
  const pairs: AlignedPair[] = [];
  let abdShortForms = 0;
  let abdOnQuery = 0;
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
      evidence += w * contribution(s);
      matchedParts += q2 >= 0 || l2 >= 0 ? 2 : 1;
    }
    if (initialPair) matchedInitials++;
    pairs.push({
      query: q2 >= 0 ? query[q].text + query[q2].text : query[q].text,
      listed: l2 >= 0 ? `${listed[l].text} ${listed[l2].text}` : listed[l].text,
      similarity: s,
    });
  }
  const unmatchedQuery: string[] = [];
  const unmatchedListed: string[] = [];
  let queryParts = 0;
  let listedParts = 0;
  let leftQueryCount = 0;
  let leftListedCount = 0;
  for (let j = 0; j < nl; j++) {
    if (listed[j].particle) continue;
    listedParts++;
    if (usedL[j]) continue;
    leftListed[leftListedCount++] = weigh(listed[j]);
    unmatchedListed.push(listed[j].text);
  }
  for (let i = 0; i < nq; i++) {
    if (query[i].particle) continue;
    queryParts++;
    if (usedQ[i]) continue;
    leftQuery[leftQueryCount++] = weigh(query[i]);
    unmatchedQuery.push(query[i].text);
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
    if (fragment >= 0) {
      used[fragment] = 1;
      if (onQuery) leftListedCount = removeWeight(leftListed, leftListedCount, weigh(other[fragment]));
      else leftQueryCount = removeWeight(leftQuery, leftQueryCount, weigh(other[fragment]));
      const unmatched = onQuery ? unmatchedListed : unmatchedQuery;
      unmatched.splice(unmatched.indexOf(other[fragment].text), 1);
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
  if (conflicts > 0 || lineageCrossed(query, listed)) score = Math.min(score, CONFLICT_CAP);
  // One shared name part between fuller names is a lead, never a strong match on its own; with
  // agreeing initials ("V. V. Putin") it is a partial match at most.
  if (matchedParts <= 1 && Math.max(queryParts, listedParts) >= 2) {
    score = Math.min(score, matchedInitials > 0 && matchedParts === 1 ? INITIALS_CAP : SINGLE_PART_CAP);
  }
  if (matchedParts === 0) score = Math.min(score, 0.5);
  if (evidence < EVIDENCE_MIN) score *= 0.75 + (0.25 * evidence) / EVIDENCE_MIN;
  pairs.sort(bySimilarity);
  return { score: Math.min(1, score), pairs, unmatchedQuery, unmatchedListed };
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
 * name order reversed, i.e. another person (plausibly the son), though every part is shared.
 */
function lineageCrossed(query: readonly NameToken[], listed: readonly NameToken[]): boolean {
  const qn = nasabIndex(query);
  if (qn < 0) return false;
  const ln = nasabIndex(listed);
  if (ln < 0) return false;
  let ownToLineage = false;
  let lineageToOwn = false;
  // The alignment just made by `scoreTokens`.
  for (let c = 0; c < chosenCount; c++) {
    const i = chosenQ[c];
    const j = chosenL[c];
    if (query[i].particle) continue;
    if (i < qn && j > ln) ownToLineage = true;
    if (i > qn && j < ln) lineageToOwn = true;
  }
  return ownToLineage && lineageToOwn;
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

interface QueryDate {
  year: number;
  month?: number;
  day?: number;
}

/** Parses `YYYY-MM-DD`, `YYYY-MM` or `YYYY`; anything else is treated as no date. */
export function parseQueryDob(text: string | undefined): QueryDate | undefined {
  if (!text) return undefined;
  const m = /^\s*(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?\s*$/.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = m[2] ? Number(m[2]) : undefined;
  const day = m[3] ? Number(m[3]) : undefined;
  if (month !== undefined && (month < 1 || month > 12)) return { year };
  return { year, month, day };
}

export function formatListedDob(dob: ListedDob): string {
  switch (dob.kind) {
    case 'date':
      return dob.date;
    case 'month':
      return `${dob.year}-${String(dob.month).padStart(2, '0')}`;
    case 'year':
      return String(dob.year);
    case 'range':
      return `${dob.from}–${dob.to}`;
  }
}

type DobVerdict = 'matched' | 'near' | 'mismatched';

function compareOneDob(q: QueryDate, dob: ListedDob): DobVerdict {
  const near = (a: number, b: number) => Math.abs(a - b) <= 1;
  switch (dob.kind) {
    case 'range':
      if (q.year >= dob.from && q.year <= dob.to) return 'matched';
      return q.year >= dob.from - 1 && q.year <= dob.to + 1 ? 'near' : 'mismatched';
    case 'year':
      if (q.year === dob.year) return 'matched';
      return near(q.year, dob.year) ? 'near' : 'mismatched';
    case 'month': {
      if (q.month === undefined)
        return q.year === dob.year ? 'matched' : near(q.year, dob.year) ? 'near' : 'mismatched';
      if (q.year === dob.year && q.month === dob.month) return 'matched';
      const offByOne =
        (q.year === dob.year && near(q.month, dob.month)) ||
        (q.month === dob.month && near(q.year, dob.year));
      return offByOne ? 'near' : 'mismatched';
    }
    case 'date': {
      const [y, m, d] = dob.date.split('-').map(Number);
      if (q.month === undefined) return q.year === y ? 'matched' : near(q.year, y) ? 'near' : 'mismatched';
      if (q.day === undefined) {
        if (q.year === y && q.month === m) return 'matched';
        return (q.year === y && near(q.month, m)) || (q.month === m && near(q.year, y))
          ? 'near'
          : 'mismatched';
      }
      if (q.year === y && q.month === m && q.day === d) return 'matched';
      // A typo in one component, or day and month swapped (US vs European order), is "near":
      // the same person is likely, and treating it as a contradiction would hide real hits.
      const sameYear = q.year === y;
      const sameMonth = q.month === m;
      const sameDay = q.day === d;
      if (sameYear && sameMonth && near(q.day, d)) return 'near';
      if (sameYear && sameDay && near(q.month, m)) return 'near';
      if (sameMonth && sameDay && near(q.year, y)) return 'near';
      if (sameYear && q.month === d && q.day === m) return 'near';
      return 'mismatched';
    }
  }
}

/** Compares the subject's date of birth with every date the list gives; the best verdict wins. */
export function compareDob(query: string | undefined, listed: readonly ListedDob[]): FieldExplanation {
  const q = parseQueryDob(query);
  if (!q) return { status: 'unknown', detail: 'no date of birth given for the subject' };
  if (listed.length === 0) return { status: 'unknown', detail: 'the list gives no date of birth' };
  let best: DobVerdict = 'mismatched';
  let bestDob = listed[0];
  for (const dob of listed) {
    const v = compareOneDob(q, dob);
    if (v === 'matched' || (v === 'near' && best === 'mismatched')) {
      best = v;
      bestDob = dob;
      if (v === 'matched') break;
    }
  }
  const shown = formatListedDob(bestDob);
  const precision =
    bestDob.kind === 'date'
      ? ''
      : bestDob.kind === 'range'
        ? ' (the list gives a range of years)'
        : ' (the list gives a partial date)';
  if (best === 'matched')
    return { status: 'matched', detail: `date of birth matches the listed ${shown}${precision}` };
  if (best === 'near')
    return { status: 'near', detail: `date of birth is one day, month or year from the listed ${shown}` };
  const all = listed.map(formatListedDob).join(', ');
  return { status: 'mismatched', detail: `date of birth differs from the listed ${all}` };
}

/**
 * Compares a normalised country (from nationality text) with the listed countries (normalised
 * the same way). `label` names the field in the detail text.
 */
export function compareCountry(
  query: string | undefined,
  queryCountry: string | undefined,
  listed: readonly string[],
  label: string,
): FieldExplanation {
  if (!query || query.trim() === '')
    return { status: 'unknown', detail: `no ${label} given for the subject` };
  if (listed.length === 0) return { status: 'unknown', detail: `the list gives no ${label}` };
  if (queryCountry === undefined)
    return { status: 'unknown', detail: `${label} "${query}" names no known country` };
  if (listed.includes(queryCountry))
    return { status: 'matched', detail: `${label} ${queryCountry} matches the list` };
  return {
    status: 'mismatched',
    detail: `${label} ${queryCountry} differs from the listed ${listed.join(', ')}`,
  };
}

/**
 * Compares a city or country of the subject with the listed places (addresses, places of birth).
 * A country is compared by canonical name; a city by its words appearing in a listed place.
 */
export function compareLocation(
  query: string | undefined,
  queryCountry: string | undefined,
  listedPlaces: readonly string[],
  listedCountries: readonly string[],
): FieldExplanation {
  if (!query || query.trim() === '')
    return { status: 'unknown', detail: 'no location given for the subject' };
  if (listedPlaces.length === 0) return { status: 'unknown', detail: 'the list gives no location' };
  if (queryCountry !== undefined) {
    if (listedCountries.includes(queryCountry))
      return { status: 'matched', detail: `location ${queryCountry} appears on the list` };
    return { status: 'mismatched', detail: `location ${queryCountry} is not among the listed places` };
  }
  const words = tokeniseName(query).map((t) => t.text);
  if (words.length === 0) return { status: 'unknown', detail: 'location not comparable' };
  for (const place of listedPlaces) {
    const placeWords = new Set(tokeniseName(place).map((t) => t.text));
    if (words.every((w) => placeWords.has(w)))
      return { status: 'matched', detail: `location ${query} appears in the listed place "${place}"` };
  }
  return { status: 'mismatched', detail: `location ${query} is not among the listed places` };
}
