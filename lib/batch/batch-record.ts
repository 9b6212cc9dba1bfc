import { PutCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { RiskLevel } from '../matcher/types.ts';
import type { Actor } from '../screening/screen-record.ts';
import {
  INDEXES,
  isConditionalCheckFailed,
  itemOfConditionFailure,
  keys,
  queryAll,
  type Table,
} from '../store/table.ts';
import type { CheckType } from '../watchlists/types.ts';

/**
 * Batch progress in the table. The batch item is the single record of one subject's fate: the
 * worker claims it before screening (so a redelivered message finds it and does nothing twice)
 * and finishes it with the screen id or the failure; the stream reads finished items back in
 * the order they finished. Progress is operational state, not the audit record (the screens
 * are), so it expires after a week.
 */
export const BATCH_PROGRESS_RETENTION_SECONDS = 7 * 24 * 3600;

/** A screening lease: longer than the worker takes on one subject, shorter than SQS redelivery. */
export const CLAIM_LEASE_MS = 60_000;

export interface BatchRef {
  tenantId: string;
  batchId: string;
}

export interface BatchRecord {
  entity: 'batch';
  batch_id: string;
  tenant_id: string;
  total: number;
  types: CheckType[];
  created_by: Actor;
  created_at: string;
  /** Finish sequence counter: the number of subjects numbered so far (done or failed). */
  finished: number;
  expires_at: number;
}

export type BatchItemStatus = 'processing' | 'done' | 'failed';

/** A finished subject as the stream reports it. */
export type FinishedItem =
  | { status: 'done'; index: number; seq: number; screen_id: string; risk_level: RiskLevel; skipped: boolean }
  | { status: 'failed'; index: number; seq: number; detail: string };

const expiresAt = (at: Date) => Math.floor(at.getTime() / 1000) + BATCH_PROGRESS_RETENTION_SECONDS;
const sequenceKey = (seq: number) => String(seq).padStart(6, '0');

export async function createBatchRecord(
  table: Table,
  input: BatchRef & { total: number; types: CheckType[]; createdBy: Actor; at: Date },
): Promise<void> {
  const record: BatchRecord = {
    entity: 'batch',
    batch_id: input.batchId,
    tenant_id: input.tenantId,
    total: input.total,
    types: input.types,
    created_by: input.createdBy,
    created_at: input.at.toISOString(),
    finished: 0,
    expires_at: expiresAt(input.at),
  };
  await table.doc.send(
    new PutCommand({
      TableName: table.name,
      Item: { ...keys.batch(input.tenantId, input.batchId), ...record },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export type ClaimOutcome =
  | { claimed: true }
  | { claimed: false; status: BatchItemStatus | undefined; leaseUntil: number | undefined };

/**
 * Claims a subject for screening with one conditional write: it succeeds when nobody has
 * claimed it, or when an earlier claim's lease ran out while still processing (that worker
 * died). A subject already done or failed, or being screened right now, is not claimed again.
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
    await table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression:
          'SET entity = :entity, batch_id = :batch, tenant_id = :tenant, #index = :index, #status = :processing, ' +
          'claim_token = :token, lease_until = :lease, first_claimed_at = if_not_exists(first_claimed_at, :now), ' +
          'expires_at = :expires ADD attempts :one',
        ConditionExpression: 'attribute_not_exists(pk) OR (#status = :processing AND lease_until < :nowMs)',
        ExpressionAttributeNames: { '#status': 'status', '#index': 'index' },
        ExpressionAttributeValues: {
          ':entity': 'batch-item',
          ':batch': ref.batchId,
          ':tenant': ref.tenantId,
          ':index': index,
          ':processing': 'processing',
          ':token': token,
          ':lease': now.getTime() + CLAIM_LEASE_MS,
          ':now': now.toISOString(),
          ':nowMs': now.getTime(),
          ':expires': expiresAt(now),
          ':one': 1,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { claimed: true };
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
  await updateIf(table, {
    Key: keys.batchItem(ref.tenantId, ref.batchId, index),
    UpdateExpression: 'SET lease_until = :expired',
    ConditionExpression: '#status = :processing AND claim_token = :token',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':expired': 0, ':processing': 'processing', ':token': token },
  });
}

/** Numbers a finished subject: the batch's finish counter, one atomic ADD. */
export async function nextFinishSequence(table: Table, ref: BatchRef): Promise<number> {
  const { Attributes } = await table.doc.send(
    new UpdateCommand({
      TableName: table.name,
      Key: keys.batch(ref.tenantId, ref.batchId),
      UpdateExpression: 'ADD finished :one',
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

/** Runs a conditional update; false when its condition did not hold. */
async function updateIf(table: Table, input: Omit<UpdateCommandInput, 'TableName'>): Promise<boolean> {
  try {
    await table.doc.send(new UpdateCommand({ ...input, TableName: table.name }));
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
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
  screen: { screen_id: string; risk_level: RiskLevel; skipped: boolean },
  at: Date,
): Promise<boolean> {
  const ordered = finishedInOrder(ref, seq, at);
  return updateIf(table, {
    Key: keys.batchItem(ref.tenantId, ref.batchId, index),
    UpdateExpression:
      'SET #status = :done, screen_id = :screen, risk_level = :risk, skipped = :skipped, ' +
      `${ordered.set} REMOVE lease_until`,
    ConditionExpression: '#status = :processing AND claim_token = :token',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':done': 'done',
      ':processing': 'processing',
      ':token': token,
      ':screen': screen.screen_id,
      ':risk': screen.risk_level,
      ':skipped': screen.skipped,
      ...ordered.values,
    },
  });
}

/**
 * Records that a subject failed for good (never claimed because it could not be queued, or
 * claimed and out of retries). False when it had already finished, so a failure is recorded,
 * and refunded, at most once.
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
  return updateIf(table, {
    Key: keys.batchItem(ref.tenantId, ref.batchId, index),
    UpdateExpression:
      'SET entity = :entity, batch_id = :batch, tenant_id = :tenant, #index = :index, #status = :failed, ' +
      `detail = :detail, ${ordered.set}, expires_at = :expires REMOVE lease_until`,
    ConditionExpression: 'attribute_not_exists(#status) OR #status = :processing',
    ExpressionAttributeNames: { '#status': 'status', '#index': 'index' },
    ExpressionAttributeValues: {
      ':entity': 'batch-item',
      ':batch': ref.batchId,
      ':tenant': ref.tenantId,
      ':index': index,
      ':failed': 'failed',
      ':processing': 'processing',
      ':detail': detail,
      ':expires': expiresAt(at),
      ...ordered.values,
    },
  });
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
          }
        : {
            status: 'failed',
            index: item.index as number,
            seq: item.seq as number,
            detail: item.detail as string,
          },
  );
}
