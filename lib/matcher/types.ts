/**
 * Result shapes of the matcher: what `Matcher.screen` returns and the screening use case stores
 * and serves as `sanctions_result`, `pep_result` and `criminal_result` (see
 * docs/api-decisions.md#the-screen-object).
 */

import type { CheckType, ListId, Listing } from '../watchlists/types.ts';

export type RiskLevel = 'CRITICAL' | 'HIGH' | 'MEDIUM' | 'LOW' | 'CLEAR';

/** Risk levels from least to most severe; index = rank. */
export const RISK_ORDER: readonly RiskLevel[] = ['CLEAR', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];

export function riskRank(level: RiskLevel): number {
  return RISK_ORDER.indexOf(level);
}

export function maxRisk(levels: Iterable<RiskLevel>): RiskLevel {
  let best: RiskLevel = 'CLEAR';
  for (const l of levels) if (riskRank(l) > riskRank(best)) best = l;
  return best;
}

/**
 * `matched`: the field agrees. `near`: off by one day, month or year (name: a partial match).
 * `mismatched`: the field contradicts the listing. `unknown`: one side does not state it.
 */
export type FieldStatus = 'matched' | 'near' | 'mismatched' | 'unknown';

export interface FieldExplanation {
  status: FieldStatus;
  /** Short human-readable reason, shown to analysts. */
  detail: string;
}

export interface MatchExplanation {
  name: FieldExplanation;
  dob: FieldExplanation;
  nationality: FieldExplanation;
  location: FieldExplanation;
}

/** One listed person the subject resembles. */
export interface Match {
  list_id: ListId;
  list_name: string;
  entity_id: string;
  primary_name: string;
  /** The listed name or alias that matched best. */
  matched_name: string;
  /** Which subject name matched: the `name` or the `alias` given. */
  matched_input: 'name' | 'alias';
  /** 0..1, three decimals: name similarity adjusted by date of birth and nationality. */
  score: number;
  /** Name similarity alone, 0..1, three decimals. */
  name_score: number;
  risk_level: RiskLevel;
  /** Listed dates of birth as strings (YYYY-MM-DD, YYYY-MM, YYYY or YYYY–YYYY). */
  dobs: string[];
  nationalities: string[];
  /** Sanctions programmes or regimes; charges and poster subjects for criminal lists. */
  programmes: string[];
  explanation: MatchExplanation;
  url?: string;
  /**
   * Every listing of the matched person, the one above (`list_id`, `entity_id`) first: one entry
   * when the person is on one list, several when listings on several lists were linked into one
   * person (README, one match per person).
   */
  listings: MatchListing[];
  /** PEP lists only. `current`: in office on the PEP data's date. */
  pep?: { tier: number; tier_label: string; category: string; position: string; current: boolean };
}

/** One list's listing of a matched person. */
export interface MatchListing extends Listing {
  list_name: string;
}

/**
 * How many listed people matched the check before its matches were cut to the best MAX_MATCHES
 * (lib/matcher/results.ts), and whether they were. Absent on results stored before it was
 * recorded (the Screen then says null where it cannot tell: lib/screening/screen-record.ts).
 */
export interface MatchCount {
  total: number;
  truncated: boolean;
}

export interface SanctionsResult extends Partial<MatchCount> {
  risk_level: RiskLevel;
  /** True at HIGH or CRITICAL: a match strong enough to stop dealings until reviewed. */
  is_sanctioned: boolean;
  matches: Match[];
  narrative: string;
}

export interface PepResult extends Partial<MatchCount> {
  risk_level: RiskLevel;
  /** True at MEDIUM or above. */
  is_pep: boolean;
  /** Tier of the best PEP match (1 = in office), null when not a PEP. */
  tier: number | null;
  tier_label: string | null;
  /** snake_case category of the best PEP match, null when not a PEP. */
  category: string | null;
  narrative: string;
  matches: Match[];
}

export interface CriminalResult extends Partial<MatchCount> {
  risk_level: RiskLevel;
  interpol_hits: Match[];
  fbi_hits: Match[];
  narrative: string;
}

export interface SubjectInput {
  name: string;
  /** YYYY-MM-DD (YYYY-MM and YYYY are accepted too). */
  dob?: string;
  nationality?: string;
  location?: string;
  alias?: string;
}

export interface ScreenChecks {
  /** Highest level over the checks performed; CLEAR when nothing matched. */
  risk_level: RiskLevel;
  /** null when the check was excluded through `types`. */
  sanctions_result: SanctionsResult | null;
  pep_result: PepResult | null;
  criminal_result: CriminalResult | null;
}

export type { CheckType };
