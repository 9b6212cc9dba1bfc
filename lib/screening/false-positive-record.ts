import * as v from 'valibot';
import type { Match } from '../matcher/types.ts';
import { RISK_ORDER } from '../matcher/types.ts';
import { ROLES } from '../tenancy/roles.ts';

/**
 * A decided false positive as an ad-hoc screen remembers it (./remembered-false-positives.ts):
 * who decided that the subject is not the listed person, where and when, and the listing as the
 * decision saw it, so a later screen can tell whether the listing changed materially since.
 * Stored in the tenant's memory (./false-positive-table.ts) and, for the memories a screen
 * applied, on the screen itself (`remembered_false_positives`), so a replay applies exactly them.
 */

const DeciderSchema = v.object({ user_id: v.string(), role: v.picklist([...ROLES, 'system']) });

const objectOf = <T>() => v.custom<T>((value) => typeof value === 'object' && value !== null);

export const RememberedFalsePositiveSchema = v.object({
  /** `<person key>-<listing key>`: the id GET /settings/false-positives lists and DELETE revokes. */
  memory_id: v.string(),
  /** The screen the decision was made on, and the decision's version there. */
  screen_id: v.string(),
  decision_version: v.nullable(v.number()),
  decided_by: DeciderSchema,
  /** `YYYY-MM-DDThh:mm:ssZ`. */
  decided_at: v.string(),
  /** The admin who signed the decision off, where it was approved. */
  approved_by: v.nullable(DeciderSchema),
  list_id: v.string(),
  entity_id: v.string(),
  primary_name: v.string(),
  /** The match's level when it was decided: a higher one now reopens it. */
  risk_level: v.picklist(RISK_ORDER),
  /** The match as decided (listed names, dates of birth, nationalities...): the baseline of a listing change. */
  match: objectOf<Match>(),
});
export type RememberedFalsePositive = v.InferOutput<typeof RememberedFalsePositiveSchema>;

/**
 * How a screen shows a match decided false positive before for the same subject: `applies` when
 * it holds (the match does not raise the screen's level), else the material changes that
 * reopened it. `changes` lists what changed in the listing since (cosmetic ones when it applies).
 */
export interface DecidedFalsePositiveMark {
  memory_id: string;
  applies: boolean;
  screen_id: string;
  /** Where the decision can be read: GET /screens/{screen_id}. */
  link: string;
  decided_by: v.InferOutput<typeof DeciderSchema>;
  decided_at: string;
  approved_by: v.InferOutput<typeof DeciderSchema> | null;
  changes: string[];
}
