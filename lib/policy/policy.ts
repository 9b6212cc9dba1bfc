import * as v from 'valibot';
import { strictBody } from '../common/fields.ts';
import {
  type CriminalResult,
  type Match,
  maxRisk,
  type PepResult,
  RISK_ORDER,
  type RiskLevel,
  riskRank,
  type SanctionsResult,
  type ScreenChecks,
} from '../matcher/types.ts';
import { CHECK_TYPES, type CheckType, LIST_IDS, type ListId } from '../watchlists/types.ts';

/**
 * A tenant's screening policy (issue 40, docs/policies.md): what its screens run by default, how a
 * match's level is banded, which decisions need a second person, its retention defaults and its
 * queue's targets. Versioned: a tenant's policy changes only by adopting a new version (a proposal,
 * replayed on its history first), never in place, and every screen's receipt names the version it
 * was made under, so a replay applies that version.
 *
 * Version 0 is the service's own policy, the one every tenant had before policies existed: it
 * changes nothing the matcher answers and asks for no approval, so a tenant that never adopts a
 * policy screens and decides exactly as the contract says.
 */

/** The lists of the sanctions check: a tenant policy can never stop screening them. */
export const SANCTIONS_LISTS: readonly ListId[] = [
  'ofac_sdn',
  'un_sc',
  'uk_ofsi',
  'uk_fcdo',
  'eu_fsf',
  'ofac_cons',
  'ca_sema',
  'au_dfat',
  'nz_russia',
];

export const PEP_TIERS = [1, 2, 3] as const;

/** The levels a match can have (never CLEAR: CLEAR is the level of a check without matches). */
const MATCH_LEVELS = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const satisfies readonly RiskLevel[];
type MatchLevel = (typeof MATCH_LEVELS)[number];

const matchLevel = v.picklist(MATCH_LEVELS, 'must be LOW, MEDIUM, HIGH or CRITICAL');
const levels = v.pipe(
  v.array(v.picklist(RISK_ORDER, 'must be CLEAR, LOW, MEDIUM, HIGH or CRITICAL')),
  v.maxLength(RISK_ORDER.length),
);

/** For one check type: the level a match takes for each level the matcher gives it. */
const BandSchema = v.strictObject({
  LOW: matchLevel,
  MEDIUM: matchLevel,
  HIGH: matchLevel,
  CRITICAL: matchLevel,
});
export type RiskBand = v.InferOutput<typeof BandSchema>;

const slaHours = v.nullable(
  v.pipe(
    v.number('must be a number of hours, or null'),
    v.integer('must be whole hours'),
    v.minValue(1),
    v.maxValue(24 * 365),
  ),
);

/** The policy a tenant adopts (the body of a proposal, and of a version once adopted). */
export const PolicyBodySchema = strictBody({
  screening: v.strictObject({
    /** The check types a screen runs when the request names none. */
    default_types: v.pipe(
      v.array(v.picklist(CHECK_TYPES, 'must be sanctions, pep or criminal')),
      v.minLength(1, 'must name at least one check type'),
    ),
    /** Lists whose matches the tenant does not screen (never a sanctions list). */
    excluded_lists: v.array(v.picklist(LIST_IDS, 'must be a list id (GET /dbstatus)')),
    /** The PEP tiers screened (1: in office; 2: left within 5 years; 3: earlier). */
    pep_tiers: v.pipe(v.array(v.picklist(PEP_TIERS, 'must be 1, 2 or 3')), v.minLength(1)),
  }),
  risk_bands: v.strictObject({ sanctions: BandSchema, pep: BandSchema, criminal: BandSchema }),
  approval: v.strictObject({
    /** Screen levels at which a `false_positive` needs an admin's sign-off. */
    false_positive: levels,
    /** Screen levels at which `cleared` needs an admin's sign-off. */
    cleared: levels,
    /** Deleting a decided screen: a reason, and another admin's approval. */
    delete_decided: v.strictObject({ reason_required: v.boolean(), approval_required: v.boolean() }),
  }),
  retention: v.strictObject({
    /** Days a decided screen is locked against deletion after its last decision; null: not locked. */
    decided_lock_days: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(3650))),
  }),
  /** Hours within which a pending screen of each level should be decided (the queue's targets). */
  queue_sla_hours: v.strictObject({
    CRITICAL: slaHours,
    HIGH: slaHours,
    MEDIUM: slaHours,
    LOW: slaHours,
    CLEAR: slaHours,
  }),
});
export type PolicyBody = v.InferOutput<typeof PolicyBodySchema>;

const identityBand: RiskBand = { LOW: 'LOW', MEDIUM: 'MEDIUM', HIGH: 'HIGH', CRITICAL: 'CRITICAL' };

/** Version 0: the service's policy, today's behaviour (nothing changed, no approval required). */
export const SERVICE_POLICY: PolicyBody = {
  screening: { default_types: [...CHECK_TYPES], excluded_lists: [], pep_tiers: [...PEP_TIERS] },
  risk_bands: { sanctions: identityBand, pep: identityBand, criminal: identityBand },
  approval: {
    false_positive: [],
    cleared: [],
    delete_decided: { reason_required: false, approval_required: false },
  },
  retention: { decided_lock_days: null },
  queue_sla_hours: { CRITICAL: null, HIGH: null, MEDIUM: null, LOW: null, CLEAR: null },
};

/**
 * The policy a tenant created from now on starts with (version 1): the service's screening and
 * bands, a second person for clearing HIGH and CRITICAL hits, decided screens locked five years
 * (the usual AML record-keeping period), and queue targets by level.
 */
export const NEW_TENANT_POLICY: PolicyBody = {
  ...SERVICE_POLICY,
  approval: {
    false_positive: ['HIGH', 'CRITICAL'],
    cleared: ['HIGH', 'CRITICAL'],
    delete_decided: { reason_required: true, approval_required: true },
  },
  retention: { decided_lock_days: 1825 },
  queue_sla_hours: { CRITICAL: 4, HIGH: 24, MEDIUM: 72, LOW: 168, CLEAR: null },
};

/**
 * What the service will not let a policy do, each named (empty: within bounds):
 * - stop screening a sanctions list, or leave sanctions out of the default checks;
 * - band a match lower than one level below the matcher's, or a HIGH or CRITICAL sanctions match
 *   lower at all (a strong sanctions match is never made MEDIUM or LOW);
 * - band a weaker match above a stronger one of the same check (bands keep the matcher's order).
 */
export function boundsProblems(policy: PolicyBody): string[] {
  const problems: string[] = [];
  for (const list of policy.screening.excluded_lists) {
    if (SANCTIONS_LISTS.includes(list))
      problems.push(
        `screening.excluded_lists: ${list} is a sanctions list; sanctions lists are always screened`,
      );
  }
  if (!policy.screening.default_types.includes('sanctions')) {
    problems.push('screening.default_types: must include sanctions');
  }
  for (const check of CHECK_TYPES) {
    const band = policy.risk_bands[check];
    let previous = 0;
    for (const given of MATCH_LEVELS) {
      const banded = band[given];
      const floor =
        check === 'sanctions' && riskRank(given) >= riskRank('HIGH') ? riskRank(given) : riskRank(given) - 1;
      if (riskRank(banded) < floor) {
        problems.push(
          `risk_bands.${check}.${given}: ${banded} is below what the service allows (${RISK_ORDER[floor]} at the lowest${check === 'sanctions' && floor >= riskRank('HIGH') ? ': a strong sanctions match is never lowered' : ''})`,
        );
      }
      if (riskRank(banded) < previous) {
        problems.push(`risk_bands.${check}.${given}: ${banded} is below the band of a weaker match`);
      }
      previous = Math.max(previous, riskRank(banded));
    }
  }
  return problems;
}

type Checks = Pick<ScreenChecks, 'risk_level' | 'sanctions_result' | 'pep_result' | 'criminal_result'>;

const bandOf = (band: RiskBand, match: Match): RiskLevel =>
  match.risk_level === 'CLEAR' ? match.risk_level : band[match.risk_level as MatchLevel];

const ordered = (matches: Match[]) =>
  matches.sort((a, b) => riskRank(b.risk_level) - riskRank(a.risk_level) || b.score - a.score);

function note(policyVersion: number, dropped: number, rebanded: number): string {
  const parts = [
    dropped > 0
      ? `${dropped} match${dropped === 1 ? '' : 'es'} on lists or PEP tiers the tenant does not screen not shown`
      : '',
    rebanded > 0 ? `${rebanded} match${rebanded === 1 ? '' : 'es'} banded by the tenant's risk bands` : '',
  ].filter(Boolean);
  return ` Tenant policy version ${policyVersion}: ${parts.join('; ')}.`;
}

/**
 * The checks as the tenant's policy shows them: matches on lists (or PEP tiers) it does not
 * screen left out, each match's level banded, each check's level and flags and the screen's
 * recomputed. Pure; a copy. Under a policy that changes nothing (version 0), the checks come back
 * as they are.
 */
export function applyPolicy<T extends Checks>(checks: T, policy: PolicyBody, policyVersion: number): T {
  const excluded = new Set<string>(policy.screening.excluded_lists);
  const tiers = new Set<number>(policy.screening.pep_tiers);
  const out = structuredClone(checks);
  const shape = (matches: Match[], check: CheckType) => {
    const kept = matches.filter(
      (match) =>
        check === 'sanctions' || (!excluded.has(match.list_id) && (!match.pep || tiers.has(match.pep.tier))),
    );
    let rebanded = 0;
    for (const match of kept) {
      const banded = bandOf(policy.risk_bands[check], match);
      if (banded !== match.risk_level) {
        match.risk_level = banded;
        rebanded += 1;
      }
    }
    return { kept: ordered(kept), dropped: matches.length - kept.length, rebanded };
  };
  const counted = <R extends { total?: number }>(result: R, dropped: number): R =>
    result.total === undefined ? result : { ...result, total: result.total - dropped };
  if (out.sanctions_result) {
    const { kept, dropped, rebanded } = shape(out.sanctions_result.matches, 'sanctions');
    if (dropped + rebanded > 0) {
      const level = maxRisk(kept.map((match) => match.risk_level));
      out.sanctions_result = counted<SanctionsResult>(
        {
          ...out.sanctions_result,
          matches: kept,
          risk_level: level,
          is_sanctioned: riskRank(level) >= riskRank('HIGH'),
          narrative: out.sanctions_result.narrative + note(policyVersion, dropped, rebanded),
        },
        dropped,
      );
    }
  }
  if (out.pep_result) {
    const { kept, dropped, rebanded } = shape(out.pep_result.matches, 'pep');
    if (dropped + rebanded > 0) {
      const level = maxRisk(kept.map((match) => match.risk_level));
      const isPep = riskRank(level) >= riskRank('MEDIUM');
      const best = isPep ? kept[0]?.pep : undefined;
      out.pep_result = counted<PepResult>(
        {
          ...out.pep_result,
          matches: kept,
          risk_level: level,
          is_pep: isPep,
          tier: best?.tier ?? null,
          tier_label: best?.tier_label ?? null,
          category: best?.category ?? null,
          narrative: out.pep_result.narrative + note(policyVersion, dropped, rebanded),
        },
        dropped,
      );
    }
  }
  if (out.criminal_result) {
    const all = [...out.criminal_result.interpol_hits, ...out.criminal_result.fbi_hits];
    const { kept, dropped, rebanded } = shape(all, 'criminal');
    if (dropped + rebanded > 0) {
      out.criminal_result = counted<CriminalResult>(
        {
          ...out.criminal_result,
          interpol_hits: kept.filter((match) => match.list_id === 'interpol_red'),
          fbi_hits: kept.filter((match) => match.list_id === 'fbi_wanted'),
          risk_level: maxRisk(kept.map((match) => match.risk_level)),
          narrative: out.criminal_result.narrative + note(policyVersion, dropped, rebanded),
        },
        dropped,
      );
    }
  }
  out.risk_level = maxRisk(
    [out.sanctions_result, out.pep_result, out.criminal_result].flatMap((result) =>
      result ? [result.risk_level] : [],
    ),
  );
  return out;
}

/** Whether a decision needs an admin's sign-off under the policy: the rule that asks for it, or undefined. */
export function approvalRuleFor(
  policy: PolicyBody,
  disposition: string,
  screenLevel: RiskLevel,
): 'false_positive' | 'cleared' | undefined {
  if (disposition === 'false_positive' && policy.approval.false_positive.includes(screenLevel))
    return 'false_positive';
  if (disposition === 'cleared' && policy.approval.cleared.includes(screenLevel)) return 'cleared';
  return undefined;
}
