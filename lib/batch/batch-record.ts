import { reserveScreenNumbers } from '../screening/screen-id.ts';
import type { Table } from '../store/table.ts';
import type { PlanId } from '../tenancy/plans.ts';
import type { Role } from '../tenancy/roles.ts';
import type { CheckType } from '../watchlists/types.ts';
import {
  type BatchItemSubject,
  type BatchPurpose,
  type BatchRecord,
  type BatchRef,
  openBatch,
  putBatchItems,
  putBatchRecord,
  type RunCounts,
} from './batch-table.ts';

/**
 * Batch progress in the table (its items: lib/batch/batch-table.ts). Progress is operational
 * state, not the audit record (the screens are), so it expires after a week.
 */
export const BATCH_PROGRESS_RETENTION_SECONDS = 7 * 24 * 3600;

const expiresAt = (at: Date) => Math.floor(at.getTime() / 1000) + BATCH_PROGRESS_RETENTION_SECONDS;

/**
 * Records a batch before any of it is queued: one item per subject (status `queued`, with the
 * subject), then the batch record (condition attribute_not_exists, so an id is never reused).
 * Items are written first: an item without its batch record is never worked on (the worker
 * verifies the record), and expires with the rest.
 */
export async function createBatch(
  table: Table,
  input: BatchRef & {
    types: CheckType[];
    plan: PlanId;
    createdBy: { user_id: string; role: Role | 'system' };
    at: Date;
    subjects: readonly BatchItemSubject[];
    purpose?: BatchPurpose;
    run?: RunCounts;
  },
): Promise<void> {
  const expires = expiresAt(input.at);
  // First the open-batch marker: whatever happens next, a restart finds the batch (and its charge).
  await openBatch(table, {
    entity: 'open-batch',
    tenant_id: input.tenantId,
    batch_id: input.batchId,
    total: input.subjects.length,
    charged_at: input.at.toISOString(),
    expires_at: expires,
  });
  await putBatchItems(table, input, input.subjects, expires);
  const numbers =
    input.subjects.length > 0
      ? await reserveScreenNumbers(table, input.tenantId, input.at, input.subjects.length)
      : undefined;
  const record: BatchRecord = {
    purpose: input.purpose ?? 'screen',
    ...(input.run ? { run: input.run } : {}),
    entity: 'batch',
    batch_id: input.batchId,
    tenant_id: input.tenantId,
    total: input.subjects.length,
    types: input.types,
    plan: input.plan,
    created_by: input.createdBy,
    created_at: input.at.toISOString(),
    finished: 0,
    expires_at: expires,
    ...(numbers ? { screen_numbers: numbers } : {}),
  };
  await putBatchRecord(table, record);
}
