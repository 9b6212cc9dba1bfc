import type { Table } from '../store/table.ts';
import { refundScreens } from '../tenancy/quota.ts';
import {
  type BatchRef,
  type BatchTotal,
  closeBatch,
  failBatchItem,
  finishBatchItem,
  nextFinishSequence,
  type ScreenedSubject,
  type SubjectFailure,
} from './batch-table.ts';

/**
 * Recording a subject's outcome: a batch charged every subject up front, so each outcome is
 * numbered in finish order (the batch's counter), recorded on its item (lib/batch/batch-table.ts),
 * refunded when it was not billed, and the last one closes the batch.
 */

/** What recording a subject's outcome needs to know of its batch. */
export interface BatchAccount extends BatchRef, Partial<Pick<BatchTotal, 'purpose'>> {
  total: number;
  /** When the batch was charged: refunds go back to that quota month. */
  chargedAt: Date;
}

/** Closes the batch when this finish number is its last. */
async function closeIfLast(table: Table, batch: BatchAccount, seq: number): Promise<void> {
  if (seq >= batch.total) await closeBatch(table, batch);
}

/**
 * Records a subject as failed for good and refunds it, once (false when it had already
 * finished): the batch charged every subject up front, and a failed screen is never billed.
 */
export async function recordFailedSubject(
  table: Table,
  batch: BatchAccount,
  index: number,
  detail: string,
  failure: SubjectFailure = 'error',
  refund = true,
): Promise<boolean> {
  const seq = await nextFinishSequence(table, batch, 'failed');
  const recorded = await failBatchItem(table, batch, index, seq, detail, new Date(), failure);
  if (recorded && refund) await refundScreens(table, batch.tenantId, 1, batch.chargedAt);
  await closeIfLast(table, batch, seq);
  return recorded;
}

/**
 * Records the screen of a claimed subject; a cached (`skipped`) screen is refunded, once. False
 * when the claim was lost (another delivery finished it).
 */
export async function recordScreenedSubject(
  table: Table,
  batch: BatchAccount,
  index: number,
  token: string,
  screen: ScreenedSubject,
): Promise<boolean> {
  const seq = await nextFinishSequence(table, batch, screen.skipped ? 'skipped' : null);
  const finished = await finishBatchItem(table, batch, index, token, seq, screen, new Date());
  if (finished && screen.skipped) await refundScreens(table, batch.tenantId, 1, batch.chargedAt);
  await closeIfLast(table, batch, seq);
  return finished;
}
