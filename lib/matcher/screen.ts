/**
 * The matcher's entry point: `createMatcher(snapshot)` compiles the index once (per cold start);
 * `matcher.screen(subject, types)` screens one subject synchronously and without side effects.
 *
 * Per request: tokenise the subject's name (and alias), select candidate names through the index
 * (shared or near-identical tokens, weighted by rarity), score a short list of the best
 * candidates per check type in full, let date of birth, nationality and location corroborate or
 * contradict, and map each match to a risk level (risk.ts).
 */

import { normaliseCountry } from '../watchlists/countries.ts';
import { PEP_TIER_LABELS } from '../watchlists/pep-tiers.ts';
import type { CheckType, ListSummary, WatchlistSnapshot } from '../watchlists/types.ts';
import { buildIndex, type IndexedPerson, lookupToken, type NameIndex } from './index.ts';
import { criminalNarrative, pepNarrative, sanctionsNarrative } from './narrative.ts';
import { makeToken, type NameToken, tokeniseName } from './normalise.ts';
import { matchRisk, nameBand, PARTIAL_NAME, STRONG_NAME } from './risk.ts';
import {
  compareCountry,
  compareDob,
  compareLocation,
  formatListedDob,
  type NameScore,
  scoreTokens,
  tokenSimilarity,
} from './score.ts';
import type {
  CriminalResult,
  FieldExplanation,
  FieldStatus,
  Match,
  PepResult,
  RiskLevel,
  SanctionsResult,
  ScreenChecks,
  SubjectInput,
} from './types.ts';
import { maxRisk, riskRank } from './types.ts';

export type { ScreenChecks, SubjectInput } from './types.ts';

/** At most this many matches are returned per check, best first. */
export const MAX_MATCHES = 10;
/** Candidate names scored in full per check type, picked by cheap token evidence. */
const SHORTLIST = 20;
/**
 * Candidates whose token evidence covers less than this share of the query's weight cannot reach
 * the reporting floor, so they are not scored in full.
 */
const MIN_EVIDENCE_SHARE = 0.3;
/** Query tokens rarer than this open new candidates; commoner ones only add evidence. */
const OPENING_WEIGHT = 0.5;
/** Vocabulary tokens less similar than this to a query token add no candidate evidence. */
const CANDIDATE_MIN_SIMILARITY = 0.75;
/**
 * Per listed token, subtracted once from a candidate's evidence: among names sharing the same
 * query tokens, those with fewer unexplained parts are scored first (family members listed
 * together share most name parts).
 */
const LENGTH_TIE_BREAK = 0.001;

export interface Matcher {
  /** The lists loaded, with their source dates (for narratives and /dbstatus). */
  lists: ListSummary[];
  /** Screens one subject against the requested check types. Synchronous and pure. */
  screen(subject: SubjectInput, types: readonly CheckType[]): ScreenChecks;
}

interface QueryName {
  input: 'name' | 'alias';
  tokens: NameToken[];
  weights: number[];
}

interface Scored {
  person: number;
  nameId: number;
  query: QueryName;
  name: NameScore;
}

/** Compiles the snapshot into an index and returns the matcher over it. */
export function createMatcher(snapshot: WatchlistSnapshot): Matcher {
  const index = buildIndex(snapshot);
  const vocabWeight = new Map<NameToken, number>();
  for (let id = 0; id < index.vocab.length; id++) vocabWeight.set(index.vocab[id], index.weights[id]);
  const nameTokens: NameToken[][] = index.names.map((n) => Array.from(n.tokens, (id) => index.vocab[id]));
  const nameCategory: CheckType[] = index.names.map((n) => index.people[n.person].category);
  const listsByCategory = new Map<CheckType, ListSummary[]>();
  for (const l of index.lists)
    listsByCategory.set(l.category, [...(listsByCategory.get(l.category) ?? []), l]);

  // Scratch buffers reused across calls; `screen` is synchronous, so calls never interleave.
  const acc = new Float64Array(index.names.length);
  const stamp = new Int32Array(index.names.length).fill(-1);
  const credits = new Uint8Array(index.names.length);
  const touched: number[] = [];
  let stampCounter = 0;

  function queryName(text: string, input: 'name' | 'alias'): QueryName | undefined {
    const tokens = tokeniseName(text);
    if (tokens.length === 0) return undefined;
    const weights = tokens.map((t) => queryWeight(index, t));
    return { input, tokens, weights };
  }

  /**
   * Accumulates token evidence per candidate name into `acc`: for each query token, the rarity
   * weight times the similarity of each plausible vocabulary token (memoised for scoring).
   */
  function collectCandidates(q: QueryName, memo: Map<number, number>[]): void {
    const order = q.tokens.map((_, i) => i).sort((a, b) => q.weights[b] - q.weights[a]);
    const vocabIds = new Set<number>();
    let opened = false;
    const seenTexts = new Set<string>();

    const qualifying = new Map<number, number>();
    const credit = (
      token: NameToken,
      weight: number,
      opening: boolean,
      memoOf?: Map<number, number>,
    ): void => {
      qualifying.clear();
      let postingsTotal = 0;
      for (const v of vocabIds) {
        const sim = tokenSimilarity(token, index.vocab[v]);
        memoOf?.set(v, sim);
        if (sim < CANDIDATE_MIN_SIMILARITY) continue;
        // Evidence is bounded by the query part's own rarity: a common query name meeting a rare
        // listed spelling ("Hamid" vs "Hamud") is still weak evidence.
        qualifying.set(v, Math.min(index.weights[v], weight) * sim);
        postingsTotal += index.postings[v].length;
      }
      if (qualifying.size === 0) return;
      opened = true;
      const s = stampCounter++;
      if (!opening && postingsTotal > touched.length * 4) {
        // A common part that may not open candidates: visit the few candidates instead of its
        // long posting lists.
        for (const nameId of touched) {
          if (credits[nameId] >= index.names[nameId].tokens.length) continue;
          let best = 0;
          for (const v of index.names[nameId].tokens) {
            const w = qualifying.get(v);
            if (w !== undefined && w > best) best = w;
          }
          if (best > 0) {
            credits[nameId]++;
            acc[nameId] += best;
          }
        }
        return;
      }
      for (const [v, w] of qualifying) {
        for (const nameId of index.postings[v]) {
          if (stamp[nameId] === s) continue;
          if (acc[nameId] === 0) {
            if (!opening) continue;
            touched.push(nameId);
          } else if (credits[nameId] >= index.names[nameId].tokens.length) {
            // Every listed part already credited: further query parts can only be extras.
            continue;
          }
          stamp[nameId] = s;
          credits[nameId]++;
          acc[nameId] += w - (acc[nameId] === 0 ? LENGTH_TIE_BREAK * index.names[nameId].tokens.length : 0);
        }
      }
    };

    for (const i of order) {
      const token = q.tokens[i];
      if (seenTexts.has(token.text)) continue;
      seenTexts.add(token.text);
      const opening = !opened || q.weights[i] >= OPENING_WEIGHT;
      vocabIds.clear();
      lookupToken(index, token, vocabIds);
      credit(token, q.weights[i], opening, memo[i]);
      // The query may split what the list writes as one word ("Adbul Bari" / "Abdulbari").
      const next = q.tokens[i + 1];
      if (next && !token.particle && !next.particle && !token.initial && !next.initial) {
        const joined = makeToken(token.text + next.text);
        vocabIds.clear();
        lookupToken(index, joined, vocabIds);
        credit(joined, q.weights[i] + q.weights[i + 1], opening);
      }
    }
  }

  function shortlist(category: CheckType, minEvidence: number): number[] {
    const top: number[] = [];
    for (const nameId of touched) {
      const a = acc[nameId];
      if (a < minEvidence) continue;
      if (nameCategory[nameId] !== category) continue;
      if (top.length === SHORTLIST && a <= acc[top[SHORTLIST - 1]]) continue;
      let k = top.length < SHORTLIST ? top.length : SHORTLIST - 1;
      while (k > 0 && acc[top[k - 1]] < a) {
        top[k] = top[k - 1];
        k--;
      }
      top[k] = nameId;
    }
    return top;
  }

  function scoreName(q: QueryName, nameId: number, memo: Map<number, number>[]): NameScore {
    const listed = nameTokens[nameId];
    const ids = index.names[nameId].tokens;
    const weightOf = (t: NameToken) => vocabWeight.get(t) ?? q.weights[q.tokens.indexOf(t)] ?? 1;
    return scoreTokens(q.tokens, listed, weightOf, (i, j) => {
      const id = ids[j];
      let s = memo[i].get(id);
      if (s === undefined) {
        s = tokenSimilarity(q.tokens[i], listed[j]);
        memo[i].set(id, s);
      }
      return s;
    });
  }

  function screen(subject: SubjectInput, types: readonly CheckType[]): ScreenChecks {
    const queries = [queryName(subject.name, 'name')];
    if (subject.alias && subject.alias.trim() !== '') queries.push(queryName(subject.alias, 'alias'));
    const requested = new Set(types);
    const best = new Map<number, Scored>();
    for (const q of queries) {
      if (!q) continue;
      touched.length = 0;
      const memo = q.tokens.map(() => new Map<number, number>());
      collectCandidates(q, memo);
      let queryWeight = 0;
      for (const w of q.weights) queryWeight += w;
      for (const category of requested) {
        for (const nameId of shortlist(category, queryWeight * MIN_EVIDENCE_SHARE)) {
          const scored = scoreName(q, nameId, memo);
          const person = index.names[nameId].person;
          const previous = best.get(person);
          if (!previous || scored.score > previous.name.score)
            best.set(person, { person, nameId, query: q, name: scored });
        }
      }
      for (const nameId of touched) {
        acc[nameId] = 0;
        credits[nameId] = 0;
      }
    }
    touched.length = 0;

    const nationalityCountry = normaliseCountry(subject.nationality);
    const locationCountry = normaliseCountry(subject.location);
    const byCategory: Record<CheckType, Match[]> = { sanctions: [], pep: [], criminal: [] };
    for (const s of best.values()) {
      const m = toMatch(index, s, subject, nationalityCountry, locationCountry);
      if (m) byCategory[index.people[s.person].category].push(m.match);
    }
    for (const list of Object.values(byCategory)) {
      list.sort((a, b) => riskRank(b.risk_level) - riskRank(a.risk_level) || b.score - a.score);
      list.splice(MAX_MATCHES);
    }

    const sanctions_result = requested.has('sanctions')
      ? sanctionsResult(byCategory.sanctions, listsByCategory.get('sanctions') ?? [])
      : null;
    const pep_result = requested.has('pep')
      ? pepResult(byCategory.pep, listsByCategory.get('pep') ?? [])
      : null;
    const criminal_result = requested.has('criminal')
      ? criminalResult(byCategory.criminal, listsByCategory.get('criminal') ?? [])
      : null;
    const risk_level = maxRisk(
      [sanctions_result, pep_result, criminal_result].flatMap((r) => (r ? [r.risk_level] : [])),
    );
    return { risk_level, sanctions_result, pep_result, criminal_result };
  }

  return { lists: index.lists, screen };
}

function queryWeight(index: NameIndex, token: NameToken): number {
  if (token.particle) return 0.1;
  if (token.initial) return 0.35;
  const exact = index.byText.get(token.text);
  if (exact !== undefined) return Math.max(...exact.map((id) => index.weights[id]));
  for (const v of token.variantKeys) {
    const ids = index.byVariant.get(v);
    if (ids && ids.length > 0) return index.weights[ids[0]];
  }
  return 1;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

const SCORE_ADJUST: Record<FieldStatus, number> = {
  matched: 0.05,
  near: 0.02,
  unknown: 0,
  mismatched: -0.15,
};

function nameExplanation(s: Scored, displayName: string, weakAlias: boolean): FieldExplanation {
  const score = s.name.score;
  const aligned = s.name.pairs
    .map((p) => (p.similarity >= 0.999 ? p.query : `${p.query}≈${p.listed}`))
    .join(', ');
  const missing =
    s.name.unmatchedQuery.length > 0 ? `; not on the listed name: ${s.name.unmatchedQuery.join(', ')}` : '';
  const input = s.query.input === 'alias' ? 'alias' : 'name';
  const quality = weakAlias ? ' (low-quality alias)' : '';
  const detail = `${input} matches "${displayName}"${quality} with similarity ${score.toFixed(3)} (${aligned || 'no aligned parts'}${missing})`;
  const status: FieldStatus =
    score >= STRONG_NAME && !weakAlias ? 'matched' : score >= PARTIAL_NAME ? 'near' : 'near';
  return { status, detail };
}

function toMatch(
  index: NameIndex,
  s: Scored,
  subject: SubjectInput,
  nationalityCountry: string | undefined,
  locationCountry: string | undefined,
): { match: Match } | undefined {
  const indexed: IndexedPerson = index.people[s.person];
  const listedName = index.names[s.nameId];
  const weakAlias = listedName.strength === 'weak';
  const band = nameBand(s.name.score, weakAlias);
  if (!band) return undefined;
  const person = indexed.person;
  const dob = compareDob(subject.dob, person.dobs);
  const nationality = compareCountry(
    subject.nationality,
    nationalityCountry,
    indexed.nationalities,
    'nationality',
  );
  const location = compareLocation(
    subject.location,
    locationCountry,
    person.locations,
    indexed.locationCountries,
  );
  const risk_level: RiskLevel = matchRisk({
    check: indexed.category,
    band,
    dob: dob.status,
    nationality: nationality.status,
    tier: person.pep?.tier,
  });
  const adjusted =
    s.name.score +
    SCORE_ADJUST[dob.status] +
    SCORE_ADJUST[nationality.status] / 2 +
    SCORE_ADJUST[location.status] / 5;
  const match: Match = {
    list_id: person.list_id,
    list_name: indexed.listName,
    entity_id: person.entity_id,
    primary_name: person.primary_name,
    matched_name: listedName.display,
    matched_input: s.query.input,
    score: round3(Math.min(1, Math.max(0, adjusted))),
    name_score: round3(s.name.score),
    risk_level,
    dobs: person.dobs.map(formatListedDob),
    nationalities: person.nationalities,
    programmes: person.programmes,
    explanation: { name: nameExplanation(s, listedName.display, weakAlias), dob, nationality, location },
  };
  if (person.url) match.url = person.url;
  if (person.pep) {
    match.pep = {
      tier: person.pep.tier,
      tier_label: PEP_TIER_LABELS[person.pep.tier] ?? `Tier ${person.pep.tier}`,
      category: person.pep.category,
      position: person.pep.position,
    };
  }
  return { match };
}

function sanctionsResult(matches: Match[], lists: ListSummary[]): SanctionsResult {
  const risk_level = maxRisk(matches.map((m) => m.risk_level));
  return {
    risk_level,
    is_sanctioned: riskRank(risk_level) >= riskRank('HIGH'),
    matches,
    narrative: sanctionsNarrative(risk_level, matches, lists),
  };
}

function pepResult(matches: Match[], lists: ListSummary[]): PepResult {
  const risk_level = maxRisk(matches.map((m) => m.risk_level));
  const isPep = riskRank(risk_level) >= riskRank('MEDIUM');
  const best = isPep ? matches[0]?.pep : undefined;
  return {
    risk_level,
    is_pep: isPep,
    tier: best?.tier ?? null,
    tier_label: best?.tier_label ?? null,
    category: best?.category ?? null,
    narrative: pepNarrative(risk_level, matches, lists),
    matches,
  };
}

function criminalResult(matches: Match[], lists: ListSummary[]): CriminalResult {
  const risk_level = maxRisk(matches.map((m) => m.risk_level));
  return {
    risk_level,
    interpol_hits: matches.filter((m) => m.list_id === 'interpol_red'),
    fbi_hits: matches.filter((m) => m.list_id === 'fbi_wanted'),
    narrative: criminalNarrative(risk_level, matches, lists),
  };
}
