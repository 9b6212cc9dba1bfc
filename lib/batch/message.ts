import * as v from 'valibot';

/**
 * The job of one batch subject (kind `batch-subject`, one queue message each). It only points at
 * the batch item holding the subject: the worker takes the subject from that item and the
 * principal (author, role, plan) from the stored batch record, never from the message, so the
 * queue carries no personal data and a forged message cannot choose who or what is screened.
 * (Version 1 carried the subject and the author; such a message is refused as malformed.)
 */
export const BatchSubjectJobSchema = v.object({
  kind: v.literal('batch-subject'),
  v: v.literal(2),
  tenant_id: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  // Batches (BAT-) and rescreen runs (RUN-, batches of purpose `rescreen`) share the queue.
  batch_id: v.pipe(v.string(), v.regex(/^(BAT|RUN)-\d{8}-[0-9a-f]{10}$/)),
  index: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(9_999)),
});

export type BatchSubjectJob = v.InferOutput<typeof BatchSubjectJobSchema>;

/** The batch position of a message that failed its schema, when that much of it is readable. */
export function batchPositionOf(
  raw: unknown,
): { tenant_id: string; batch_id: string; index: number } | undefined {
  const position = v.safeParse(v.pick(BatchSubjectJobSchema, ['tenant_id', 'batch_id', 'index']), raw);
  return position.success ? position.output : undefined;
}
