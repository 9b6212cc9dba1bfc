import * as v from 'valibot';
import { PROPOSAL_ID_PATTERN } from '../../common/ids.ts';
import { RISK_ORDER } from '../../matcher/types.ts';
import { ROLES } from '../../tenancy/roles.ts';
import { CHECK_TYPES, LIST_IDS } from '../../watchlists/types.ts';
import { cursor, riskLevel, SubjectSchema, screenId, timestamp } from './fields.ts';

/** Responses of the tenant tuning routes (docs/policies.md). */

const decider = v.strictObject({ user_id: v.string(), role: v.picklist([...ROLES, 'system']) });

/** On a match of an ad-hoc screen: decided false positive for the same subject before. */
export const DecidedFalsePositiveMarkSchema = v.pipe(
  v.strictObject({
    memory_id: v.string(),
    applies: v.pipe(
      v.boolean(),
      v.description(
        'True: the decision holds and the match counts as LOW; false: the listing or the match changed materially since (see `changes`) and the match counts at its own level',
      ),
    ),
    screen_id: screenId,
    link: v.pipe(v.string(), v.description('GET this path for the screen the decision was made on')),
    decided_by: decider,
    decided_at: timestamp,
    approved_by: v.nullable(decider),
    changes: v.pipe(
      v.array(v.string()),
      v.description(
        'What changed in the listing since the decision: the material changes that reopened it, else cosmetic ones',
      ),
    ),
  }),
  v.description(
    'The match was decided false positive for this subject before (GET /settings/false-positives)',
  ),
);

const rememberedEntries = {
  memory_id: v.string(),
  subject: SubjectSchema,
  list_id: v.string(),
  entity_id: v.string(),
  primary_name: v.string(),
  risk_level: v.picklist(RISK_ORDER),
  screen_id: screenId,
  decision_version: v.nullable(v.number()),
  decided_by: decider,
  decided_at: timestamp,
  approved_by: v.nullable(decider),
  remembered_at: timestamp,
};

export const RememberedFalsePositivePageSchema = v.strictObject({
  false_positives: v.array(v.strictObject(rememberedEntries)),
  next_cursor: cursor,
});

export const FalsePositiveRevokedSchema = v.strictObject({ memory_id: v.string(), revoked: v.literal(true) });

const actor = v.strictObject({ user_id: v.string(), role: v.picklist([...ROLES, 'ops', 'system']) });

const band = v.strictObject({ LOW: riskLevel, MEDIUM: riskLevel, HIGH: riskLevel, CRITICAL: riskLevel });
const hours = v.nullable(v.number());

/** A policy body as the API shows it (lib/policy/policy.ts `PolicyBodySchema`; docs/policies.md). */
export const PolicyBodyViewSchema = v.strictObject({
  screening: v.strictObject({
    default_types: v.pipe(
      v.array(v.picklist(CHECK_TYPES)),
      v.description('Check types run when a request names none'),
    ),
    excluded_lists: v.pipe(
      v.array(v.picklist(LIST_IDS)),
      v.description('Lists whose matches are not shown (never a sanctions list)'),
    ),
    pep_tiers: v.pipe(v.array(v.number()), v.description('PEP tiers screened')),
  }),
  risk_bands: v.pipe(
    v.strictObject({ sanctions: band, pep: band, criminal: band }),
    v.description('Per check, the level a match takes for each level the matcher gives it'),
  ),
  approval: v.strictObject({
    false_positive: v.pipe(
      v.array(riskLevel),
      v.description('Screen levels at which false_positive needs a sign-off'),
    ),
    cleared: v.pipe(v.array(riskLevel), v.description('Screen levels at which cleared needs a sign-off')),
    delete_decided: v.strictObject({ reason_required: v.boolean(), approval_required: v.boolean() }),
  }),
  retention: v.strictObject({ decided_lock_days: v.nullable(v.number()) }),
  queue_sla_hours: v.strictObject({ CRITICAL: hours, HIGH: hours, MEDIUM: hours, LOW: hours, CLEAR: hours }),
});

/** GET /settings/policy (lib/policy/policy-settings.ts): the version in force and what it holds. */
export const PolicySchema = v.strictObject({
  tenant_id: v.string(),
  version: v.pipe(
    v.number(),
    v.description('0: the service’s own policy, which changes nothing the matcher answers'),
  ),
  policy: PolicyBodyViewSchema,
  adopted_at: v.string(),
  adopted_by: v.nullable(actor),
  proposal_id: v.nullable(v.string()),
  report_digest: v.pipe(
    v.nullable(v.string()),
    v.description('SHA-256 of the sandbox report the version was applied on'),
  ),
  bounds: v.pipe(v.array(v.string()), v.description('What the service never lets a policy do')),
});

const decidedNoLongerAlerting = v.strictObject({
  name: v.pipe(v.string(), v.description('The subject as screened')),
  screen_id: screenId,
  decided_by: v.pipe(v.string(), v.description('The user who made the settled decision')),
  decided_at: timestamp,
  level_before: riskLevel,
  level_after: riskLevel,
});
const byLevel = v.strictObject({
  CLEAR: v.number(),
  LOW: v.number(),
  MEDIUM: v.number(),
  HIGH: v.number(),
  CRITICAL: v.number(),
});

/** The sandbox's report (lib/screening/policy-sandbox.ts `SandboxReport`; docs/policies.md). */
export const SandboxReportSchema = v.strictObject({
  confirmed_hits_no_longer_alerting: v.pipe(
    v.array(decidedNoLongerAlerting),
    v.description(
      'Settled confirmed hits the proposed policy would no longer alert on, by name: the first thing a reviewer must read',
    ),
  ),
  false_positives_no_longer_alerting: v.pipe(
    v.array(decidedNoLongerAlerting),
    v.description('Settled false positives the proposed policy would no longer alert on, by name'),
  ),
  policy_sha256: v.pipe(v.string(), v.description('SHA-256 of the proposed policy (canonical JSON)')),
  screens_replayed: v.number(),
  screens_skipped: v.pipe(
    v.array(v.strictObject({ screen_id: screenId, reason: v.string() })),
    v.description('Screens that could not be replayed: no receipt, or a snapshot no longer kept'),
  ),
  alerts_gained: v.pipe(
    byLevel,
    v.description('Screens that would alert and did not, by the level they would have'),
  ),
  alerts_lost: v.pipe(byLevel, v.description('Screens that alerted and would not, by the level they had')),
  level_changes: v.pipe(
    v.array(v.strictObject({ screen_id: screenId, before: riskLevel, after: riskLevel })),
    v.description('Screens whose level would change (the first 1,000)'),
  ),
  level_changes_total: v.number(),
});

const proposalEntries = {
  proposal_id: v.pipe(v.string(), v.regex(PROPOSAL_ID_PATTERN)),
  status: v.pipe(
    v.picklist(['running', 'reported', 'applied', 'failed', 'superseded']),
    v.description(
      '`running`: the sandbox is replaying; `reported`: the report exists, another admin may apply it; `applied`; `failed`: the sandbox failed, propose again; `superseded`: another version was adopted since it was proposed',
    ),
  ),
  author: actor,
  created_at: timestamp,
  based_on_version: v.pipe(v.number(), v.description('The policy version in force when it was proposed')),
  policy: PolicyBodyViewSchema,
  period: v.pipe(
    v.strictObject({ since: timestamp, until: timestamp }),
    v.description('The past screens replayed: screened from `since` (inclusive) to `until` (exclusive)'),
  ),
  progress: v.pipe(
    v.strictObject({ done: v.number(), total: v.nullable(v.number()) }),
    v.description('Screens replayed (or skipped) so far, of `total` (null until counted)'),
  ),
  report_digest: v.pipe(v.nullable(v.string()), v.description('SHA-256 of the report (canonical JSON)')),
  reported_at: v.nullable(timestamp),
  failure: v.nullable(v.string()),
  applied: v.nullable(
    v.strictObject({
      by: actor,
      at: timestamp,
      version: v.pipe(v.number(), v.description('The version adopted')),
    }),
  ),
  link: v.pipe(v.string(), v.description('GET this path for the proposal with its report')),
};

/** One proposal with its report (null until the sandbox finished). */
export const ProposalSchema = v.strictObject({
  ...proposalEntries,
  report: v.nullable(SandboxReportSchema),
});

/** GET /settings/policy/proposals: newest first; each row without its report (`report` is null). */
export const ProposalPageSchema = v.strictObject({
  proposals: v.array(v.strictObject({ ...proposalEntries, report: v.null() })),
  next_cursor: cursor,
});
