import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { RiskLevel } from '../matcher/types.ts';
import { reserveScreenNumbers } from '../screening/screen-id.ts';
import type { Subject } from '../screening/subject.ts';
import {
  INDEXES,
  isConditionalCheckFailed,
  itemOfConditionFailure,
  keys,
  parseItem,
  putRequests,
  queryAll,
  type Table,
  writeAll,
  writeIf,
} from '../store/table.ts';
import { PLAN_IDS, type PlanId } from '../tenancy/plans.ts';
import { refundScreens } from '../tenancy/quota.ts';
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

/** A screening lease: longer than the worker takes on one subject, shorter than SQS redelivery. */
export const CLAIM_LEASE_MS = 60_000;

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
  trigger: v.picklist(['schedule', 'manual', 'list_change']),
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
  expires_at: v.number(),
  /** The screen numbers drawn for its subjects when it was accepted (absent on older batches). */
  screen_numbers: v.optional(v.object({ day: v.string(), first: v.number() })),
});
export type BatchRecord = v.InferOutput<typeof BatchRecordSchema>;

export type BatchItemStatus = 'queued' | 'processing' | 'done' | 'failed';

/** A finished subject as the stream reports it. */
export type FinishedItem =
  | {
      status: 'done';
      index: number;
      seq: number;
      screen_id: string;
      risk_level: RiskLevel;
      skipped: boolean;
      client_id?: string;
    }
  | { status: 'failed'; index: number; seq: number; detail: string };

const expiresAt = (at: Date) => Math.floor(at.getTime() / 1000) + BATCH_PROGRESS_RETENTION_SECONDS;
const sequenceKey = (seq: number) => String(seq).padStart(6, '0');

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

/** The positions of a batch's subjects that are not finished (queued, or claimed and not recorded). */
export async function unfinishedItems(
  table: Table,
  ref: BatchRef,
): Promise<{ index: number; status: BatchItemStatus }[]> {
  const items = await queryAll(table, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :items)',
    FilterExpression: '#status IN (:queued, :processing)',
    ExpressionAttributeNames: { '#status': 'status', '#index': 'index' },
    ExpressionAttributeValues: {
      ':pk': keys.tenantPartition(ref.tenantId),
      ':items': `${keys.batch(ref.tenantId, ref.batchId).sk}#ITEM#`,
      ':queued': 'queued',
      ':processing': 'processing',
    },
    ProjectionExpression: '#index, #status',
    ConsistentRead: true,
  });
  return items.map((item) => ({ index: item.index as number, status: item.status as BatchItemStatus }));
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

export type ClaimOutcome =
  | { claimed: true; subject: BatchItemSubject }
  | { claimed: false; status: BatchItemStatus | undefined; leaseUntil: number | undefined };

/**
 * Claims a queued subject for screening with one conditional write, which also returns the
 * stored subject: it succeeds when the subject is queued, or when an earlier claim's lease ran
 * out while still processing (that worker died). A subject already done or failed, being
 * screened right now, or not in the batch at all (`status` undefined) is not claimed.
 */
export async function claimBatchItem(
  table: Table,
  ref: BatchRef,
  index: number,
  token: string,
  now: Date,
): Promise<ClaimOutcome> {
  const key = keys.batchItem(ref.tenantId, ref.batchId, index);
  try {
    const { Attributes } = await table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression:
          'SET #status = :processing, claim_token = :token, lease_until = :lease, ' +
          'first_claimed_at = if_not_exists(first_claimed_at, :now) ADD attempts :one',
        ConditionExpression: '#status = :queued OR (#status = :processing AND lease_until < :nowMs)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':queued': 'queued',
          ':processing': 'processing',
          ':token': token,
          ':lease': now.getTime() + CLAIM_LEASE_MS,
          ':now': now.toISOString(),
          ':nowMs': now.getTime(),
          ':one': 1,
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { claimed: true, subject: Attributes?.subject as BatchItemSubject };
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const found = await itemOfConditionFailure(table, error, key);
    return {
      claimed: false,
      status: found?.status as BatchItemStatus | undefined,
      leaseUntil: found?.lease_until as number | undefined,
    };
  }
}

/**
 * Gives up a claim after a failed attempt that will be retried, so the retry need not wait for
 * the lease to run out. Only the holder of the claim can release it.
 */
export async function releaseBatchItem(
  table: Table,
  ref: BatchRef,
  index: number,
  token: string,
): Promise<void> {
  // A lost claim (another delivery finished or took over) has nothing left to release.
  await writeIf(
    table,
    new UpdateCommand({
      TableName: table.name,
      Key: keys.batchItem(ref.tenantId, ref.batchId, index),
      UpdateExpression: 'SET lease_until = :expired',
      ConditionExpression: '#status = :processing AND claim_token = :token',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':expired': 0, ':processing': 'processing', ':token': token },
    }),
  );
}

/** Numbers a finished subject (the batch's finish counter) and counts it if skipped, in one atomic ADD. */
export async function nextFinishSequence(table: Table, ref: BatchRef, skipped = false): Promise<number> {
  const { Attributes } = await table.doc.send(
    new UpdateCommand({
      TableName: table.name,
      Key: keys.batch(ref.tenantId, ref.batchId),
      UpdateExpression: skipped ? 'ADD finished :one, skipped :one' : 'ADD finished :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Attributes?.finished as number;
}

/**
 * The attributes that place a finished subject (screened or failed) in the batch's progress
 * index, in finish order: the stream reads them back by their batch-progress sort key, so both outcomes must write
 * them the same way.
 */
function finishedInOrder(ref: BatchRef, seq: number, at: Date) {
  return {
    set: `seq = :seq, finished_at = :at, ${INDEXES.batchProgress.partitionKey} = :progressPk, ${INDEXES.batchProgress.sortKey} = :progressSk`,
    values: {
      ':seq': seq,
      ':at': at.toISOString(),
      ':progressPk': keys.batchProgressIndex(ref.tenantId, ref.batchId),
      ':progressSk': sequenceKey(seq),
    },
  };
}

/**
 * Records the screen of a claimed subject. Only the holder of the claim can finish it, and only
 * once: false when the claim was lost (its lease ran out and another delivery took over).
 */
export async function finishBatchItem(
  table: Table,
  ref: BatchRef,
  index: number,
  token: string,
  seq: number,
  screen: { screen_id: string; risk_level: RiskLevel; skipped: boolean; client_id?: string },
  at: Date,
): Promise<boolean> {
  const ordered = finishedInOrder(ref, seq, at);
  return writeIf(
    table,
    new UpdateCommand({
      TableName: table.name,
      Key: keys.batchItem(ref.tenantId, ref.batchId, index),
      UpdateExpression:
        'SET #status = :done, screen_id = :screen, risk_level = :risk, skipped = :skipped, ' +
        `${screen.client_id ? 'client_id = :client, ' : ''}${ordered.set} REMOVE lease_until`,
      ConditionExpression: '#status = :processing AND claim_token = :token',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':done': 'done',
        ':processing': 'processing',
        ':token': token,
        ':screen': screen.screen_id,
        ':risk': screen.risk_level,
        ':skipped': screen.skipped,
        ...(screen.client_id ? { ':client': screen.client_id } : {}),
        ...ordered.values,
      },
    }),
  );
}

/**
 * Records that a subject failed for good (could not be queued, or claimed and out of retries).
 * Only a subject of the batch that has not finished can fail: false otherwise, so a failure is
 * recorded, and refunded, at most once, and a forged position creates nothing.
 */
export async function failBatchItem(
  table: Table,
  ref: BatchRef,
  index: number,
  seq: number,
  detail: string,
  at: Date,
): Promise<boolean> {
  const ordered = finishedInOrder(ref, seq, at);
  return writeIf(
    table,
    new UpdateCommand({
      TableName: table.name,
      Key: keys.batchItem(ref.tenantId, ref.batchId, index),
      UpdateExpression: `SET #status = :failed, detail = :detail, ${ordered.set} REMOVE lease_until`,
      ConditionExpression: '#status IN (:queued, :processing)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':failed': 'failed',
        ':queued': 'queued',
        ':processing': 'processing',
        ':detail': detail,
        ...ordered.values,
      },
    }),
  );
}

/** What recording a subject's outcome needs to know of its batch. */
export interface BatchAccount extends BatchRef {
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
): Promise<boolean> {
  const seq = await nextFinishSequence(table, batch);
  const recorded = await failBatchItem(table, batch, index, seq, detail, new Date());
  if (recorded) await refundScreens(table, batch.tenantId, 1, batch.chargedAt);
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
  screen: Parameters<typeof finishBatchItem>[5],
): Promise<boolean> {
  const seq = await nextFinishSequence(table, batch, screen.skipped);
  const finished = await finishBatchItem(table, batch, index, token, seq, screen, new Date());
  if (finished && screen.skipped) await refundScreens(table, batch.tenantId, 1, batch.chargedAt);
  await closeIfLast(table, batch, seq);
  return finished;
}

/**
 * Ends a claim whose holder is known to be gone (the local service restarted), so the subject
 * can be claimed again at once instead of after the lease.
 */
export async function expireClaim(table: Table, ref: BatchRef, index: number): Promise<void> {
  await writeIf(
    table,
    new UpdateCommand({
      TableName: table.name,
      Key: keys.batchItem(ref.tenantId, ref.batchId, index),
      UpdateExpression: 'SET lease_until = :expired',
      ConditionExpression: '#status = :processing',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':expired': 0, ':processing': 'processing' },
    }),
  );
}

/** The subjects that finished with a sequence above `afterSeq`, in finish order. */
export async function readFinishedItems(
  table: Table,
  ref: BatchRef,
  afterSeq: number,
): Promise<FinishedItem[]> {
  const items = await queryAll(table, {
    IndexName: INDEXES.batchProgress.name,
    KeyConditionExpression: `${INDEXES.batchProgress.partitionKey} = :pk AND ${INDEXES.batchProgress.sortKey} > :after`,
    ExpressionAttributeValues: {
      ':pk': keys.batchProgressIndex(ref.tenantId, ref.batchId),
      ':after': sequenceKey(afterSeq),
    },
  });
  return items.map(
    (item): FinishedItem =>
      item.status === 'done'
        ? {
            status: 'done',
            index: item.index as number,
            seq: item.seq as number,
            screen_id: item.screen_id as string,
            risk_level: item.risk_level as RiskLevel,
            skipped: item.skipped as boolean,
            ...(typeof item.client_id === 'string' ? { client_id: item.client_id } : {}),
          }
        : {
            status: 'failed',
            index: item.index as number,
            seq: item.seq as number,
            detail: item.detail as string,
          },
  );
}
