/**
 * Token evidence: the listed (vocabulary) tokens plausibly matching a query token, with their
 * similarity to it, which candidate selection credits (candidates.ts). The index lookup finds the
 * plausible ones (same text, variant, phonetic key, within one edit, two run together); each is
 * compared in full.
 *
 * Most query parts are themselves listed tokens, and for those the answer depends on the lists
 * alone: `compileNearTokens` works it out for the whole vocabulary when a snapshot is written
 * (about 2 s over 42,000 tokens), and the snapshot file stores it, so a screen reads a listed
 * token's evidence instead of looking it up and comparing. What is stored is what the lookup would
 * give, kept to the tokens it credits (similarity from `ALIGNABLE` up, in lookup order), so the
 * two are interchangeable; `nearTokensHold` checks a sample of it against the code running now.
 */

import type { NearTokens } from './compiled-index.ts';
import {
  ARTICLE_RUN_IN_RE,
  lookupToken,
  type NameIndex,
  RUN_TOGETHER_MIN_LENGTH,
  RUN_TOGETHER_MIN_PART,
  VocabIdSet,
} from './name-index.ts';
import type { NameToken } from './normalise.ts';
import { ALIGNABLE, alignableSimilarity, anotherKnownName } from './token-similarity.ts';

/**
 * Vocabulary tokens less similar than this to a query token add no candidate evidence. It is the
 * scorer's own alignment floor, never lower: similarities come from `alignableSimilarity`, which
 * is exact only from `ALIGNABLE` up.
 */
export const CANDIDATE_MIN_SIMILARITY = ALIGNABLE;

/** A token's evidence: vocabulary ids in lookup order, and each one's similarity to the token. */
export interface Evidence {
  ids: Int32Array;
  sims: Float64Array;
  /**
   * Per id, 1 when it is one of two listed tokens the token writes as one ("pyong" and "chol" of
   * "pyongchol"): evidence for a query's own token, not for two query tokens joined (whose
   * parts are the query's own tokens, already credited). Undefined when there is none.
   */
  runTogether: Uint8Array | undefined;
}

/**
 * Similarity of a query token to a listed one, exact from `ALIGNABLE` up (all that candidate
 * selection and scoring read). A query part that is itself a listed name part does not align with
 * another listed part two letters or more away ("Martins" / "Marin"): the lists' own name parts
 * serve as the dictionary of real names.
 */
export function listedSimilarity(index: NameIndex, token: NameToken, listed: NameToken): number {
  const s = alignableSimilarity(token, listed);
  if (
    s >= ALIGNABLE &&
    token.text !== listed.text &&
    index.byText.has(token.text) &&
    anotherKnownName(token, listed)
  )
    return 0;
  return s;
}

/**
 * The evidence of `token`: the lookup's ids (into `lookup`, cleared first) and their similarity by
 * `similarity(id)`, `listedSimilarity` or a memo of it.
 */
export function tokenEvidence(
  index: NameIndex,
  token: NameToken,
  lookup: VocabIdSet,
  similarity: (id: number) => number,
): Evidence {
  lookup.clear();
  lookupToken(index, token, lookup);
  const ids = lookup.ids.slice(0, lookup.size);
  const sims = new Float64Array(ids.length);
  for (let k = 0; k < ids.length; k++) sims[k] = similarity(ids[k]);
  // "ALRAYS" is evidence for a listed "AL-RAYS" through its "rays", which is not a spelling of
  // "alrays" on its own: scoring pairs the token with the listed article and name (alignment.ts).
  const article = ARTICLE_RUN_IN_RE.exec(token.text);
  if (article) {
    const bare = token.text.slice(article[0].length);
    for (let k = 0; k < ids.length; k++)
      if (index.vocab[ids[k]].text === bare && sims[k] < CANDIDATE_MIN_SIMILARITY)
        sims[k] = CANDIDATE_MIN_SIMILARITY;
  }
  // Likewise "PYONGCHOL" for a listed "Pyong-Chol" through either part (the lookup adds both when
  // the token is two listed parts run together): scoring pairs it with the two written as one.
  let runTogether: Uint8Array | undefined;
  if (token.text.length >= RUN_TOGETHER_MIN_LENGTH && !index.byText.has(token.text)) {
    for (let k = 0; k < ids.length; k++) {
      if (sims[k] >= CANDIDATE_MIN_SIMILARITY) continue;
      if (!runTogetherPart(index, token.text, index.vocab[ids[k]].text)) continue;
      runTogether ??= new Uint8Array(ids.length);
      runTogether[k] = 1;
    }
  }
  return { ids, sims, runTogether };
}

/**
 * Whether `part` is the first or the last of two listed tokens that `text` writes as one: a piece
 * `lookupToken` adds for a run-together query token.
 */
function runTogetherPart(index: NameIndex, text: string, part: string): boolean {
  if (part.length < RUN_TOGETHER_MIN_PART || part.length > text.length - RUN_TOGETHER_MIN_PART) return false;
  return (
    (text.startsWith(part) && index.byText.has(text.slice(part.length))) ||
    (text.endsWith(part) && index.byText.has(text.slice(0, text.length - part.length)))
  );
}

/** What vocabulary token `v` credits as a query token, worked out now. */
function creditedBy(index: NameIndex, v: number, lookup: VocabIdSet): { ids: number[]; sims: number[] } {
  const token = index.vocab[v];
  // A listed token is in `byText`, so no run-together marks: only similarities decide.
  const { ids, sims } = tokenEvidence(index, token, lookup, (id) =>
    listedSimilarity(index, token, index.vocab[id]),
  );
  const kept = { ids: [] as number[], sims: [] as number[] };
  for (let k = 0; k < ids.length; k++) {
    if (sims[k] < CANDIDATE_MIN_SIMILARITY) continue;
    kept.ids.push(ids[k]);
    kept.sims.push(sims[k]);
  }
  return kept;
}

/** Every vocabulary token's evidence as a query token (see `NearTokens`). */
export function compileNearTokens(index: NameIndex): NearTokens {
  const lookup = new VocabIdSet(index.vocab.length);
  const start = new Int32Array(index.vocab.length + 1);
  const ids: number[] = [];
  const sims: number[] = [];
  for (let v = 0; v < index.vocab.length; v++) {
    start[v] = ids.length;
    const near = creditedBy(index, v, lookup);
    for (let k = 0; k < near.ids.length; k++) {
      ids.push(near.ids[k]);
      sims.push(near.sims[k]);
    }
  }
  start[index.vocab.length] = ids.length;
  return { start, ids: Int32Array.from(ids), sims: Float64Array.from(sims) };
}

/** One in this many vocabulary tokens is worked out again by `nearTokensHold`. */
const SAMPLE_STRIDE = 1009;

/**
 * Whether stored near tokens fit this index and agree with the code running now, on every
 * `SAMPLE_STRIDE`th vocabulary token worked out again (a few milliseconds at cold start).
 */
export function nearTokensHold(index: NameIndex, near: NearTokens): boolean {
  const count = index.vocab.length;
  if (near.start.length !== count + 1 || near.start[count] !== near.ids.length) return false;
  if (near.sims.length !== near.ids.length) return false;
  const lookup = new VocabIdSet(count);
  for (let v = 0; v < count; v += SAMPLE_STRIDE) {
    const { ids, sims } = creditedBy(index, v, lookup);
    const from = near.start[v];
    if (near.start[v + 1] - from !== ids.length) return false;
    for (let k = 0; k < ids.length; k++)
      if (near.ids[from + k] !== ids[k] || near.sims[from + k] !== sims[k]) return false;
  }
  return true;
}
