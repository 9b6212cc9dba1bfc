import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { reserveScreenNumbers } from '../screening/screen-id.ts';
import { RESCREEN_TRIGGERS } from '../screening/screen-record.ts';
import type { Subject } from '../screening/subject.ts';
import { keys } from '../store/schema.ts';
import { parseItem, putRequests, queryAll, type Table, writeAll } from '../store/table.ts';
import { PLAN_IDS, type PlanId } from '../tenancy/plans.ts';
import { ROLES, type Role } from '../tenancy/roles.ts';
import { CHECK_TYPES, type CheckType } from '../watchlists/types.ts';

/**
 * Batch progress in the table. The batch record holds what the caller asked for (total, check
 * types, plan, author) and is the only source of the principal a subject is screened for. Each
 * subject has its batch item, written with the subject when the batch starts: the queue message
 * only points at it (tenant, batch, index), so the queue holds no personal data and a forged
 * message can neither inject a subject nor borrow an author. The worker claims the item before
 * screening (so a redelivered message finds it and does nothing twice) and finishes it with the
 * screen id or the failure; the stream reads finished items back in the order they finished.
 * Progress is operational state, not the audit record (the screens are), so it expires after a
 * week.
 */
export const BATCH_PROGRESS_RETENTION_SECONDS = 7 * 24 * 3600;

export interface BatchRef {
  tenantId: string;
  batchId: string;
}

/**
 * What a batch's subjects are screened for: `screen` (POST /batch/stream), `register-clients`
 * (POST /batch/clients/stream: each subject also becomes a monitored client) and `rescreen` (a
 * rescreen run: each subject is a registered client past its due date). All three share the
 * queue, the worker, the claims, the refunds and the progress stream.
 */
export const BATCH_PURPOSES = ['screen', 'register-clients', 'rescreen'] as const;
export type BatchPurpose = (typeof BATCH_PURPOSES)[number];

/** What a rescreen run found when it started (its GET reports them). */
export const RunCountsSchema = v.object({
  /** `list_change`: a list sync added or amended listings the run's clients could match. */
  trigger: v.picklist(RESCREEN_TRIGGERS),
  /**
   * The watchlist snapshot the run's clients are screened on, or a newer one: the store's newest
   * version when the run started, or the version a list-change run's sync published (a worker
   * still holding older lists loads the newest first: lib/monitoring/run-lists.ts). Absent when
   * nothing was published (the bundled lists) and on runs stored before it was recorded.
   */
  snapshot_version: v.optional(v.string()),
  /**
   * Runs stored before `snapshot_version`: a list-change run's sync time, its clients screened
   * only against watchlists at least that recent. No longer written.
   */
  lists_synced_at: v.optional(v.string()),
  /** Clients found past their due date. */
  due: v.number(),
  /** Due clients another run was already re-screening (claimed): not queued again. */
  already_running: v.number(),
  /** Due clients left for a later run because the month's quota was used up. */
  skipped_quota: v.number(),
});
export type RunCounts = v.InferOutput<typeof RunCountsSchema>;

/** One subject as stored in its batch item; client fields only for the client purposes. */
export interface BatchItemSubject extends Subject {
  reference?: string;
  rescreen_interval_days?: number;
  client_id?: string;
  /** A rescreen: the client's latest screen when the run found it due. */
  previous_screen_id?: string;
  /** A rescreen: the client's due date the run saw (its worker claims the client only if unchanged). */
  due_at?: string;
}

export const BatchRecordSchema = v.object({
  purpose: v.optional(v.picklist(BATCH_PURPOSES), 'screen'),
  run: v.optional(RunCountsSchema),
  entity: v.literal('batch'),
  batch_id: v.string(),
  tenant_id: v.string(),
  /** Subjects queued; a rescreen run may find none to queue (all claimed, or no quota left). */
  total: v.pipe(v.number(), v.integer(), v.minValue(0)),
  types: v.array(v.picklist(CHECK_TYPES)),
  /** The plan the batch was charged under. */
  plan: v.picklist(PLAN_IDS),
  /** The user who asked for it; `system` for a scheduled rescreen run. */
  created_by: v.object({ user_id: v.string(), role: v.picklist([...ROLES, 'system']) }),
  /** When the batch was charged: a refund goes back to that quota month. */
  created_at: v.string(),
  /** Finish sequence counter: the number of subjects numbered so far (done or failed). */
  finished: v.number(),
  /**
   * Of those, the subjects answered by an earlier screen and refunded (`skipped`); for a rescreen
   * run, the clients another run was already re-screening.
   */
  skipped: v.optional(v.number()),
  /** Of those, the subjects that failed for good (refunded; the stream's `error` events). */
  failed: v.optional(v.number()),
  expires_at: v.number(),
  /** The screen numbers drawn for its subjects when it was accepted (absent on older batches). */
  screen_numbers: v.optional(v.object({ day: v.string(), first: v.number() })),
});
export type BatchRecord = v.InferOutput<typeof BatchRecordSchema>;

const expiresAt = (at: Date) => Math.floor(at.getTime() / 1000) + BATCH_PROGRESS_RETENTION_SECONDS;
/** BatchWriteItem calls in flight at once when a batch's items are written. */
const WRITE_CONCURRENCY = 4;

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
  const marker: OpenBatch = {
    entity: 'open-batch',
    tenant_id: input.tenantId,
    batch_id: input.batchId,
    total: input.subjects.length,
    charged_at: input.at.toISOString(),
    expires_at: expires,
  };
  await table.doc.send(
    new PutCommand({
      TableName: table.name,
      Item: { ...keys.openBatch(input.tenantId, input.batchId), ...marker },
    }),
  );
  const items = input.subjects.map((subject, index) => ({
    ...keys.batchItem(input.tenantId, input.batchId, index),
    entity: 'batch-item',
    batch_id: input.batchId,
    tenant_id: input.tenantId,
    index,
    status: 'queued',
    subject,
    expires_at: expires,
  }));
  await writeAll(table, putRequests(items), { what: 'batch items', concurrency: WRITE_CONCURRENCY });
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
  await table.doc.send(
    new PutCommand({
      TableName: table.name,
      Item: { ...keys.batch(input.tenantId, input.batchId), ...record },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/**
 * A batch not known to be finished: written before anything else of the batch, deleted once its
 * last subject is recorded. After a restart of the local service (whose queue lives in memory),
 * the open batches are the ones to resume (lib/batch/resume.ts).
 */
export interface OpenBatch {
  entity: 'open-batch';
  tenant_id: string;
  batch_id: string;
  total: number;
  /** When the batch was charged: a refund goes back to that quota month. */
  charged_at: string;
  expires_at: number;
}

/** Every open batch of every tenant (an operator path: resuming after a restart). */
export async function listOpenBatches(table: Table): Promise<OpenBatch[]> {
  const items = await queryAll(table, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.openBatchesPartition },
    ConsistentRead: true,
  });
  return items as unknown as OpenBatch[];
}

/** The batch is finished (its last subject recorded): it is no longer open. */
export async function closeBatch(table: Table, ref: BatchRef): Promise<void> {
  await table.doc.send(
    new DeleteCommand({ TableName: table.name, Key: keys.openBatch(ref.tenantId, ref.batchId) }),
  );
}

/** The batch record, or undefined when there is none in this tenant (consistent read). */
export async function getBatch(table: Table, ref: BatchRef): Promise<BatchRecord | undefined> {
  const { Item } = await table.doc.send(
    new GetCommand({
      TableName: table.name,
      Key: keys.batch(ref.tenantId, ref.batchId),
      ConsistentRead: true,
    }),
  );
  return Item ? parseItem(BatchRecordSchema, Item) : undefined;
}

/** Numbers a finished subject (the batch's finish counter) and counts it if skipped, in one atomic ADD. */
export async function nextFinishSequence(
  table: Table,
  ref: BatchRef,
  tally: 'skipped' | 'failed' | null = null,
): Promise<number> {
  const { Attributes } = await table.doc.send(
    new UpdateCommand({
      TableName: table.name,
      Key: keys.batch(ref.tenantId, ref.batchId),
      UpdateExpression: tally ? `ADD finished :one, ${tally} :one` : 'ADD finished :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Attributes?.finished as number;
}
