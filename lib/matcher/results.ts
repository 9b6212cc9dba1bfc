/**
 * Result building: each best-scoring listed person becomes a match (name band, date of birth,
 * nationality and location compared, risk level, adjusted score, explanation), and the matches
 * of each check type become its result with a narrative.
 */

import { normaliseCountry } from '../watchlists/countries.ts';
import { PEP_TIER_LABELS } from '../watchlists/pep-tiers.ts';
import type { CheckType, ListSummary } from '../watchlists/types.ts';
import type { Scored } from './candidates.ts';
import { compareCountry, compareDob, compareLocation, formatListedDob } from './corroboration.ts';
import { type IndexedPerson, listedNameOf, type NameIndex } from './name-index.ts';
import { criminalNarrative, pepNarrative, sanctionsNarrative } from './narrative.ts';
import { matchRisk, nameBand, PARTIAL_NAME, STRONG_NAME } from './risk.ts';
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

/** At most this many matches are returned per check, best first. */
export const MAX_MATCHES = 10;

/**
 * Builds the screen's checks from the best-scoring name of each listed person: matches per check
 * type, best first, and a result (with narrative) for each requested check type.
 */
export function buildChecks(
  index: NameIndex,
  best: Iterable<Scored>,
  subject: SubjectInput,
  requested: ReadonlySet<CheckType>,
  listsByCategory: ReadonlyMap<CheckType, ListSummary[]>,
): ScreenChecks {
  const nationalityCountry = normaliseCountry(subject.nationality);
  const locationCountry = normaliseCountry(subject.location);
  const byCategory: Record<CheckType, Match[]> = { sanctions: [], pep: [], criminal: [] };
  for (const s of best) {
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

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * What each corroborating field adds to a match's score (date of birth in full, nationality at
 * half, location at a fifth): orders matches of one risk level, never decides the level.
 */
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
  const listedName = listedNameOf(index, s.nameId);
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
    matched_name: listedName.name,
    matched_input: s.query.input,
    score: round3(Math.min(1, Math.max(0, adjusted))),
    name_score: round3(s.name.score),
    risk_level,
    dobs: person.dobs.map(formatListedDob),
    nationalities: person.nationalities,
    programmes: person.programmes,
    explanation: { name: nameExplanation(s, listedName.name, weakAlias), dob, nationality, location },
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
