import * as v from 'valibot';
import { RISK_ORDER } from '../../matcher/types.ts';
import { ROLES } from '../../tenancy/roles.ts';
import { cursor, SubjectSchema, screenId, timestamp } from './fields.ts';

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
