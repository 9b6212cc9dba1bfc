import * as v from 'valibot';
import { BatchSubjectJobSchema, BatchSubjectsJobSchema } from '../batch/message.ts';
import type { Logger } from '../common/log.ts';
import { PolicySandboxJobSchema } from '../policy/sandbox-job.ts';
import { DEAD_LETTER, type JobHandler, type RecordHandler } from '../queue/partial-batch.ts';

/**
 * The work queue's messages: one job per message, told apart by `kind`. Every producer (batch
 * streams, rescreen runs, policy proposals) sends through the same queue to the same worker, which dispatches each job to
 * the use case of its kind; the SQS adapter (partial-batch.ts) is shared by all of them.
 *
 * To add a kind: its schema here (with `kind: v.literal('<name>')`), and its handler where the
 * worker is composed (lib/jobs/queue-worker.ts); the types refuse a kind without a handler.
 */
export const JOB_SCHEMAS = {
  'batch-subject': BatchSubjectJobSchema,
  'batch-subjects': BatchSubjectsJobSchema,
  // A step of a policy proposal's sandbox (lib/screening/policy-sandbox-job.ts).
  'policy-sandbox': PolicySandboxJobSchema,
} as const;

export type JobKind = keyof typeof JOB_SCHEMAS;
export type Job = { [K in JobKind]: v.InferOutput<(typeof JOB_SCHEMAS)[K]> }[JobKind];
export type JobOf<K extends JobKind> = Extract<Job, { kind: K }>;

export function encodeJob(job: Job): string {
  return JSON.stringify(job);
}

export type JobHandlers = { [K in JobKind]: JobHandler<JobOf<K>> };

const isJobKind = (kind: unknown): kind is JobKind =>
  typeof kind === 'string' && Object.hasOwn(JOB_SCHEMAS, kind);

/** Paths only: valibot's default messages quote the received value, which may be personal data. */
export function invalidFields(issues: readonly v.BaseIssue<unknown>[]): string {
  return `invalid fields: ${[...new Set(issues.map((issue) => v.getDotPath(issue) ?? 'message'))].join(', ')}`;
}

/**
 * Turns a message body into its job and runs the handler of its kind. A body that is not JSON,
 * names no known kind or fails its kind's schema can never succeed: it is dead-lettered at once
 * (after its kind accounted for it), never retried.
 */
export function jobDispatcher(handlers: JobHandlers, log: Logger): RecordHandler {
  return async (body, delivery) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      log.error({ messageId: delivery.messageId, problem: 'message body is not JSON' }, 'unprocessable job');
      return DEAD_LETTER;
    }
    const kind = (parsed as { kind?: unknown } | null)?.kind;
    if (!isJobKind(kind)) {
      log.error({ messageId: delivery.messageId, problem: 'unknown job kind' }, 'unprocessable job');
      return DEAD_LETTER;
    }
    const result = v.safeParse(JOB_SCHEMAS[kind], parsed);
    if (!result.success) {
      log.error(
        { messageId: delivery.messageId, kind, problem: invalidFields(result.issues) },
        'unprocessable job',
      );
      await handlers[kind].unprocessable?.(parsed, delivery);
      return DEAD_LETTER;
    }
    return (handlers[kind] as JobHandler<Job>).run(result.output as Job, delivery);
  };
}
