import { randomBytes, randomUUID } from 'node:crypto';
import { QuotaExceededError } from '../common/errors.ts';
import type { Logger } from '../common/log.ts';
import type { Services } from '../ports.ts';
import { findRecentScreen } from '../screening/rescreen-window.ts';
import { screenDay } from '../screening/screen-id.ts';
import type { ScreenItem } from '../screening/screen-record.ts';
import { subjectHash } from '../screening/subject.ts';
import type { Principal } from '../tenancy/auth.ts';
import { chargeScreens, refundScreens } from '../tenancy/quota.ts';
import { recordFailedSubject } from './batch-items.ts';
import { createBatch } from './batch-record.ts';
import {
  type BatchItemSubject,
  type BatchPurpose,
  type BatchRef,
  claimBatchItem,
  closeBatch,
  finishBatchItem,
  nextFinishSequence,
} from './batch-table.ts';
import { SUBJECTS_PER_MESSAGE_MAX, subjectMessages } from './message.ts';
import type { BatchRequest } from './request.ts';

export interface StartedBatch extends BatchRef {
  total: number;
}

/** `BAT-YYYYMMDD-<10 hex>`: the day helps support find a batch in the logs; the rest is random. */
export function newBatchId(at: Date): string {
  return `BAT-${screenDay(at)}-${randomBytes(5).toString('hex')}`;
}

export const NOT_QUEUED_DETAIL =
  'The subject could not be queued for screening; it was not charged. Screen it again.';

/**
 * Starts a batch: charges the quota for every subject in one conditional write before any work,
 * then records and queues it (queueBatch). When that charge does not fit, the subjects the
 * rescreen window already answers are set apart: they would be refunded anyway, so only the rest
 * is charged (one conditional write again) and those finish at once with their earlier screens.
 * A batch that still does not fit is a 429 naming its size, with nothing charged.
 */
export async function startBatch(
  services: Pick<Services, 'table' | 'batchQueue' | 'config'>,
  principal: Principal,
  request: BatchRequest & { subjects: readonly BatchItemSubject[]; purpose?: BatchPurpose },
  log: Logger,
  at: Date = new Date(),
): Promise<StartedBatch> {
  const total = request.subjects.length;
  let served = new Map<number, ScreenItem>();
  try {
    await chargeScreens(services.table, principal.tenantId, total, principal.plan.monthly_screens, at);
  } catch (error) {
    if (!(error instanceof QuotaExceededError)) throw error;
    // At the limit, subjects the rescreen window already answers cost nothing: serve those from
    // their earlier screens and charge only the rest, or refuse naming the batch's size.
    served = await screensInWindow(services, principal.tenantId, request, at);
    const fresh = total - served.size;
    if (served.size === 0 || fresh > error.allowed - error.used) {
      throw new QuotaExceededError(error.used, error.allowed, total);
    }
    try {
      await chargeScreens(services.table, principal.tenantId, fresh, principal.plan.monthly_screens, at);
    } catch (again) {
      if (again instanceof QuotaExceededError) throw new QuotaExceededError(again.used, again.allowed, total);
      throw again;
    }
  }
  return queueBatch(
    services,
    {
      tenantId: principal.tenantId,
      batchId: newBatchId(at),
      types: request.types,
      plan: principal.plan.id,
      createdBy: { user_id: principal.userId, role: principal.role },
      at,
      subjects: request.subjects,
      purpose: request.purpose,
    },
    log,
    served,
  );
}

/**
 * Sends the queue messages of these subjects (ten to a message for a rescreen run: see
 * BatchSubjectsJobSchema) and answers the subjects whose message the queue did not take.
 */
export async function sendSubjects(
  services: Pick<Services, 'batchQueue'>,
  ref: BatchRef,
  indexes: readonly number[],
  purpose: BatchPurpose | undefined,
  log: Logger,
): Promise<number[]> {
  const messages = subjectMessages(ref, indexes, purpose === 'rescreen' ? SUBJECTS_PER_MESSAGE_MAX : 1);
  try {
    // sendAll names positions in the bodies sent; the batch items are numbered by subject index.
    const { failed } = await services.batchQueue().sendAll(messages.map((message) => message.body));
    return failed.flatMap((position) => messages[position].indexes);
  } catch (error) {
    log.error({ err: error, batchId: ref.batchId }, 'batch not queued');
    return [...indexes];
  }
}

/** The batch's subjects the rescreen window answers now, by index, with the screen that answers. */
async function screensInWindow(
  services: Pick<Services, 'table' | 'config'>,
  tenantId: string,
  request: BatchRequest,
  at: Date,
): Promise<Map<number, ScreenItem>> {
  const found = await Promise.all(
    request.subjects.map((subject) =>
      findRecentScreen(
        services.table,
        tenantId,
        subjectHash(subject, request.types),
        services.config.RESCREEN_WINDOW_HOURS,
        at,
      ),
    ),
  );
  const served = new Map<number, ScreenItem>();
  found.forEach((screen, index) => {
    if (screen) served.set(index, screen);
  });
  return served;
}

/**
 * Records a batch whose subjects were already charged (`at` is the charge's month), except those in
 * `served` (answered by the rescreen window, uncharged: they finish at once as skipped), and sends
 * one queue message per other subject. The workers refund the subjects that come back cached or fail; a
 * subject the queue would not accept is recorded as failed at once and refunded, so the stream
 * still accounts for every subject. If the batch cannot be recorded, the whole charge is refunded.
 */
export async function queueBatch(
  services: Pick<Services, 'table' | 'batchQueue'>,
  batch: Parameters<typeof createBatch>[1],
  log: Logger,
  served: ReadonlyMap<number, ScreenItem> = new Map(),
): Promise<StartedBatch> {
  const { table } = services;
  const { at } = batch;
  const total = batch.subjects.length;
  const ref: BatchRef = { tenantId: batch.tenantId, batchId: batch.batchId };
  try {
    await createBatch(table, batch);
  } catch (error) {
    await refundScreens(table, ref.tenantId, total - served.size, at);
    // Refunded here: a restart must not find the batch open and refund it again.
    await closeBatch(table, ref).catch(() => undefined);
    throw error;
  }
  // Subjects answered by an earlier screen (not charged) finish at once, like a cached screen.
  for (const [index, screen] of served) {
    const token = randomUUID();
    const claim = await claimBatchItem(table, ref, index, token, new Date());
    if (!claim.claimed) continue;
    const seq = await nextFinishSequence(table, ref, 'skipped');
    const account = { ...ref, total, purpose: batch.purpose ?? 'screen' };
    await finishBatchItem(table, account, index, token, seq, { ...screen, skipped: true }, new Date());
  }

  const queued = batch.subjects.map((_, index) => index).filter((index) => !served.has(index));
  let failed: number[] = [];
  // Nothing to screen (e.g. a rescreen run with no client due): finished as it starts.
  if (queued.length === 0) await closeBatch(table, ref);
  if (queued.length > 0) failed = await sendSubjects(services, ref, queued, batch.purpose, log);

  if (failed.length > 0) {
    const account = { ...ref, total, purpose: batch.purpose, chargedAt: at };
    for (const index of failed) await recordFailedSubject(table, account, index, NOT_QUEUED_DETAIL);
    log.warn(
      { tenant: ref.tenantId, batchId: ref.batchId, failed: failed.length },
      'batch subjects not queued',
    );
  }
  log.info(
    { tenant: ref.tenantId, batchId: ref.batchId, total, purpose: batch.purpose ?? 'screen' },
    'batch started',
  );
  return { ...ref, total };
}
