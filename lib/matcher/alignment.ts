/**
 * Token alignment of a query name with a listed name, order-insensitive (lists and customers
 * disagree on name order): every pair of tokens at least `ALIGNABLE`-similar is a candidate; the
 * best candidates are taken greedily, each token used once; then, on what is left over, one token
 * against two adjacent tokens of the other side written as one ("Ramimakhlouf" / "Rami
 * Makhlouf").
 *
 * The result is left in `alignment` (parallel typed arrays reused across calls, so that scoring a
 * shortlist creates little garbage): valid until the next `alignTokens` call.
 */

import { type NameToken, tokenWith } from './normalise.ts';
import { ALIGNABLE, alignableSimilarity } from './token-similarity.ts';

/** Least similarity of a token to two adjacent tokens written as one for them to align. */
export const MERGED_PAIR_MIN = 0.88;
/** Shortest token compared with two adjacent tokens of the other side written as one. */
const MERGED_MIN_LENGTH = 5;
/**
 * Shortest token that still pairs with two adjacent name parts (not particles or initials) of the
 * other side spelt exactly as it: a two-syllable given name written as one ("Mopo" / "Mo-po").
 */
const EXACT_MERGED_MIN_LENGTH = 4;

/**
 * The chosen pairs: pair `c` aligns query token `q[c]` (and `q2[c]`, -1 when the part is a single
 * token) with listed token `l[c]` (and `l2[c]`), with similarity `s[c]`; in descending
 * similarity, ties in the order found. `usedQ` / `usedL` flag the aligned tokens per side.
 */
export const alignment = {
  count: 0,
  q: new Int32Array(0),
  q2: new Int32Array(0),
  l: new Int32Array(0),
  l2: new Int32Array(0),
  s: new Float64Array(0),
  usedQ: new Uint8Array(0),
  usedL: new Uint8Array(0),
};

// Candidate alignments, in the same layout, in descending similarity with ties in the order found.
let scratchCapacity = 0;
let candQ = new Int32Array(0);
let candQ2 = new Int32Array(0);
let candL = new Int32Array(0);
let candL2 = new Int32Array(0);
let candS = new Float64Array(0);
let candPlace = new Int32Array(0);

function ensureScratch(nq: number, nl: number): void {
  // Single-token candidates with the run-in particles (at most 3·nq·nl), merged ones (fewer than
  // 2·nq·nl) and the chosen ones.
  const needed = 3 * nq * nl + nq + nl;
  if (needed <= scratchCapacity) return;
  const size = Math.max(64, needed * 2);
  candQ = new Int32Array(size);
  candQ2 = new Int32Array(size);
  candL = new Int32Array(size);
  candL2 = new Int32Array(size);
  candS = new Float64Array(size);
  candPlace = new Int32Array(size);
  alignment.q = new Int32Array(size);
  alignment.q2 = new Int32Array(size);
  alignment.l = new Int32Array(size);
  alignment.l2 = new Int32Array(size);
  alignment.s = new Float64Array(size);
  alignment.usedQ = new Uint8Array(size);
  alignment.usedL = new Uint8Array(size);
  scratchCapacity = size;
}

/**
 * Adds a candidate to the `count` already held, keeping descending similarity, and among equal
 * similarities the pair whose places in their names agree best first, then the order added;
 * returns the new count. `place` is how far apart the two tokens' places are (see `alignTokens`):
 * a part a name repeats ("Mohamed Mourad Ben Mohamed") pairs with the same place on the other
 * side, not across the "ben", which would read as another person's lineage.
 */
function addCandidate(
  count: number,
  q: number,
  q2: number,
  l: number,
  l2: number,
  s: number,
  place: number,
): number {
  let k = count;
  while (k > 0 && (candS[k - 1] < s || (candS[k - 1] === s && candPlace[k - 1] > place))) {
    candQ[k] = candQ[k - 1];
    candQ2[k] = candQ2[k - 1];
    candL[k] = candL[k - 1];
    candL2[k] = candL2[k - 1];
    candS[k] = candS[k - 1];
    candPlace[k] = candPlace[k - 1];
    k--;
  }
  candQ[k] = q;
  candQ2[k] = q2;
  candL[k] = l;
  candL2[k] = l2;
  candS[k] = s;
  candPlace[k] = place;
  return count + 1;
}

/** Which candidates one round of `assignCandidates` takes. */
enum Round {
  /** Every candidate (the merged-token pass). */
  All,
  /** Pairs of two written-out parts. */
  Words,
  /** Pairs with an initial on one side, once the written-out parts are paired. */
  Initials,
}

/** Greedy alignment: best candidates first, each token used once. */
function assignCandidates(
  count: number,
  round: Round,
  query: readonly NameToken[],
  listed: readonly NameToken[],
): void {
  const { q: chosenQ, q2: chosenQ2, l: chosenL, l2: chosenL2, s: chosenS, usedQ, usedL } = alignment;
  let chosenCount = alignment.count;
  for (let k = 0; k < count; k++) {
    const q = candQ[k];
    const q2 = candQ2[k];
    const l = candL[k];
    const l2 = candL2[k];
    if (usedQ[q] || (q2 >= 0 && usedQ[q2]) || usedL[l] || (l2 >= 0 && usedL[l2])) continue;
    if (round !== Round.All) {
      const initial = query[q].initial || listed[l].initial;
      if (initial !== (round === Round.Initials)) continue;
      if (initial && surnameForInitial(query, listed, q, l)) continue;
    }
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
  alignment.count = chosenCount;
}

/** Index of the last written-out part of a name (not a particle or an initial), -1 when none. */
function lastWordPart(tokens: readonly NameToken[]): number {
  for (let k = tokens.length - 1; k >= 0; k--) if (!tokens[k].particle && !tokens[k].initial) return k;
  return -1;
}

/** Whether a written-out part (not a particle) before token `k` is left unpaired. */
function wordBefore(tokens: readonly NameToken[], k: number, used: Uint8Array): boolean {
  for (let j = 0; j < k; j++) if (!used[j] && !tokens[j].particle && !tokens[j].initial) return true;
  return false;
}

/**
 * Whether pairing query token `q` with listed token `l`, one of them an initial, would take a
 * whole surname for an initial: the written-out token is the last written-out part of its name
 * (the surname in reading order) while the other name's surname is left unpaired. "Elise
 * Marchand" is not "Elise M. Stefanik": Marchand faces Stefanik, a different surname, not the
 * middle initial M.
 */
function surnameForInitial(
  query: readonly NameToken[],
  listed: readonly NameToken[],
  q: number,
  l: number,
): boolean {
  const { usedQ, usedL } = alignment;
  if (query[q].initial && listed[l].initial) return false;
  // ... nor a given name for a middle initial while the given name before it is left unpaired:
  // "Akshata Rana" faces the Akbar of "Akbar A. Rana", not its A.
  if (listed[l].initial ? wordBefore(listed, l, usedL) : wordBefore(query, q, usedQ)) return true;
  if (listed[l].initial) {
    const other = lastWordPart(listed);
    return q === lastWordPart(query) && other >= 0 && !usedL[other];
  }
  const other = lastWordPart(query);
  return l === lastWordPart(listed) && other >= 0 && !usedQ[other];
}

/**
 * Two adjacent tokens written as one, compared by spelling only (no phonetic key). One record is
 * refilled per comparison: the comparison keeps no reference to it. Made as every token is
 * (`tokenWith`), so that the comparison sees one object shape (V8 hidden class) for every token
 * and stays monomorphic.
 */
const joined: NameToken = tokenWith('', false, false, false, false, '', []);

function joinedToken(a: NameToken, b: NameToken): NameToken {
  joined.text = a.text + b.text;
  joined.transliterated = a.transliterated;
  joined.sinitic = undefined;
  return joined;
}

/** Whether `one` is `first` and `second`, two name parts (not particles or initials), written as one. */
function spelledAsTwo(one: NameToken, first: NameToken, second: NameToken): boolean {
  if (first.particle || first.initial || second.particle || second.initial) return false;
  return one.text.length === first.text.length + second.text.length && one.text === first.text + second.text;
}

/**
 * Aligns `query` with `listed` into `alignment`. `similarity(i, j)` compares query token `i` with
 * listed token `j`; only its values from `ALIGNABLE` up are used.
 */
export function alignTokens(
  query: readonly NameToken[],
  listed: readonly NameToken[],
  similarity: (i: number, j: number) => number,
): void {
  const nq = query.length;
  const nl = listed.length;
  ensureScratch(nq, nl);
  let count = 0;
  for (let i = 0; i < nq; i++) {
    for (let j = 0; j < nl; j++) {
      const s = similarity(i, j);
      if (s >= ALIGNABLE) count = addCandidate(count, i, -1, j, -1, s, Math.abs(i * nl - j * nq));
      // A particle run into the name on one side ("ALRAYS" / "AL-RAYS", "BenAli" / "Ben Ali"):
      // the same name, before the bare name ("rays") is taken for a misspelling of it.
      if (j + 1 < nl && listed[j].particle && query[i].text === listed[j].text + listed[j + 1].text)
        count = addCandidate(count, i, -1, j, j + 1, 1, 0);
      if (i + 1 < nq && query[i].particle && listed[j].text === query[i].text + query[i + 1].text)
        count = addCandidate(count, i, i + 1, j, -1, 1, 0);
    }
  }
  const { usedQ, usedL } = alignment;
  usedQ.fill(0, 0, nq);
  usedL.fill(0, 0, nl);
  alignment.count = 0;
  // Written-out parts first: an initial stands for a part the other name may spell out, so it
  // takes what the written-out parts leave ("Elise Stefanek" pairs Stefanek with Stefanik, not
  // with the S. of "Elise S. Stefanik").
  assignCandidates(count, Round.Words, query, listed);
  assignCandidates(count, Round.Initials, query, listed);
  // Merged or split tokens ("Ramimakhlouf" / "Rami Makhlouf"), tried only on what is left over.
  if (alignment.count < Math.max(nq, nl)) {
    count = 0;
    for (let i = 0; i < nq; i++) {
      const length = query[i].text.length;
      if (usedQ[i] || length < EXACT_MERGED_MIN_LENGTH) continue;
      for (let j = 0; j + 1 < nl; j++) {
        if (usedL[j] || usedL[j + 1]) continue;
        if (length < MERGED_MIN_LENGTH) {
          if (spelledAsTwo(query[i], listed[j], listed[j + 1]))
            count = addCandidate(count, i, -1, j, j + 1, 1, 0);
          continue;
        }
        const s = alignableSimilarity(query[i], joinedToken(listed[j], listed[j + 1]));
        if (s >= MERGED_PAIR_MIN) count = addCandidate(count, i, -1, j, j + 1, s, 0);
      }
    }
    for (let j = 0; j < nl; j++) {
      const length = listed[j].text.length;
      if (usedL[j] || length < EXACT_MERGED_MIN_LENGTH) continue;
      for (let i = 0; i + 1 < nq; i++) {
        if (usedQ[i] || usedQ[i + 1]) continue;
        if (length < MERGED_MIN_LENGTH) {
          if (spelledAsTwo(listed[j], query[i], query[i + 1]))
            count = addCandidate(count, i, i + 1, j, -1, 1, 0);
          continue;
        }
        const s = alignableSimilarity(joinedToken(query[i], query[i + 1]), listed[j]);
        if (s >= MERGED_PAIR_MIN) count = addCandidate(count, i, i + 1, j, -1, s, 0);
      }
    }
    assignCandidates(count, Round.All, query, listed);
  }
}
