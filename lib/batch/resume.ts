import type { Logger } from '../common/log.ts';
import type { Services } from '../ports.ts';
import { refundScreens } from '../tenancy/quota.ts';
import { recordFailedSubject } from './batch-items.ts';
import {
  closeBatch,
  expireClaim,
  getBatch,
  listOpenBatches,
  type OpenBatch,
  unfinishedItems,
} from './batch-table.ts';
import { sendSubjects } from './start-batch.ts';

export const NOT_RESUMED_DETAIL =
  'The subject could not be queued again after a restart; it was not charged. Screen it again.';

export interface ResumeReport {
  /** Batches with subjects queued again. */
  resumed: number;
  /** Subjects queued again. */
  requeued: number;
  /** Subjects recorded failed and refunded (the queue refused them). */
  failed: number;
  /** Batches that never got their record (the start was cut short): refunded in full. */
  abandoned: number;
}

/**
 * Resumes every unfinished batch after a restart of the local service, whose queue (fauxqs)
 * lives in memory and loses the messages it held. Each open batch's subjects that are not
 * finished are queued again; the claims of the process that died are ended first (nothing else
 * can hold them: the local store belongs to one process). A job never screens or charges twice
 * (claims, and a screen already stored for the job is found and kept), so queueing a subject
 * that was in fact finished is harmless. A batch whose start was cut short before its record
 * was written never queued anything: its whole charge is refunded.
 */
export async function resumeOpenBatches(
  services: Pick<Services, 'table' | 'batchQueue'>,
  log: Logger,
  now: Date = new Date(),
): Promise<ResumeReport> {
  const { table } = services;
  const report: ResumeReport = { resumed: 0, requeued: 0, failed: 0, abandoned: 0 };
  for (const open of await listOpenBatches(table)) {
    if (open.expires_at * 1000 < now.getTime()) {
      await closeBatch(table, openRef(open));
      continue;
    }
    const ref = openRef(open);
    const record = await getBatch(table, ref);
    if (!record) {
      await refundScreens(table, open.tenant_id, open.total, new Date(open.charged_at));
      await closeBatch(table, ref);
      report.abandoned += 1;
      log.warn(
        { tenant: ref.tenantId, batchId: ref.batchId, total: open.total },
        'batch start cut short; refunded',
      );
      continue;
    }
    const unfinished = await unfinishedItems(table, ref);
    if (unfinished.length === 0) {
      await closeBatch(table, ref);
      continue;
    }
    for (const item of unfinished)
      if (item.status === 'processing') await expireClaim(table, ref, item.index);
    const indexes = unfinished.map((item) => item.index);
    const refused = await sendSubjects(services, ref, indexes, record.purpose, log);
    const account = {
      ...ref,
      total: record.total,
      purpose: record.purpose,
      chargedAt: new Date(record.created_at),
    };
    for (const index of refused) await recordFailedSubject(table, account, index, NOT_RESUMED_DETAIL);
    report.resumed += 1;
    report.requeued += indexes.length - refused.length;
    report.failed += refused.length;
    log.info(
      {
        tenant: ref.tenantId,
        batchId: ref.batchId,
        requeued: indexes.length - refused.length,
        failed: refused.length,
      },
      'batch resumed',
    );
  }
  return report;
}

const openRef = (open: OpenBatch) => ({ tenantId: open.tenant_id, batchId: open.batch_id });
