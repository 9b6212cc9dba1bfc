import * as v from 'valibot';

/**
 * The job of one batch subject (kind `batch-subject`, one queue message each). It only points at
 * the batch item holding the subject: the worker takes the subject from that item and the
 * principal (author, role, plan) from the stored batch record, never from the message, so the
 * queue carries no personal data and a forged message cannot choose who or what is screened.
 * (Version 1 carried the subject and the author; such a message is refused as malformed.)
 */
const TenantIdSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(100));
// Batches (BAT-) and rescreen runs (RUN-, batches of purpose `rescreen`) share the queue.
const BatchIdSchema = v.pipe(v.string(), v.regex(/^(BAT|RUN)-\d{8}-[0-9a-f]{10}$/));
const IndexSchema = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(9_999));

export const BatchSubjectJobSchema = v.object({
  kind: v.literal('batch-subject'),
  v: v.literal(2),
  tenant_id: TenantIdSchema,
  batch_id: BatchIdSchema,
  index: IndexSchema,
});

export type BatchSubjectJob = v.InferOutput<typeof BatchSubjectJobSchema>;

/** The most subjects one `batch-subjects` message points at. */
export const SUBJECTS_PER_MESSAGE_MAX = 10;

/**
 * The job of several subjects of one batch (kind `batch-subjects`): each is worked on exactly as
 * its own `batch-subject` job would be (claimed, screened, recorded on its own), so a redelivered
 * message redoes only the subjects that did not finish. A rescreen run sends its clients ten to a
 * message: a run of 10,000 clients is then 1,000 messages to send, receive and delete, not
 * 10,000 (the queue's own work was about a tenth of a large run's time on the local stack). A
 * batch stream keeps one subject per message, so each subject is retried alone.
 */
export const BatchSubjectsJobSchema = v.object({
  kind: v.literal('batch-subjects'),
  v: v.literal(1),
  tenant_id: TenantIdSchema,
  batch_id: BatchIdSchema,
  indexes: v.pipe(
    v.array(IndexSchema),
    v.minLength(1),
    v.maxLength(SUBJECTS_PER_MESSAGE_MAX),
    v.check((indexes) => new Set(indexes).size === indexes.length, 'indexes must be distinct'),
  ),
});

export type BatchSubjectsJob = v.InferOutput<typeof BatchSubjectsJobSchema>;

/** Queue messages for these subject positions of a batch: one subject each, or up to `perMessage`. */
export function subjectMessages(
  ref: { tenantId: string; batchId: string },
  indexes: readonly number[],
  perMessage = 1,
): { body: string; indexes: number[] }[] {
  const messages: { body: string; indexes: number[] }[] = [];
  for (let offset = 0; offset < indexes.length; offset += perMessage) {
    const group = indexes.slice(offset, offset + perMessage);
    const position = { tenant_id: ref.tenantId, batch_id: ref.batchId };
    const job =
      perMessage === 1
        ? { kind: 'batch-subject', v: 2, ...position, index: group[0] }
        : { kind: 'batch-subjects', v: 1, ...position, indexes: group };
    messages.push({ body: JSON.stringify(job), indexes: group });
  }
  return messages;
}

/** The batch position of a message that failed its schema, when that much of it is readable. */
export function batchPositionOf(
  raw: unknown,
): { tenant_id: string; batch_id: string; index: number } | undefined {
  const position = v.safeParse(v.pick(BatchSubjectJobSchema, ['tenant_id', 'batch_id', 'index']), raw);
  return position.success ? position.output : undefined;
}

/** The batch positions of a `batch-subjects` message that failed its schema, when readable. */
export function batchPositionsOf(raw: unknown): { tenant_id: string; batch_id: string; index: number }[] {
  const batch = v.safeParse(v.object({ tenant_id: TenantIdSchema, batch_id: BatchIdSchema }), raw);
  const indexes = (raw as { indexes?: unknown } | null)?.indexes;
  if (!batch.success || !Array.isArray(indexes)) return [];
  const readable = [...new Set(indexes.filter((index) => v.is(IndexSchema, index)))];
  return readable.map((index) => ({ ...batch.output, index }));
}
