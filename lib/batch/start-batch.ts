import { randomBytes } from 'node:crypto';
import { QuotaExceededError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { encodeJob } from '../queue/jobs.ts';
import type { Services } from '../runtime/services.ts';
import { screenDay } from '../screening/screen-id.ts';
import type { Principal } from '../tenancy/auth.ts';
import { chargeScreens, refundScreens } from '../tenancy/quota.ts';
import {
  type BatchItemSubject,
  type BatchPurpose,
  type BatchRef,
  closeBatch,
  createBatch,
  recordFailedSubject,
} from './batch-record.ts';
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
 * Starts a batch: charges the quota for every subject in one conditional write before any work
 * (QuotaExceededError → 429 with nothing charged), then records and queues it (queueBatch).
 */
export async function startBatch(
  services: Pick<Services, 'table' | 'batchQueue'>,
  principal: Principal,
  request: BatchRequest & { subjects: readonly BatchItemSubject[]; purpose?: BatchPurpose },
  log: Logger,
  at: Date = new Date(),
): Promise<StartedBatch> {
  const total = request.subjects.length;
  try {
    await chargeScreens(services.table, principal.tenantId, total, principal.plan.monthly_screens, at);
  } catch (error) {
    if (error instanceof QuotaExceededError) throw new QuotaExceededError(error.used, error.allowed, total);
    throw error;
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
  );
}

/**
 * Records a batch whose subjects were already charged (`at` is the charge's month) and sends one
 * queue message per subject. The workers refund the subjects that come back cached or fail; a
 * subject the queue would not accept is recorded as failed at once and refunded, so the stream
 * still accounts for every subject. If the batch cannot be recorded, the whole charge is refunded.
 */
export async function queueBatch(
  services: Pick<Services, 'table' | 'batchQueue'>,
  batch: Parameters<typeof createBatch>[1],
  log: Logger,
): Promise<StartedBatch> {
  const { table } = services;
  const { at } = batch;
  const total = batch.subjects.length;
  const ref: BatchRef = { tenantId: batch.tenantId, batchId: batch.batchId };
  try {
    await createBatch(table, batch);
  } catch (error) {
    await refundScreens(table, ref.tenantId, total, at);
    // Refunded here: a restart must not find the batch open and refund it again.
    await closeBatch(table, ref).catch(() => undefined);
    throw error;
  }

  const bodies = batch.subjects.map((_, index) =>
    encodeJob({ kind: 'batch-subject', v: 2, tenant_id: ref.tenantId, batch_id: ref.batchId, index }),
  );
  let failed: number[] = [];
  // Nothing to screen (e.g. a rescreen run with no client due): finished as it starts.
  if (bodies.length === 0) await closeBatch(table, ref);
  if (bodies.length > 0) {
    try {
      ({ failed } = await services.batchQueue().sendAll(bodies));
    } catch (error) {
      log.error({ err: error, batchId: ref.batchId }, 'batch not queued');
      failed = bodies.map((_, index) => index);
    }
  }

  if (failed.length > 0) {
    const account = { ...ref, total, chargedAt: at };
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
