/**
 * Candidate selection: which listed names are worth scoring in full for a query name, and their
 * scores. Each query token looks up the index for plausible listed tokens (same text, variant,
 * phonetic key, within one edit, or a run-together pair); every listed name containing one is
 * credited with the query token's rarity weight times the similarity. Names whose evidence covers
 * too little of the query are dropped, a short list of the best per check type is scored in full
 * (name-score.ts), and the best-scoring name of each listed person is kept.
 */

import type { CheckType } from '../watchlists/types.ts';
import type { NearTokens } from './compiled-index.ts';
import { type NameIndex, VocabIdSet } from './name-index.ts';
import { type NameScore, scoreTokens } from './name-score.ts';
import {
  CANDIDATE_MIN_SIMILARITY,
  type Evidence,
  listedSimilarity,
  nearTokensHold,
  tokenEvidence,
} from './near-tokens.ts';
import { makeToken, type NameToken, nameWords, tokeniseName } from './normalise.ts';
import { MATCH_FLOOR } from './risk.ts';
import { INITIAL_WEIGHT, PARTICLE_WEIGHT, UNSEEN_TOKEN_WEIGHT } from './weights.ts';

/** At most this many matches are returned per check, best first. */
export const MAX_MATCHES = 10;
/** Candidate names scored in full per check type, picked by cheap token evidence. */
export const SHORTLIST = 20;
/**
 * Candidates whose token evidence covers less than this share of the query's weight cannot reach
 * the reporting floor, so they are not scored in full.
 */
export const MIN_EVIDENCE_SHARE = 0.3;
/** Query tokens rarer than this open new candidates; commoner ones only add evidence. */
export const OPENING_WEIGHT = 0.5;
/**
 * Per listed token, subtracted once from a candidate's evidence: among names sharing the same
 * query tokens, those with fewer unexplained parts are scored first (family members listed
 * together share most name parts).
 */
const LENGTH_TIE_BREAK = 0.001;
/** Distinct query tokens whose index evidence is kept between screens (about 1 MB). */
const EVIDENCE_CACHE_SIZE = 4096;
/** Token-pair similarities kept between screens: 2^18 slots of 16 bytes, 4 MB. */
const SIM_CACHE_BITS = 18;
const SIM_CACHE_SIZE = 1 << SIM_CACHE_BITS;

/** Each check type's place among the shortlists of `createCandidateSelector`. */
const CATEGORY_SLOT: Readonly<Record<CheckType, number>> = { sanctions: 0, pep: 1, criminal: 2 };
const CATEGORY_SLOTS = 3;

/** No names to score beyond the shortlist (shared, so a screen without a date allocates none). */
const NO_NAMES: ArrayLike<number> = new Int32Array(0);

/**
 * Every field of a token, named, so that equal keys mean equal tokens for comparison: "rid" read
 * from Greek and "rid" read from Hebrew are compared differently, and had one key while the key
 * held values only (a flag present on each, at the same place: "Τζακ Ριντ" screened first made
 * "ג'אק ריד" CLEAR on Senator REED). `sinitic` is left out: a memo of `text` filled in by the
 * first comparison, it would make one token two keys.
 */
function tokenKey(token: NameToken): string {
  let key = '';
  // `for...in` visits the token's own fields in the order `Object.entries` lists them, without
  // building an entry array per field (a screen keys every query part).
  const fields = token as unknown as Record<string, unknown>;
  for (const field in fields) {
    if (field === 'sinitic') continue;
    const value = fields[field];
    // A flag not set (normalise.ts `tokenWith` gives every token every flag, unset) adds nothing,
    // as an absent field did.
    if (value === undefined) continue;
    if (!Array.isArray(value)) key += `${field}=${value}\u0001`;
    else key += `${field}=${value.join(',')}\u0001`;
  }
  return key;
}

export interface QueryName {
  input: 'name' | 'alias';
  tokens: NameToken[];
  /** Rarity weight per token. */
  weights: number[];
  /** Words as typed, titles included: one means the customer gave a single name. */
  words: number;
}

/** The best-scoring listed name of one listed person. */
export interface Scored {
  person: number;
  nameId: number;
  query: QueryName;
  name: NameScore;
  /**
   * The person's other names scored at or above the reporting floor: the results step may find
   * one of them the stronger match (a name spelt alike that scores a little lower than a near
   * alias, which the results step holds to a lower band).
   */
  others?: Scored[];
}

export interface CandidateSelector {
  /** Tokenises and weighs a query name; undefined when nothing of it takes part in matching. */
  queryName(text: string, input: 'name' | 'alias'): QueryName | undefined;
  /**
   * Scores the shortlisted candidates of `q` in the requested check types into `best` (per
   * person, the best name over every query name given).
   */
  scoreCandidates(
    q: QueryName,
    categories: ReadonlySet<CheckType>,
    best: Map<number, Scored>,
    alsoScore?: ArrayLike<number>,
  ): void;
}

/**
 * The candidate selector over `index`, with its caches and scratch buffers. Not re-entrant:
 * screening is synchronous, so calls never interleave.
 */
export function createCandidateSelector(index: NameIndex): CandidateSelector {
  // Token records of the names scored so far (a small share of all names).
  const nameTokens: (NameToken[] | undefined)[] = new Array(index.nameCount);
  const tokensOfName = (nameId: number): NameToken[] => {
    let tokens = nameTokens[nameId];
    if (tokens === undefined) {
      const start = index.nameTokenStart[nameId];
      tokens = new Array<NameToken>(index.nameLengths[nameId]);
      for (let k = 0; k < tokens.length; k++) tokens[k] = index.vocab[index.nameTokenIds[start + k]];
      nameTokens[nameId] = tokens;
    }
    return tokens;
  };
  const { nameLengths } = index;

  // Scratch buffers reused across calls; `screen` is synchronous, so calls never interleave.
  const acc = new Float64Array(index.nameCount);
  const stamp = new Int32Array(index.nameCount).fill(-1);
  const credits = new Uint8Array(index.nameCount);
  // Names credited so far in this call, in the order first credited: `touched` up to
  // `touchedCount` (typed and never shrunk, so a screen does not regrow it; emptying a JS array
  // frees its storage).
  const touched = new Int32Array(index.nameCount);
  let touchedCount = 0;
  let stampCounter = 0;

  /** Whether some listed token is within alignment reach of `token` (a spelling of it). */
  function nearListed(token: NameToken): boolean {
    const { sims } = evidenceOf(token);
    for (let k = 0; k < sims.length; k++) if (sims[k] >= CANDIDATE_MIN_SIMILARITY) return true;
    return false;
  }

  function queryName(text: string, input: 'name' | 'alias'): QueryName | undefined {
    const tokens = splitRunTogether(index, tokeniseName(text), nearListed);
    if (tokens.length === 0) return undefined;
    const weights = tokens.map((t) => queryWeight(index, t));
    return { input, tokens, weights, words: nameWords(text).length };
  }

  /**
   * The vocabulary tokens plausibly matching a query token, with their similarity to it
   * (near-tokens.ts), kept across screens: customers' names repeat ("Mohammed", "Smith") and the
   * lookup plus the Jaro-Winkler and edit-distance work is much of a screen's cost. Keyed by every
   * field of the token, so two tokens with one key compare identically; `serial` names the token
   * in the similarity cache. A query token that is a listed token reads its evidence from the
   * snapshot's near tokens instead, when the sample of them agrees with this code.
   */
  interface TokenEvidence extends Evidence {
    serial: number;
  }
  const evidenceCache = new Map<string, TokenEvidence>();
  const lookup = new VocabIdSet(index.vocab.length);
  let serials = 0;
  const near: NearTokens | undefined =
    index.near !== undefined && nearTokensHold(index, index.near) ? index.near : undefined;
  /** Per vocabulary id: its token's key (`tokenKey`), and its evidence read from `near`. */
  const vocabKeys: (string | undefined)[] = new Array(index.vocab.length);
  const vocabEvidence: (TokenEvidence | undefined)[] = new Array(index.vocab.length);

  // Similarity of a query token (by serial) to a vocabulary token (`listedSimilarity`): a
  // direct-mapped cache in flat typed arrays (a colliding entry is simply recomputed), so it
  // creates no garbage to collect. A slot's serial and vocabulary id sit side by side in
  // `simKeys` (serial -1: empty), so a lookup reads one cache line for both.
  const simKeys = new Int32Array(2 * SIM_CACHE_SIZE).fill(-1);
  const simValue = new Float64Array(SIM_CACHE_SIZE);

  function similarity(token: NameToken, serial: number, id: number): number {
    const slot = (Math.imul(serial, 0x9e3779b1) ^ Math.imul(id + 1, 0x85ebca6b)) >>> (32 - SIM_CACHE_BITS);
    const at = slot << 1;
    if (simKeys[at] === serial && simKeys[at + 1] === id) return simValue[slot];
    const s = listedSimilarity(index, token, index.vocab[id]);
    simKeys[at] = serial;
    simKeys[at + 1] = id;
    simValue[slot] = s;
    return s;
  }

  /** The stored evidence of `token` when it is a listed token (every field alike), else undefined. */
  function listedEvidence(token: NameToken, key: string): TokenEvidence | undefined {
    if (near === undefined) return undefined;
    const ids = index.byText.get(token.text);
    if (ids === undefined) return undefined;
    for (const v of ids) {
      let vocabKey = vocabKeys[v];
      if (vocabKey === undefined) {
        vocabKey = tokenKey(index.vocab[v]);
        vocabKeys[v] = vocabKey;
      }
      if (vocabKey !== key) continue;
      let evidence = vocabEvidence[v];
      if (evidence === undefined) {
        const from = near.start[v];
        const to = near.start[v + 1];
        evidence = {
          serial: nextSerial(),
          ids: near.ids.subarray(from, to),
          sims: near.sims.subarray(from, to),
          runTogether: undefined,
        };
        vocabEvidence[v] = evidence;
      }
      return evidence;
    }
    return undefined;
  }

  function nextSerial(): number {
    if (serials === 0x7fffffff) {
      serials = 0;
      simKeys.fill(-1);
      evidenceCache.clear();
      joinedEvidence.clear();
      vocabEvidence.fill(undefined);
    }
    return serials++;
  }

  function evidenceOf(token: NameToken): TokenEvidence {
    const key = tokenKey(token);
    const cached = evidenceCache.get(key);
    if (cached !== undefined) {
      // Least recently used first: re-inserting moves the entry to the end.
      evidenceCache.delete(key);
      evidenceCache.set(key, cached);
      return cached;
    }
    const listed = listedEvidence(token, key);
    if (listed !== undefined) return listed;
    const serial = nextSerial();
    const evidence: TokenEvidence = {
      serial,
      ...tokenEvidence(index, token, lookup, (id) => similarity(token, serial, id)),
    };
    if (evidenceCache.size >= EVIDENCE_CACHE_SIZE) {
      const oldest = evidenceCache.keys().next();
      if (!oldest.done) evidenceCache.delete(oldest.value);
    }
    evidenceCache.set(key, evidence);
    return evidence;
  }

  /**
   * The evidence of two query parts written as one, by the joined text: the token `makeToken`
   * gives that text, keyed and looked up once (customers' name pairs repeat as their names do).
   */
  const joinedEvidence = new Map<string, TokenEvidence>();

  function joinedEvidenceOf(text: string): TokenEvidence {
    let evidence = joinedEvidence.get(text);
    if (evidence === undefined) {
      evidence = evidenceOf(makeToken(text));
      if (joinedEvidence.size >= EVIDENCE_CACHE_SIZE) joinedEvidence.clear();
      joinedEvidence.set(text, evidence);
    }
    return evidence;
  }

  // Per query part: the qualifying vocabulary ids and their evidence weights.
  const qualifyingIds = new Int32Array(index.vocab.length);
  const qualifyingWeight = new Float64Array(index.vocab.length);
  const qualifyingMark = new Int32Array(index.vocab.length).fill(-1);
  let qualifyingCount = 0;
  let qualifyingGeneration = 0;
  let opened = false;

  /** Per candidate name, the vocabulary token that last credited it (-1: none this screen). */
  const creditedBy = new Int32Array(index.nameCount).fill(-1);

  /** Whether listed name `nameId` holds vocabulary token `v` more than once ("GOMEZ GOMEZ"). */
  function holdsTwice(nameId: number, v: number): boolean {
    const start = index.nameTokenStart[nameId];
    let seen = 0;
    for (let k = start; k < start + nameLengths[nameId]; k++) if (index.nameTokenIds[k] === v) seen++;
    return seen >= 2;
  }

  /**
   * Credits each candidate name containing a qualifying vocabulary token with the query part's
   * evidence (once per name and part; the first qualifying spelling in lookup order counts).
   */
  function credit(evidence: TokenEvidence, weight: number, opening: boolean, own: boolean): void {
    const generation = ++qualifyingGeneration;
    qualifyingCount = 0;
    let postingsTotal = 0;
    const { ids, sims, runTogether } = evidence;
    for (let k = 0; k < ids.length; k++) {
      let sim = sims[k];
      if (sim < CANDIDATE_MIN_SIMILARITY) {
        if (!own || runTogether?.[k] !== 1) continue;
        sim = CANDIDATE_MIN_SIMILARITY;
      }
      const v = ids[k];
      // Evidence is bounded by the query part's own rarity: a common query name meeting a rare
      // listed spelling ("Hamid" vs "Hamud") is still weak evidence.
      qualifyingIds[qualifyingCount++] = v;
      qualifyingWeight[v] = Math.min(index.weights[v], weight) * sim;
      qualifyingMark[v] = generation;
      postingsTotal += index.postingStart[v + 1] - index.postingStart[v];
    }
    if (qualifyingCount === 0) return;
    opened = true;
    const s = stampCounter++;
    if (!opening && postingsTotal > touchedCount * 4) {
      // A common part that may not open candidates: visit the few candidates instead of its
      // long posting lists.
      for (let t = 0; t < touchedCount; t++) {
        const nameId = touched[t];
        if (credits[nameId] >= nameLengths[nameId]) continue;
        const start = index.nameTokenStart[nameId];
        const end = start + nameLengths[nameId];
        let best = 0;
        let bestId = -1;
        for (let k = start; k < end; k++) {
          const v = index.nameTokenIds[k];
          if (qualifyingMark[v] !== generation || qualifyingWeight[v] <= best) continue;
          if (creditedBy[nameId] === v && !holdsTwice(nameId, v)) continue;
          best = qualifyingWeight[v];
          bestId = v;
        }
        if (best > 0) {
          credits[nameId]++;
          acc[nameId] += best;
          creditedBy[nameId] = bestId;
        }
      }
      return;
    }
    for (let q = 0; q < qualifyingCount; q++) {
      const v = qualifyingIds[q];
      const w = qualifyingWeight[v];
      const postings = index.postingIds;
      const end = index.postingStart[v + 1];
      for (let k = index.postingStart[v]; k < end; k++) {
        const nameId = postings[k];
        if (stamp[nameId] === s) continue;
        if (acc[nameId] === 0) {
          if (!opening) continue;
          touched[touchedCount++] = nameId;
        } else if (credits[nameId] >= nameLengths[nameId]) {
          // Every listed part already credited: further query parts can only be extras.
          continue;
        } else if (creditedBy[nameId] === v && !holdsTwice(nameId, v)) {
          // The listed part already backs another query part ("Abdullah Abdulah" meets every
          // "Abdullah X" through one Abdullah, "Abdullah Abdullah" through two).
          continue;
        }
        stamp[nameId] = s;
        creditedBy[nameId] = v;
        credits[nameId]++;
        acc[nameId] += w - (acc[nameId] === 0 ? LENGTH_TIE_BREAK * nameLengths[nameId] : 0);
      }
    }
  }

  /**
   * Accumulates token evidence per candidate name into `acc`: for each query token, the rarity
   * weight times the similarity of each plausible vocabulary token. Returns each query token's
   * serial in the similarity cache, for scoring.
   */
  function collectCandidates(q: QueryName): number[] {
    const order = q.tokens.map((_, i) => i).sort((a, b) => q.weights[b] - q.weights[a]);
    const tokenSerials: number[] = new Array(q.tokens.length);
    opened = false;
    const seenTexts = new Set<string>();
    for (const i of order) {
      const token = q.tokens[i];
      const evidence = evidenceOf(token);
      tokenSerials[i] = evidence.serial;
      if (seenTexts.has(token.text)) continue;
      seenTexts.add(token.text);
      const opening = !opened || q.weights[i] >= OPENING_WEIGHT;
      credit(evidence, q.weights[i], opening, true);
      // The query may split what the list writes as one word ("Adbul Bari" / "Abdulbari").
      const next = q.tokens[i + 1];
      if (next && !token.particle && !next.particle && !token.initial && !next.initial) {
        credit(joinedEvidenceOf(token.text + next.text), q.weights[i] + q.weights[i + 1], opening, false);
      }
    }
    return tokenSerials;
  }

  /**
   * The shortlist of each check type (slot `CATEGORY_SLOT`), best first: `SHORTLIST` name ids from
   * `slot * SHORTLIST`, `shortCounts[slot]` of them; filled in one pass over the candidates with
   * enough evidence to be scored at all, in the order they were found.
   */
  const shortlists = new Int32Array(CATEGORY_SLOTS * SHORTLIST);
  const shortCounts = new Int32Array(CATEGORY_SLOTS);
  const wantedSlots = new Uint8Array(CATEGORY_SLOTS);
  /** Each name's check type, by its slot. */
  const nameSlot = new Uint8Array(index.nameCount);
  for (let n = 0; n < index.nameCount; n++)
    nameSlot[n] = CATEGORY_SLOT[index.people[index.namePerson[n]].category];

  /** Adds `nameId` (evidence `a`) to its check type's shortlist when it ranks there. */
  function shortlist(slot: number, nameId: number, a: number): void {
    const base = slot * SHORTLIST;
    const count = shortCounts[slot];
    if (count === SHORTLIST && a <= acc[shortlists[base + SHORTLIST - 1]]) return;
    let k = count < SHORTLIST ? count : SHORTLIST - 1;
    while (k > 0 && acc[shortlists[base + k - 1]] < a) {
      shortlists[base + k] = shortlists[base + k - 1];
      k--;
    }
    shortlists[base + k] = nameId;
    if (count < SHORTLIST) shortCounts[slot] = count + 1;
  }

  // The name being scored, read by the two callbacks below (made once, not per name).
  let scoringQuery: QueryName | undefined;
  let scoringListed: NameToken[] = [];
  let scoringStart = 0;
  let scoringSerials: number[] = [];
  /** Rarity weight of a listed token (its vocabulary id's) or of a query token (the query's). */
  const weightOf = (t: NameToken): number => {
    for (let j = 0; j < scoringListed.length; j++)
      if (scoringListed[j] === t) return index.weights[index.nameTokenIds[scoringStart + j]];
    const q = scoringQuery as QueryName;
    for (let i = 0; i < q.tokens.length; i++) if (q.tokens[i] === t) return q.weights[i];
    return 1;
  };
  const similarityOf = (i: number, j: number): number =>
    similarity(
      (scoringQuery as QueryName).tokens[i],
      scoringSerials[i],
      index.nameTokenIds[scoringStart + j],
    );

  /** Whether a list carries the token's text as a name part. */
  const isListedText = (t: NameToken): boolean => index.byText.has(t.text);

  function scoreName(q: QueryName, nameId: number, tokenSerials: number[]): NameScore {
    scoringQuery = q;
    scoringListed = tokensOfName(nameId);
    scoringStart = index.nameTokenStart[nameId];
    scoringSerials = tokenSerials;
    return scoreTokens(q.tokens, scoringListed, weightOf, similarityOf, isListedText);
  }

  /**
   * Whether a part of the name starts with the letter a query part starts with: typos keep most
   * first letters, and a name sharing none is not this query's spelling of it (also the cheap
   * test that spares scoring the other people born on the subject's date).
   */
  function sharesAnInitial(q: QueryName, nameId: number): boolean {
    const start = index.nameTokenStart[nameId];
    for (let k = 0; k < nameLengths[nameId]; k++) {
      const listed = index.vocab[index.nameTokenIds[start + k]];
      if (listed.particle) continue;
      for (const t of q.tokens) if (!t.particle && t.text[0] === listed.text[0]) return true;
    }
    return false;
  }

  /**
   * Scores one name and keeps it in `best` when it is its person's best so far; the person's other
   * names at or above the reporting floor are kept in its `others`.
   */
  function keepBest(q: QueryName, nameId: number, tokenSerials: number[], best: Map<number, Scored>): void {
    const scored = scoreName(q, nameId, tokenSerials);
    const person = index.namePerson[nameId];
    const previous = best.get(person);
    const entry: Scored = { person, nameId, query: q, name: scored };
    if (!previous) best.set(person, entry);
    else if (scored.score > previous.name.score) {
      entry.others = previous.others ?? [];
      if (previous.name.score >= MATCH_FLOOR) entry.others.push({ ...previous, others: undefined });
      best.set(person, entry);
    } else if (scored.score >= MATCH_FLOOR) {
      if (previous.others === undefined) previous.others = [entry];
      else previous.others.push(entry);
    }
  }

  // The call (generation) in which each person was first reached through `alsoScore`.
  const reachedBy = new Int32Array(index.people.length);
  let reachedGeneration = 0;

  function scoreCandidates(
    q: QueryName,
    categories: ReadonlySet<CheckType>,
    best: Map<number, Scored>,
    alsoScore: ArrayLike<number> = NO_NAMES,
  ): void {
    touchedCount = 0;
    const tokenSerials = collectCandidates(q);
    let queryWeight = 0;
    for (const w of q.weights) queryWeight += w;
    const minEvidence = queryWeight * MIN_EVIDENCE_SHARE;
    wantedSlots.fill(0);
    for (const category of categories) wantedSlots[CATEGORY_SLOT[category]] = 1;
    shortCounts.fill(0);
    for (let t = 0; t < touchedCount; t++) {
      const nameId = touched[t];
      const a = acc[nameId];
      const slot = nameSlot[nameId];
      if (a >= minEvidence && wantedSlots[slot] === 1) shortlist(slot, nameId, a);
    }
    for (const category of categories) {
      const slot = CATEGORY_SLOT[category];
      for (let k = 0; k < shortCounts[slot]; k++)
        keepBest(q, shortlists[slot * SHORTLIST + k], tokenSerials, best);
    }
    // People the subject's other details single out (its date of birth) that token evidence did
    // not reach: scored however far their spelling is from the query's.
    const generation = ++reachedGeneration;
    for (let k = 0; k < alsoScore.length; k++) {
      const nameId = alsoScore[k];
      const person = index.namePerson[nameId];
      if (wantedSlots[nameSlot[nameId]] !== 1) continue;
      if (reachedBy[person] !== generation && best.has(person)) continue;
      if (!sharesAnInitial(q, nameId)) continue;
      reachedBy[person] = generation;
      keepBest(q, nameId, tokenSerials, best);
    }
    for (let t = 0; t < touchedCount; t++) {
      acc[touched[t]] = 0;
      credits[touched[t]] = 0;
      creditedBy[touched[t]] = -1;
    }
    touchedCount = 0;
  }

  return { queryName, scoreCandidates };
}

/** Shortest name part a run-together query token is split into. */
const MIN_SPLIT_PART = 3;

/**
 * Shortest query token that is tried as two or three name parts written as one: shorter unknown
 * tokens are more often a misspelt name than two names.
 */
const MIN_RUN_TOGETHER = 8;

/**
 * Query tokens that are no listed token nor a spelling of one, but two or three listed name parts
 * written as one
 * ("nayifhawatma", "muhammadhusaynfadlallah") are split into those parts, then tokenised again
 * (so particles and the "Abd al-" prefix are read as in any name). Renderings of other scripts
 * are not split: without written vowels, too many splits read as names. The split with the fewest
 * parts wins, then the one whose shortest part is longest.
 */
function splitRunTogether(
  index: NameIndex,
  tokens: NameToken[],
  nearListed: (token: NameToken) => boolean,
): NameToken[] {
  let out: NameToken[] | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const pieces =
      t.particle ||
      t.initial ||
      t.transliterated ||
      // A given name read from Han is one name joined on purpose ("jinping"), not two run together.
      t.readFromHan ||
      t.text.length < MIN_RUN_TOGETHER ||
      index.byText.has(t.text) ||
      nearListed(t)
        ? undefined
        : (splitInto(index, t.text, 2) ?? splitInto(index, t.text, 3));
    if (pieces) {
      out ??= tokens.slice(0, i);
      const parts = tokeniseName(pieces.join(' '));
      for (const p of parts) out.push(t.transliterated ? makeToken(p.text, p.particle, true) : p);
    } else if (out) out.push(t);
  }
  return out ?? tokens;
}

/** `text` as `count` listed name parts, each at least `MIN_SPLIT_PART` long, or undefined. */
function splitInto(index: NameIndex, text: string, count: number): string[] | undefined {
  if (count === 1) return index.byText.has(text) ? [text] : undefined;
  let best: string[] | undefined;
  let bestShortest = 0;
  for (let cut = MIN_SPLIT_PART; cut <= text.length - MIN_SPLIT_PART * (count - 1); cut++) {
    const head = text.slice(0, cut);
    if (!index.byText.has(head)) continue;
    const rest = splitInto(index, text.slice(cut), count - 1);
    if (!rest) continue;
    const shortest = Math.min(cut, ...rest.map((r) => r.length));
    if (shortest > bestShortest) {
      best = [head, ...rest];
      bestShortest = shortest;
    }
  }
  return best;
}

/** Rarity weight of a query token: its listed spelling's, a variant's, or unseen. */
function queryWeight(index: NameIndex, token: NameToken): number {
  if (token.particle) return PARTICLE_WEIGHT;
  if (token.initial) return INITIAL_WEIGHT;
  const exact = index.byText.get(token.text);
  if (exact !== undefined) return Math.max(...exact.map((id) => index.weights[id]));
  for (const v of token.variantKeys) {
    const ids = index.byVariant.get(v);
    if (ids && ids.length > 0) return index.weights[ids[0]];
  }
  return UNSEEN_TOKEN_WEIGHT;
}
