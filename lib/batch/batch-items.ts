import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RiskLevel } from '../matcher/types.ts';
import { outboxEvent, outboxUpdate } from '../outbox/outbox.ts';
import { INDEXES, keys } from '../store/schema.ts';
import {
  isConditionalCheckFailed,
  itemOfConditionFailure,
  queryAll,
  type Table,
  writeIf,
} from '../store/table.ts';
import { refundScreens } from '../tenancy/quota.ts';
import {
  type BatchItemSubject,
  type BatchPurpose,
  type BatchRef,
  closeBatch,
  nextFinishSequence,
} from './batch-record.ts';

/**
 * A batch's items: one per subject, written with the batch (lib/batch/batch-record.ts), then
 * claimed by the worker before screening, finished with the screen id or failed, and read back by
 * the stream in the order they finished (their batch-progress keys).
 */
/** A screening lease: longer than the worker takes on one subject, shorter than SQS redelivery. */
export const CLAIM_LEASE_MS = 60_000;

export type BatchItemStatus = 'queued' | 'processing' | 'done' | 'failed';

/**
 * Why a subject failed for good: `refused` (the use case said no, in words for the tenant: a
 * reference taken, a client no longer monitored), or `error` (it kept failing, or was never
 * queued or resumed).
 */
export type SubjectFailure = 'refused' | 'error';

/** A subject that failed for good, as a rescreen run's report lists it. */
export interface FailedItem {
  index: number;
  subject: BatchItemSubject;
  detail: string;
  failure: SubjectFailure;
}

/** The subjects of a batch that failed for good, in subject order (read only when there are some). */
export async function failedItems(table: Table, ref: BatchRef): Promise<FailedItem[]> {
  const items = await queryAll(table, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :items)',
    FilterExpression: '#status = :failed',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':pk': keys.tenantPartition(ref.tenantId),
      ':items': `${keys.batch(ref.tenantId, ref.batchId).sk}#ITEM#`,
      ':failed': 'failed',
    },
  });
  return items.map((item) => ({
    index: item.index as number,
    subject: item.subject as BatchItemSubject,
    detail: item.detail as string,
    failure: item.failure === 'refused' ? 'refused' : 'error',
  }));
}

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

const sequenceKey = (seq: number) => String(seq).padStart(6, '0');

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

/**
 * The attributes that place a finished subject (screened or failed) in the batch's progress
 * index, in finish order: the stream reads them back by their batch-progress sort key, so both outcomes must write
 * them the same way.
 */
function finishedInOrder(ref: BatchRef & Partial<BatchTotal>, seq: number, at: Date, itemKey: ItemKey) {
  const completion = completionEvent(ref, seq, at, itemKey);
  return {
    set: `seq = :seq, finished_at = :at, ${INDEXES.batchProgress.partitionKey} = :progressPk, ${INDEXES.batchProgress.sortKey} = :progressSk${completion ? `, ${completion.set}` : ''}`,
    values: {
      ':seq': seq,
      ':at': at.toISOString(),
      ':progressPk': keys.batchProgressIndex(ref.tenantId, ref.batchId),
      ':progressSk': sequenceKey(seq),
      ...completion?.values,
    },
  };
}

type ItemKey = { pk: string; sk: string };

/** What tells the last finish of a batch, and which event announces it. */
export interface BatchTotal {
  total: number;
  purpose: BatchPurpose;
}

/**
 * The last subject's record carries the batch's completion event (`batch.completed`, or
 * `rescreen_run.completed` for a run), written with it (lib/outbox/outbox.ts): the same finish
 * number that closes the batch (`closeIfLast`) announces it.
 */
function completionEvent(ref: BatchRef & Partial<BatchTotal>, seq: number, at: Date, itemKey: ItemKey) {
  if (ref.total === undefined || seq < ref.total) return undefined;
  const run = ref.purpose === 'rescreen';
  return outboxUpdate(itemKey, [
    outboxEvent(
      run ? 'rescreen_run.completed' : 'batch.completed',
      ref.tenantId,
      {
        [run ? 'run_id' : 'batch_id']: ref.batchId,
        purpose: ref.purpose ?? 'screen',
        total: ref.total,
        finished: seq,
        completed_at: at.toISOString(),
      },
      at,
    ),
  ]);
}

/**
 * Records the screen of a claimed subject. Only the holder of the claim can finish it, and only
 * once: false when the claim was lost (its lease ran out and another delivery took over).
 */
export async function finishBatchItem(
  table: Table,
  ref: BatchRef & Partial<BatchTotal>,
  index: number,
  token: string,
  seq: number,
  screen: { screen_id: string; risk_level: RiskLevel; skipped: boolean; client_id?: string },
  at: Date,
): Promise<boolean> {
  const key = keys.batchItem(ref.tenantId, ref.batchId, index);
  const ordered = finishedInOrder(ref, seq, at, key);
  return writeIf(
    table,
    new UpdateCommand({
      TableName: table.name,
      Key: key,
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
  ref: BatchRef & Partial<BatchTotal>,
  index: number,
  seq: number,
  detail: string,
  at: Date,
  failure: SubjectFailure = 'error',
): Promise<boolean> {
  const key = keys.batchItem(ref.tenantId, ref.batchId, index);
  const ordered = finishedInOrder(ref, seq, at, key);
  return writeIf(
    table,
    new UpdateCommand({
      TableName: table.name,
      Key: key,
      UpdateExpression: `SET #status = :failed, detail = :detail, failure = :failure, ${ordered.set} REMOVE lease_until`,
      ConditionExpression: '#status IN (:queued, :processing)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':failed': 'failed',
        ':queued': 'queued',
        ':processing': 'processing',
        ':detail': detail,
        ':failure': failure,
        ...ordered.values,
      },
    }),
  );
}

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
): Promise<boolean> {
  const seq = await nextFinishSequence(table, batch, 'failed');
  const recorded = await failBatchItem(table, batch, index, seq, detail, new Date(), failure);
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
  const seq = await nextFinishSequence(table, batch, screen.skipped ? 'skipped' : null);
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
