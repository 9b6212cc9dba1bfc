/**
 * The constants that decide a screen's result, gathered from the modules that use them (not
 * copied), so a screen's receipt can state the configuration it was matched with. Everything else
 * the matcher does is identified by its version (lib/matcher/version.ts).
 */
import { MIN_EVIDENCE_SHARE, OPENING_WEIGHT, SHORTLIST } from './candidates.ts';
import { MAX_MATCHES, SCORE_ADJUST } from './results.ts';
import { MATCH_FLOOR, PARTIAL_NAME, STRONG_NAME } from './risk.ts';
import {
  COMMON_GIVEN_WEIGHT,
  INITIAL_WEIGHT,
  MIN_TOKEN_WEIGHT,
  PARTICLE_WEIGHT,
  PATRONYMIC_WEIGHT,
  UNSEEN_TOKEN_WEIGHT,
} from './weights.ts';

export interface MatchingConstants {
  /** Matches returned per check type at most, best first. */
  max_matches_per_check: number;
  /** Name similarity bands (risk.ts): below `reporting_floor` a listed person is not reported. */
  name_bands: { strong: number; partial: number; reporting_floor: number };
  /** Candidate selection (candidates.ts): which listed names are scored in full. */
  candidates: { shortlist_per_check: number; min_evidence_share: number; opening_weight: number };
  /** Rarity weights of name tokens (weights.ts). */
  token_weights: {
    particle: number;
    initial: number;
    patronymic: number;
    min_token: number;
    common_given: number;
    unseen: number;
  };
  /** What a corroborating field adds to a match's score, by its status (orders matches, never decides the level). */
  corroboration_score_adjust: { matched: number; near: number; unknown: number; mismatched: number };
}

/** The constants in force in this build. */
export const MATCHING_CONSTANTS: MatchingConstants = {
  max_matches_per_check: MAX_MATCHES,
  name_bands: { strong: STRONG_NAME, partial: PARTIAL_NAME, reporting_floor: MATCH_FLOOR },
  candidates: {
    shortlist_per_check: SHORTLIST,
    min_evidence_share: MIN_EVIDENCE_SHARE,
    opening_weight: OPENING_WEIGHT,
  },
  token_weights: {
    particle: PARTICLE_WEIGHT,
    initial: INITIAL_WEIGHT,
    patronymic: PATRONYMIC_WEIGHT,
    min_token: MIN_TOKEN_WEIGHT,
    common_given: COMMON_GIVEN_WEIGHT,
    unseen: UNSEEN_TOKEN_WEIGHT,
  },
  corroboration_score_adjust: {
    matched: SCORE_ADJUST.matched,
    near: SCORE_ADJUST.near,
    unknown: SCORE_ADJUST.unknown,
    mismatched: SCORE_ADJUST.mismatched,
  },
};
