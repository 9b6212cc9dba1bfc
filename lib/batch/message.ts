import * as v from 'valibot';
import { PLAN_IDS } from '../tenancy/plans.ts';
import { ROLES } from '../tenancy/tenants.ts';
import { CHECK_TYPES } from '../watchlists/types.ts';
import { BatchSubjectSchema } from './request.ts';

/**
 * The job of one batch subject (kind `batch-subject`, one queue message each): everything the
 * worker needs to screen it on behalf of the caller without another lookup. The subject was
 * validated by the stream before it was sent and is validated again by the worker, so a
 * malformed message fails for good instead of being retried.
 */
export const BatchSubjectJobSchema = v.object({
  kind: v.literal('batch-subject'),
  v: v.literal(1),
  tenant_id: v.pipe(v.string(), v.minLength(1)),
  batch_id: v.pipe(v.string(), v.minLength(1)),
  index: v.pipe(v.number(), v.integer(), v.minValue(0)),
  user_id: v.pipe(v.string(), v.minLength(1)),
  role: v.picklist(ROLES),
  plan: v.picklist(PLAN_IDS),
  types: v.array(v.picklist(CHECK_TYPES)),
  /** When the batch was charged: a refund goes back to that quota month. */
  charged_at: v.pipe(v.string(), v.isoTimestamp()),
  subject: BatchSubjectSchema,
});

export type BatchSubjectJob = v.InferOutput<typeof BatchSubjectJobSchema>;

/** The batch position of a message that failed its schema, when that much of it is readable. */
export function batchPositionOf(
  raw: unknown,
): { tenant_id: string; batch_id: string; index: number } | undefined {
  const position = v.safeParse(v.pick(BatchSubjectJobSchema, ['tenant_id', 'batch_id', 'index']), raw);
  return position.success ? position.output : undefined;
}
