/**
 * Risk rules: how a match's name strength and corroborating fields map to the risk levels
 * (CRITICAL, HIGH, MEDIUM, LOW, CLEAR), per check type. The same table is in eval/RISK_LEVELS.md and the README.
 *
 * Name bands (name similarity, 0..1, after normalisation and rarity weighting):
 * - strong: ≥ 0.90; partial: ≥ 0.80; weak: ≥ 0.70. Below 0.70 a listed person is not reported.
 * - A match through a low-quality alias (UN "Low", OFSI "Low quality") is at most `partial`:
 *   such aliases are short, generic nicknames that many unrelated people share.
 *
 * Sanctions (`CRITICAL` means "confirmed": it needs the date of birth to corroborate the name):
 *
 * | name \ DOB | matched  | near (±1 day/month/year) | unknown | mismatched |
 * |------------|----------|--------------------------|---------|------------|
 * | strong     | CRITICAL | HIGH                     | HIGH    | LOW        |
 * | partial    | HIGH     | MEDIUM                   | MEDIUM  | LOW        |
 * | weak       | MEDIUM   | LOW                      | LOW     | LOW        |
 *
 * (results.ts passes "near" for a weak name whose date of birth matched only one of several
 * listed years or a range of years: such a date does not lift a weak name to MEDIUM.)
 *
 * The band is the name's after the rules of results.ts `nameVerdict` (docs/lists-and-matching.md):
 * among them, without a matching date of birth two name parts not both rare are at most partial,
 * so a bare "given name + surname" is MEDIUM, not HIGH.
 *
 * Criminal (INTERPOL red notices, FBI wanted): the sanctions table capped at `HIGH` — a wanted
 * notice is an allegation requiring review, never a prohibition.
 *
 * PEP (tier 1 = in office; 2 = left office within 5 years; 3 = earlier):
 *
 * | name \ DOB                 | matched, near or unknown | mismatched |
 * |----------------------------|--------------------------|------------|
 * | strong, tier 1             | HIGH                     | LOW        |
 * | strong, tier 2+            | MEDIUM                   | LOW        |
 * | partial, tier 1            | MEDIUM (HIGH if DOB matched) | LOW    |
 * | partial, tier 2+           | LOW (MEDIUM if DOB matched)  | LOW    |
 * | weak                       | LOW                      | LOW        |
 *
 * All check types: a contradicting nationality lowers the level by one step (CRITICAL → HIGH,
 * HIGH → MEDIUM, MEDIUM → LOW), never below LOW — nationalities change and lists are incomplete,
 * so it weakens a match but does not dismiss it. A contradicting date of birth always gives LOW:
 * "likely a different person", still shown so an analyst can see why it was dismissed.
 *
 * A check's level is its highest match level; `CLEAR` when no listed person reaches the weak band.
 */

import type { CheckType } from '../watchlists/types.ts';
import type { FieldStatus, RiskLevel } from './types.ts';
import { RISK_ORDER, riskRank } from './types.ts';

export const STRONG_NAME = 0.9;
export const PARTIAL_NAME = 0.8;
/** The LOW floor: listed persons whose name similarity is below it are not reported at all. */
export const MATCH_FLOOR = 0.7;

export type NameBand = 'strong' | 'partial' | 'weak';

export function nameBand(score: number, weakAlias: boolean): NameBand | undefined {
  if (score < MATCH_FLOOR) return undefined;
  if (score >= STRONG_NAME && !weakAlias) return 'strong';
  if (score >= PARTIAL_NAME) return 'partial';
  return 'weak';
}

export interface RiskInput {
  check: CheckType;
  band: NameBand;
  dob: FieldStatus;
  nationality: FieldStatus;
  /** PEP tier of the listed person (PEP checks only). */
  tier?: number;
  /**
   * In office on the PEP data's date (PEP checks only): the "tier 1" rows of the table. Lists
   * without the flag fall back to `tier === 1`.
   */
  current?: boolean;
}

const SANCTIONS_TABLE: Record<NameBand, Record<Exclude<FieldStatus, 'mismatched'>, RiskLevel>> = {
  strong: { matched: 'CRITICAL', near: 'HIGH', unknown: 'HIGH' },
  partial: { matched: 'HIGH', near: 'MEDIUM', unknown: 'MEDIUM' },
  weak: { matched: 'MEDIUM', near: 'LOW', unknown: 'LOW' },
};

function pepLevel(band: NameBand, dob: FieldStatus, tierOne: boolean): RiskLevel {
  if (band === 'strong') return tierOne ? 'HIGH' : 'MEDIUM';
  if (band === 'partial') {
    if (dob === 'matched') return tierOne ? 'HIGH' : 'MEDIUM';
    return tierOne ? 'MEDIUM' : 'LOW';
  }
  return 'LOW';
}

function stepDown(level: RiskLevel): RiskLevel {
  const rank = riskRank(level);
  return rank <= riskRank('LOW') ? level : RISK_ORDER[rank - 1];
}

/** Risk level of one match under the rule table above. */
export function matchRisk(input: RiskInput): RiskLevel {
  // A different date of birth is the strongest sign of a namesake: dismiss to LOW, but keep it
  // visible so the analyst sees which listing was considered and why it was set aside.
  if (input.dob === 'mismatched') return 'LOW';
  let level: RiskLevel;
  if (input.check === 'pep') {
    level = pepLevel(input.band, input.dob, input.current ?? (input.tier ?? 3) <= 1);
  } else {
    level = SANCTIONS_TABLE[input.band][input.dob];
    if (input.check === 'criminal' && level === 'CRITICAL') level = 'HIGH';
  }
  if (input.nationality === 'mismatched') level = stepDown(level);
  return level;
}
