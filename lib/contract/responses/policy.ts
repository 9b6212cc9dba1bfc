import * as v from 'valibot';
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
