import * as v from 'valibot';
import { PLAN_IDS } from '../tenancy/plans.ts';
import { ROLES } from '../tenancy/tenants.ts';
import { CHECK_TYPES } from '../watchlists/types.ts';
import { BatchSubjectSchema } from './request.ts';

/**
 * One SQS message per batch subject: everything the worker needs to screen it on behalf of the
 * caller without another lookup. The subject was validated by the stream before it was sent
 * and is validated again here, so a malformed message fails for good instead of being retried.
 */
export const BatchMessageSchema = v.object({
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

export type BatchMessage = v.InferOutput<typeof BatchMessageSchema>;

export function encodeBatchMessage(message: BatchMessage): string {
  return JSON.stringify(message);
}

/** The message, or why it can never be processed (with its batch position when that much is readable). */
export function decodeBatchMessage(
  body: string,
):
  | { ok: true; message: BatchMessage }
  | { ok: false; problem: string; position?: { tenant_id: string; batch_id: string; index: number } } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, problem: 'message body is not JSON' };
  }
  const result = v.safeParse(BatchMessageSchema, parsed);
  if (result.success) return { ok: true, message: result.output };
  // Paths only: valibot's default messages quote the received value, which may be personal data.
  const problem = `invalid fields: ${[...new Set(result.issues.map((issue) => v.getDotPath(issue) ?? 'message'))].join(', ')}`;
  const position = v.safeParse(v.pick(BatchMessageSchema, ['tenant_id', 'batch_id', 'index']), parsed);
  return { ok: false, problem, ...(position.success ? { position: position.output } : {}) };
}
