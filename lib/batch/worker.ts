import { randomUUID } from 'node:crypto';
import { DomainError } from '../common/errors.ts';
import type { Logger } from '../common/log.ts';
import type { RiskLevel } from '../matcher/types.ts';
import type { Services } from '../ports.ts';
import {
  DEAD_LETTER,
  type Delivery,
  DONE,
  type JobHandler,
  type JobOutcome,
} from '../queue/partial-batch.ts';
import { blockScreenId } from '../screening/screen-id.ts';
import type { ScreeningPrincipal, screenSubject } from '../screening/screen-subject.ts';
import type { Table } from '../store/table.ts';
import { whyUserStopped } from '../tenancy/access-recheck.ts';
import { PLANS } from '../tenancy/plans.ts';
import { getUser } from '../tenancy/tenants.ts';
import { type BatchAccount, recordFailedSubject, recordScreenedSubject } from './batch-items.ts';
import {
  type BatchItemSubject,
  type BatchPurpose,
  type BatchRecord,
  type BatchRef,
  claimBatchItem,
  getBatch,
  releaseBatchItem,
  type SubjectFailure,
} from './batch-table.ts';
import { type BatchSubjectJob, type BatchSubjectsJob, batchPositionOf, batchPositionsOf } from './message.ts';

/**
 * Deliveries of one message before SQS moves it to the dead-letter queue; the queue's redrive
 * policy (infra/cdk/constructs/batch-pipeline.ts, infra/local/queue.ts) uses the same number. On the
 * last delivery a failing subject is recorded as failed, so the stream reports it at once.
 */
export const BATCH_MAX_RECEIVE_COUNT = 3;

/** What screening one queued subject produced, as its batch item and progress event record it. */
export interface SubjectOutcome {
  screen_id: string;
  risk_level: RiskLevel;
  skipped: boolean;
  client_id?: string;
}

/**
 * Screens one claimed subject of a batch whose purpose is not a plain screen (registering it as
 * a client, re-screening a client). The batch was charged up front: screeners never charge.
 */
export type SubjectScreener = (
  services: Pick<Services, 'table' | 'config' | 'matcher'>,
  principal: ScreeningPrincipal,
  subject: BatchItemSubject,
  batch: BatchRecord,
  job: QueuedScreen,
) => Promise<SubjectOutcome>;

/** What a queued subject's screen is made as: its job reference and, when drawn, its id. */
export interface QueuedScreen {
  /** This job's reference: a retry finds the screen an earlier attempt stored (screenSubject). */
  jobRef: string;
  /** The id drawn for it when the batch was accepted (screenSubject's `screenId`). */
  screenId: string | undefined;
  /** The subject's position in its batch. */
  index: number;
}

/** The job reference and drawn screen id of the subject at `index` of a batch. */
export function queuedScreen(record: BatchRecord, index: number): QueuedScreen {
  return {
    jobRef: batchJobRef({ tenantId: record.tenant_id, batchId: record.batch_id }, index),
    screenId: record.screen_numbers ? blockScreenId(record.screen_numbers, index) : undefined,
    index,
  };
}

export interface BatchSubjectDependencies {
  services: () => Pick<Services, 'table' | 'config' | 'matcher'>;
  /** Screens one subject: the single-subject use case of POST /screen. */
  screen: typeof screenSubject;
  /** The screeners of the client purposes (lib/monitoring), composed in lib/jobs/queue-worker.ts. */
  screeners: Record<Exclude<BatchPurpose, 'screen'>, SubjectScreener>;
  log: Logger;
}

/** The job reference stored on a batch subject's screen, so a retry of it knows its own screen. */
export function batchJobRef(ref: BatchRef, index: number): string {
  return `batch:${ref.batchId}:${index}`;
}

/** The part of a stored screen a batch item records. */
export function outcomeOf(screen: {
  screen_id: string;
  risk_level: RiskLevel;
  skipped: boolean;
  client_id?: string | null;
}): SubjectOutcome {
  return {
    screen_id: screen.screen_id,
    risk_level: screen.risk_level,
    skipped: screen.skipped,
    ...(screen.client_id ? { client_id: screen.client_id } : {}),
  };
}

export function failedDetail(attempts: number): string {
  return `Screening failed after ${attempts} attempt${attempts === 1 ? '' : 's'}; the subject was not charged. Screen it again.`;
}
export const UNPROCESSABLE_DETAIL = 'The subject could not be screened; it was not charged. Screen it again.';

/** A batch subject left unscreened because the batch's author lost access (`the user was disabled`). */
export function authorStoppedDetail(record: Pick<BatchRecord, 'created_by'>, reason: string): string {
  return `Not screened: the batch was started by ${record.created_by.user_id}, and ${reason}; the subject was not charged.`;
}

/**
 * How long a warm worker trusts what it last read of a batch author's standing: a disabled
 * user's batch stops within this (and the subjects already being screened).
 */
export const AUTHOR_RECHECK_MS = 1_000;

/**
 * The use case of one batch subject (job kind `batch-subject`); it knows nothing of SQS.
 *
 * Idempotent under redelivery (queues deliver at least once): the subject's batch item is
 * claimed with a conditional write before screening, so a second delivery of a finished subject
 * is done without screening or charging again, and a delivery racing a live claim is retried
 * later. The batch was charged in full up front: a subject that comes back cached (`skipped`) or
 * fails for good is refunded, once, by whoever records it. A transient failure is retried; on
 * the last delivery, or at once for a permanent error, the subject is recorded as failed (the
 * stream emits `error`) and the job is dead-lettered for inspection.
 */
export function batchSubjectHandler(deps: BatchSubjectDependencies): JobHandler<BatchSubjectJob> {
  const batches = new BatchCache();

  async function recordFailure(
    batch: VerifiedBatch,
    index: number,
    detail: string,
    failure: SubjectFailure,
    refund = true,
  ): Promise<void> {
    await recordFailedSubject(deps.services().table, accountOf(batch), index, detail, failure, refund);
  }

  async function run(job: BatchSubjectJob, delivery: Delivery): Promise<JobOutcome> {
    const services = deps.services();
    const { table } = services;
    const ref: BatchRef = { tenantId: job.tenant_id, batchId: job.batch_id };
    const { receiveCount } = delivery;
    const where = { tenant: ref.tenantId, batchId: ref.batchId, index: job.index, receiveCount };

    // Before any work: the batch exists in the tenant the message names, holds this index, and
    // its author is still a user of that tenant. The principal comes from here, not the message.
    const batch = await batches.get(table, ref);
    if (!batch || job.index >= batch.record.total) {
      deps.log.error({ ...where, problem: batch ? 'index past the batch' : 'no such batch' }, 'job refused');
      return DEAD_LETTER;
    }
    const { record } = batch;
    if (!batch.authorExists) {
      deps.log.error({ ...where, problem: 'batch author unknown' }, 'job refused');
      await recordFailure(batch, job.index, UNPROCESSABLE_DETAIL, 'error');
      return DEAD_LETTER;
    }

    const token = randomUUID();
    const claim = await claimBatchItem(table, ref, job.index, token, new Date());
    if (!claim.claimed) {
      if (claim.status === 'done') return DONE;
      if (claim.status === 'failed' || claim.status === undefined) return DEAD_LETTER;
      // Another delivery holds a live claim: look again once it should have finished.
      const leaseLeft = Math.ceil(((claim.leaseUntil ?? 0) - Date.now()) / 1000);
      return { status: 'retry', afterSeconds: Math.max(1, Math.min(leaseLeft, 60)) };
    }
    // Work in a disabled user's name stops (issue 35, item 5): a subject claimed here and not yet
    // screened is not screened, and its charge is given back (a subject another delivery is
    // screening was not claimed here, and finishes). Nothing to inspect: the message is done.
    let stopped: string | undefined;
    try {
      stopped = await batches.authorStopped(table, record);
    } catch (error) {
      deps.log.warn({ ...where, err: error }, 'batch author not read; will retry');
      await releaseBatchItem(table, ref, job.index, token);
      return { status: 'retry' };
    }
    if (stopped) {
      deps.log.info({ ...where, problem: 'batch author lost access' }, 'batch subject stopped');
      await recordFailure(batch, job.index, authorStoppedDetail(record, stopped), 'refused');
      return DONE;
    }

    let screen: SubjectOutcome;
    try {
      const principal = {
        tenantId: ref.tenantId,
        userId: record.created_by.user_id,
        role: record.created_by.role,
        plan: PLANS[record.plan],
      };
      const queued = queuedScreen(record, job.index);
      screen =
        record.purpose === 'screen'
          ? outcomeOf(
              await deps.screen(
                services,
                principal,
                { ...claim.subject, types: record.types },
                { charge: false, jobRef: queued.jobRef, screenId: queued.screenId, origin: 'batch' },
              ),
            )
          : await deps.screeners[record.purpose](services, principal, claim.subject, record, queued);
    } catch (error) {
      const permanent = error instanceof DomainError;
      if (!permanent && receiveCount < delivery.maxReceiveCount) {
        deps.log.warn({ ...where, err: error }, 'batch subject failed; will retry');
        await releaseBatchItem(table, ref, job.index, token);
        return { status: 'retry' };
      }
      deps.log.error({ ...where, err: error, permanent }, 'batch subject failed for good');
      // A refused subject whose screen is stored and in use keeps its charge (DomainError.chargeStands).
      const chargeStands = permanent && error.chargeStands;
      await recordFailure(
        batch,
        job.index,
        // A domain error says why in words meant for the tenant (e.g. a client reference
        // already registered); anything else says only that it failed.
        permanent
          ? `${error.detail}; ${chargeStands ? "its screen is that client's first screen, charged once" : 'the subject was not charged'}.`
          : failedDetail(receiveCount),
        permanent ? 'refused' : 'error',
        !chargeStands,
      );
      return DEAD_LETTER;
    }

    try {
      const finished = await recordScreenedSubject(table, accountOf(batch), job.index, token, screen);
      deps.log.info(
        { ...where, screenId: screen.screen_id, skipped: screen.skipped, finished },
        'batch subject screened',
      );
      return DONE;
    } catch (error) {
      // The screen is stored and charged: never refund it or report it failed. A retry finds it
      // as this job's own screen and finishes; after the last attempt the message waits in the
      // dead-letter queue, and redriving it does the same.
      deps.log.error(
        { ...where, err: error, screenId: screen.screen_id },
        'batch subject screened, not recorded',
      );
      await releaseBatchItem(table, ref, job.index, token).catch(() => undefined);
      return { status: 'retry' };
    }
  }

  return {
    run,
    async unprocessable(raw) {
      const position = batchPositionOf(raw);
      if (!position) return;
      const ref = { tenantId: position.tenant_id, batchId: position.batch_id };
      const batch = await batches.get(deps.services().table, ref);
      // Only a subject of a real batch is reported failed (and refunded to that batch's month).
      if (batch) await recordFailure(batch, position.index, UNPROCESSABLE_DETAIL, 'error');
    },
  };
}

/**
 * The use case of a message pointing at several subjects of one batch (job kind
 * `batch-subjects`): each subject runs as its own `batch-subject` job would, all at once, and
 * the message is done when every subject is. If any asks to be tried again the whole message is
 * (the subjects already finished are then done at their claim, at once, screening nothing);
 * otherwise a subject that can never succeed dead-letters the message for inspection.
 */
export function batchSubjectsHandler(single: JobHandler<BatchSubjectJob>): JobHandler<BatchSubjectsJob> {
  return {
    async run(job, delivery) {
      const outcomes = await Promise.all(
        job.indexes.map((index) =>
          single.run(
            { kind: 'batch-subject', v: 2, tenant_id: job.tenant_id, batch_id: job.batch_id, index },
            delivery,
          ),
        ),
      );
      return combinedOutcome(outcomes);
    },
    async unprocessable(raw, delivery) {
      for (const position of batchPositionsOf(raw)) await single.unprocessable?.(position, delivery);
    },
  };
}

function combinedOutcome(outcomes: readonly JobOutcome[]): JobOutcome {
  const retries = outcomes.filter((outcome) => outcome.status === 'retry');
  if (retries.length > 0) {
    const delays = retries.map((retry) => retry.afterSeconds);
    // The adapter's backoff unless every subject named its own delay; then the shortest.
    return delays.every((delay) => delay !== undefined)
      ? { status: 'retry', afterSeconds: Math.min(...(delays as number[])) }
      : { status: 'retry' };
  }
  return outcomes.some((outcome) => outcome.status === 'dead-letter') ? DEAD_LETTER : DONE;
}

interface VerifiedBatch {
  record: BatchRecord;
  authorExists: boolean;
}

const accountOf = ({ record }: VerifiedBatch): BatchAccount => ({
  tenantId: record.tenant_id,
  batchId: record.batch_id,
  total: record.total,
  purpose: record.purpose,
  chargedAt: new Date(record.created_at),
});

/**
 * The batch records this worker has read, with whether their author exists. A batch record never
 * changes after it is written (only its finish counter, which is not read from here), so one
 * read per batch per warm worker serves all its subjects. Bounded: the oldest entries go first.
 * The author's standing does change (disabled): it is read again after AUTHOR_RECHECK_MS.
 */
class BatchCache {
  private readonly entries = new Map<string, Promise<VerifiedBatch | undefined>>();
  private readonly standing = new Map<string, { at: number; stopped: Promise<string | undefined> }>();
  constructor(private readonly capacity = 200) {}

  /**
   * Why the batch's author may no longer have work done in their name (disabled, removed), or
   * undefined. A scheduled run's author is the service itself and never stops.
   */
  authorStopped(table: Table, record: BatchRecord): Promise<string | undefined> {
    if (record.created_by.role === 'system') return Promise.resolve(undefined);
    const key = `${record.tenant_id}/${record.created_by.user_id}`;
    const known = this.standing.get(key);
    if (known && Date.now() - known.at < AUTHOR_RECHECK_MS) return known.stopped;
    const stopped = whyUserStopped(table, record.tenant_id, record.created_by.user_id);
    this.standing.set(key, { at: Date.now(), stopped });
    if (this.standing.size > this.capacity) this.standing.delete(this.standing.keys().next().value as string);
    stopped.catch(() => this.standing.delete(key));
    return stopped;
  }

  get(table: Table, ref: BatchRef): Promise<VerifiedBatch | undefined> {
    const key = `${ref.tenantId}/${ref.batchId}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = this.load(table, ref);
      this.entries.set(key, entry);
      if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
      // An absent batch or a failed read is not remembered: it may exist on the next look.
      entry.then(
        (found) => (found?.authorExists ? undefined : this.entries.delete(key)),
        () => this.entries.delete(key),
      );
    }
    return entry;
  }

  private async load(table: Table, ref: BatchRef): Promise<VerifiedBatch | undefined> {
    const record = await getBatch(table, ref);
    if (!record) return undefined;
    const author = await getUser(table, ref.tenantId, record.created_by.user_id);
    // A scheduled rescreen run is the service's own work: its author is the system actor.
    return { record, authorExists: record.created_by.role === 'system' || author !== undefined };
  }
}
