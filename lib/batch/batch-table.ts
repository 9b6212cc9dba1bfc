import * as v from 'valibot';
import { RISK_ORDER } from '../matcher/types.ts';
import { outboxEvent, outboxUpdate } from '../outbox/outbox.ts';
import { RESCREEN_TRIGGERS } from '../screening/screen-record.ts';
import { SubjectSchema } from '../screening/subject.ts';
import { INDEXES, indexKeys, keys } from '../store/schema.ts';
import {
  parseItem,
  putRequests,
  queryAll,
  queryIndexPage,
  readItem,
  type Table,
  writeAll,
} from '../store/table.ts';
import { sendWrite, sendWriteIf, type TableWrite, trySendWrite } from '../store/write.ts';
import { PLAN_IDS } from '../tenancy/plans.ts';
import { ROLES } from '../tenancy/roles.ts';
import { CHECK_TYPES } from '../watchlists/types.ts';

/**
 * The batch's stored kinds: the batch record, one batch item per subject, and the open-batch
 * marker (lib/store/schema.ts). The batch record holds what the caller asked for (total, check
 * types, plan, author) and is the only source of the principal a subject is screened for. Each
 * subject has its batch item, written with the subject when the batch starts: the queue message
 * only points at it (tenant, batch, index), so the queue holds no personal data and a forged
 * message can neither inject a subject nor borrow an author. The worker claims the item before
 * screening (so a redelivered message finds it and does nothing twice) and finishes it with the
 * screen id or the failure; the stream reads finished items back in the order they finished
 * (their batch-progress keys).
 */

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

/**
 * One subject as stored in its batch item; client fields only for the client purposes. Loose:
 * the subject is handed back to the worker exactly as it was stored.
 */
export const BatchItemSubjectSchema = v.looseObject({
  ...SubjectSchema.entries,
  reference: v.optional(v.string()),
  rescreen_interval_days: v.optional(v.number()),
  client_id: v.optional(v.string()),
  /** A rescreen: the client's latest screen when the run found it due. */
  previous_screen_id: v.optional(v.string()),
  /** A rescreen: the client's due date the run saw (its worker claims the client only if unchanged). */
  due_at: v.optional(v.string()),
});
export type BatchItemSubject = v.InferOutput<typeof BatchItemSubjectSchema>;

export const BATCH_ITEM_STATUSES = ['queued', 'processing', 'done', 'failed'] as const;
export type BatchItemStatus = (typeof BATCH_ITEM_STATUSES)[number];

/**
 * Why a subject failed for good: `refused` (the use case said no, in words for the tenant: a
 * reference taken, a client no longer monitored), or `error` (it kept failing, or was never
 * queued or resumed).
 */
export type SubjectFailure = 'refused' | 'error';

/** What every batch item holds, whatever its status. */
const batchItemEntries = {
  entity: v.literal('batch-item'),
  batch_id: v.string(),
  tenant_id: v.string(),
  index: v.number(),
  subject: BatchItemSubjectSchema,
  expires_at: v.number(),
  /** The last claim (absent while never claimed): its token, its lease (epoch ms, 0 once ended). */
  claim_token: v.optional(v.string()),
  lease_until: v.optional(v.number()),
  first_claimed_at: v.optional(v.string()),
  attempts: v.optional(v.number()),
};

/** Where a finished subject stands in its batch's finish order (its batch-progress keys). */
const finishedEntries = { seq: v.number(), finished_at: v.string() };

/** A batch item, by status: queued, claimed (`processing`), screened (`done`) or failed for good. */
export const BatchItemSchema = v.variant('status', [
  v.object({ ...batchItemEntries, status: v.picklist(['queued', 'processing']) }),
  v.object({
    ...batchItemEntries,
    ...finishedEntries,
    status: v.literal('done'),
    screen_id: v.string(),
    risk_level: v.picklist(RISK_ORDER),
    skipped: v.boolean(),
    client_id: v.optional(v.string()),
  }),
  v.object({
    ...batchItemEntries,
    ...finishedEntries,
    status: v.literal('failed'),
    detail: v.string(),
    /** Absent on items failed before it was recorded: an `error`. */
    failure: v.optional(v.string()),
  }),
]);
export type BatchItem = v.InferOutput<typeof BatchItemSchema>;

/**
 * A batch not known to be finished: written before anything else of the batch, deleted once its
 * last subject is recorded. After a restart of the local service (whose queue lives in memory),
 * the open batches are the ones to resume (lib/batch/resume.ts).
 */
export const OpenBatchSchema = v.object({
  entity: v.literal('open-batch'),
  tenant_id: v.string(),
  batch_id: v.string(),
  total: v.number(),
  /** When the batch was charged: a refund goes back to that quota month. */
  charged_at: v.string(),
  expires_at: v.number(),
});
export type OpenBatch = v.InferOutput<typeof OpenBatchSchema>;

/** A screening lease: longer than the worker takes on one subject, shorter than SQS redelivery. */
export const CLAIM_LEASE_MS = 60_000;

/** BatchWriteItem calls in flight at once when a batch's items are written. */
const WRITE_CONCURRENCY = 4;

/** A refused condition that today's callers never expect (an id reused, a batch gone): a server fault. */
const serverFault = (message: string) => () => new Error(message);

/**
 * The attributes that place a finished subject (screened or failed) in the batch's progress
 * index, in finish order: the stream reads them back by their batch-progress sort key, so both
 * outcomes must write them the same way. With the item's key, which the completion event names.
 */
function finishedInOrder(ref: BatchRef & Partial<BatchTotal>, index: number, seq: number, at: Date) {
  const key = keys.batchItem(ref.tenantId, ref.batchId, index);
  const completion = completionEvent(ref, seq, at, key);
  const ordered = {
    set: `seq = :seq, finished_at = :at, ${INDEXES.batchProgress.partitionKey} = :progressPk, ${INDEXES.batchProgress.sortKey} = :progressSk${completion ? `, ${completion.set}` : ''}`,
    values: {
      ':seq': seq,
      ':at': at.toISOString(),
      ':progressPk': keys.batchProgressIndex(ref.tenantId, ref.batchId),
      ':progressSk': sequenceKey(seq),
      ...completion?.values,
    },
  };
  return { key, ordered };
}

const sequenceKey = (seq: number) => String(seq).padStart(6, '0');

type ItemKey = { pk: string; sk: string };

/** What tells the last finish of a batch, and which event announces it. */
export interface BatchTotal {
  total: number;
  purpose: BatchPurpose;
}

/**
 * The last subject's record carries the batch's completion event (`batch.completed`, or
 * `rescreen_run.completed` for a run), written with it (lib/outbox/outbox.ts): the same finish
 * number that closes the batch (lib/batch/batch-items.ts) announces it.
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

/** A screened subject as its batch item records it. */
export interface ScreenedSubject {
  screen_id: string;
  risk_level: (typeof RISK_ORDER)[number];
  skipped: boolean;
  client_id?: string;
}

/** Which of the tenant's lists a batch is in: its batches, or (a rescreen run) its runs. */
export const listedAs = (purpose: BatchPurpose): 'batches' | 'runs' =>
  purpose === 'rescreen' ? 'runs' : 'batches';

/** The batch's place in its list (the tenant-batches sort key): newest first by when it was charged. */
export const listPosition = (record: Pick<BatchRecord, 'created_at' | 'batch_id'>): string =>
  `${record.created_at}#${record.batch_id}`;

/**
 * One page of a tenant's batches or rescreen runs, newest first, after the position `after` (a
 * previous page's last `listPosition`). Batches recorded before the index was added (a week's
 * worth at most: batch records expire) are not listed; GET /batch/{id} still reads them.
 */
export async function batchListPage(
  table: Table,
  tenantId: string,
  list: 'batches' | 'runs',
  after: string | undefined,
  limit: number,
): Promise<{ records: BatchRecord[]; more: boolean }> {
  const batchIdOf = (position: string) => position.slice(position.indexOf('#') + 1);
  const page = await queryIndexPage(
    table,
    'tenantBatches',
    keys.tenantBatchesIndex(tenantId, list),
    after ? { sortKey: after, itemKey: keys.batch(tenantId, batchIdOf(after)) } : undefined,
    limit,
  );
  return { records: page.items.map((item) => parseItem(BatchRecordSchema, item)), more: page.more };
}

/** The batch's writes, as values (lib/store/write.ts). */
export const batchWrites = {
  /** The open-batch marker, written first: whatever happens next, a restart finds the batch. */
  open(marker: OpenBatch): TableWrite {
    return {
      Put: { Item: { ...keys.openBatch(marker.tenant_id, marker.batch_id), ...marker } },
      what: 'open batch',
    };
  },

  /**
   * The batch record, condition attribute_not_exists: a batch id is never reused. With its entry
   * in the tenant-batches index (GET /batch, GET /clients/rescreen/runs list it from there).
   */
  record(record: BatchRecord): TableWrite {
    return {
      Put: {
        Item: {
          ...keys.batch(record.tenant_id, record.batch_id),
          ...record,
          ...indexKeys(
            'tenantBatches',
            keys.tenantBatchesIndex(record.tenant_id, listedAs(record.purpose)),
            listPosition(record),
          ),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
      what: 'batch record',
      refused: serverFault(`Batch ${record.batch_id} already exists`),
    };
  },

  /** Numbers a finished subject (the finish counter) and counts it if skipped or failed, in one ADD. */
  numberFinished(ref: BatchRef, tally: 'skipped' | 'failed' | null): TableWrite {
    return {
      Update: {
        Key: keys.batch(ref.tenantId, ref.batchId),
        UpdateExpression: tally ? `ADD finished :one, ${tally} :one` : 'ADD finished :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1 },
      },
      what: 'batch finish counter',
      refused: serverFault(`Batch ${ref.batchId} has no record to number its subjects`),
    };
  },

  /** The batch is finished (its last subject recorded): it is no longer open. */
  close(ref: BatchRef): TableWrite {
    return { Delete: { Key: keys.openBatch(ref.tenantId, ref.batchId) }, what: 'open batch' };
  },
};

/** The batch items' writes, as values (lib/store/write.ts). */
export const batchItemWrites = {
  /**
   * Claims a subject for screening: succeeds when it is queued, or when an earlier claim's lease
   * ran out while still processing (that worker died).
   */
  claim(ref: BatchRef, index: number, token: string, now: Date): TableWrite {
    return {
      Update: {
        Key: keys.batchItem(ref.tenantId, ref.batchId, index),
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
      },
      what: 'batch subject claim',
    };
  },

  /** Ends the lease of a claim, held under `token` (the holder's own release) or by anyone. */
  endLease(ref: BatchRef, index: number, token?: string): TableWrite {
    return {
      Update: {
        Key: keys.batchItem(ref.tenantId, ref.batchId, index),
        UpdateExpression: 'SET lease_until = :expired',
        ConditionExpression:
          token === undefined ? '#status = :processing' : '#status = :processing AND claim_token = :token',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':expired': 0,
          ':processing': 'processing',
          ...(token === undefined ? {} : { ':token': token }),
        },
      },
      what: 'batch subject claim',
    };
  },

  /** The screen of a subject, by the holder of its claim only, once. */
  finish(
    ref: BatchRef & Partial<BatchTotal>,
    index: number,
    token: string,
    seq: number,
    screen: ScreenedSubject,
    at: Date,
  ): TableWrite {
    const { key, ordered } = finishedInOrder(ref, index, seq, at);
    return {
      Update: {
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
      },
      what: 'batch subject',
    };
  },

  /** A subject failed for good: only one of the batch that has not finished. */
  fail(
    ref: BatchRef & Partial<BatchTotal>,
    index: number,
    seq: number,
    detail: string,
    at: Date,
    failure: SubjectFailure,
  ): TableWrite {
    const { key, ordered } = finishedInOrder(ref, index, seq, at);
    return {
      Update: {
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
      },
      what: 'batch subject',
    };
  },
};

/** Writes the open-batch marker: first, so whatever happens next a restart finds the batch (and its charge). */
export async function openBatch(table: Table, marker: OpenBatch): Promise<void> {
  await sendWrite(table, batchWrites.open(marker));
}

/** Writes one item per subject (status `queued`, with the subject), expiring with the batch. */
export async function putBatchItems(
  table: Table,
  ref: BatchRef,
  subjects: readonly BatchItemSubject[],
  expiresAt: number,
): Promise<void> {
  const items = subjects.map((subject, index) => ({
    ...keys.batchItem(ref.tenantId, ref.batchId, index),
    entity: 'batch-item',
    batch_id: ref.batchId,
    tenant_id: ref.tenantId,
    index,
    status: 'queued',
    subject,
    expires_at: expiresAt,
  }));
  await writeAll(table, putRequests(items), { what: 'batch items', concurrency: WRITE_CONCURRENCY });
}

/** Writes the batch record, condition attribute_not_exists: a batch id is never reused. */
export async function putBatchRecord(table: Table, record: BatchRecord): Promise<void> {
  await sendWrite(table, batchWrites.record(record));
}

/** Every open batch of every tenant (an operator path: resuming after a restart). */
export async function listOpenBatches(table: Table): Promise<OpenBatch[]> {
  const items = await queryAll(table, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.openBatchesPartition },
    ConsistentRead: true,
  });
  return items.map((item) => parseItem(OpenBatchSchema, item));
}

/** The batch is finished (its last subject recorded): it is no longer open. */
export async function closeBatch(table: Table, ref: BatchRef): Promise<void> {
  await sendWrite(table, batchWrites.close(ref));
}

/** The batch record, or undefined when there is none in this tenant (consistent read). */
export async function getBatch(table: Table, ref: BatchRef): Promise<BatchRecord | undefined> {
  const item = await readItem(table, keys.batch(ref.tenantId, ref.batchId));
  return item ? parseItem(BatchRecordSchema, item) : undefined;
}

/** Numbers a finished subject (the batch's finish counter) and counts it if skipped, in one atomic ADD. */
export async function nextFinishSequence(
  table: Table,
  ref: BatchRef,
  tally: 'skipped' | 'failed' | null = null,
): Promise<number> {
  const updated = await sendWrite(table, batchWrites.numberFinished(ref, tally), 'UPDATED_NEW');
  return updated?.finished as number;
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
  const outcome = await trySendWrite(table, batchItemWrites.claim(ref, index, token, now), 'ALL_NEW');
  if (outcome.written)
    return { claimed: true, subject: parseItem(BatchItemSchema, outcome.attributes ?? {}).subject };
  const item = outcome.found ? parseItem(BatchItemSchema, outcome.found) : undefined;
  return { claimed: false, status: item?.status, leaseUntil: item?.lease_until };
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
  await sendWriteIf(table, batchItemWrites.endLease(ref, index, token));
}

/**
 * Ends a claim whose holder is known to be gone (the local service restarted), so the subject
 * can be claimed again at once instead of after the lease.
 */
export async function expireClaim(table: Table, ref: BatchRef, index: number): Promise<void> {
  await sendWriteIf(table, batchItemWrites.endLease(ref, index));
}

/**
 * Records the screen of a claimed subject. Only the holder of the claim can finish it, and only
 * once: false when the claim was lost (its lease ran out and another delivery took over).
 */
export function finishBatchItem(
  table: Table,
  ref: BatchRef & Partial<BatchTotal>,
  index: number,
  token: string,
  seq: number,
  screen: ScreenedSubject,
  at: Date,
): Promise<boolean> {
  return sendWriteIf(table, batchItemWrites.finish(ref, index, token, seq, screen, at));
}

/**
 * Records that a subject failed for good (could not be queued, or claimed and out of retries).
 * Only a subject of the batch that has not finished can fail: false otherwise, so a failure is
 * recorded, and refunded, at most once, and a forged position creates nothing.
 */
export function failBatchItem(
  table: Table,
  ref: BatchRef & Partial<BatchTotal>,
  index: number,
  seq: number,
  detail: string,
  at: Date,
  failure: SubjectFailure = 'error',
): Promise<boolean> {
  return sendWriteIf(table, batchItemWrites.fail(ref, index, seq, detail, at, failure));
}

/** The sort key prefix of a batch's items in the tenant's partition. */
const itemsPrefix = (ref: BatchRef) => `${keys.batch(ref.tenantId, ref.batchId).sk}#ITEM#`;

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
      ':items': itemsPrefix(ref),
      ':queued': 'queued',
      ':processing': 'processing',
    },
    ProjectionExpression: '#index, #status',
    ConsistentRead: true,
  });
  return items.map((item) => parseItem(UnfinishedSchema, item));
}

const UnfinishedSchema = v.object({ index: v.number(), status: v.picklist(BATCH_ITEM_STATUSES) });

/** A subject that failed for good, as a rescreen run's report lists it. */
export interface FailedItem {
  index: number;
  subject: BatchItemSubject;
  detail: string;
  failure: SubjectFailure;
}

/** Every subject of a batch in subject order, whatever its status (at most 500: a batch's results). */
export async function allBatchItems(table: Table, ref: BatchRef): Promise<BatchItem[]> {
  const items = await queryAll(table, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :items)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(ref.tenantId), ':items': itemsPrefix(ref) },
  });
  return items.map((item) => parseItem(BatchItemSchema, item)).sort((a, b) => a.index - b.index);
}

/** The subjects of a batch that failed for good, in subject order (read only when there are some). */
export async function failedItems(table: Table, ref: BatchRef): Promise<FailedItem[]> {
  const items = await queryAll(table, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :items)',
    FilterExpression: '#status = :failed',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':pk': keys.tenantPartition(ref.tenantId),
      ':items': itemsPrefix(ref),
      ':failed': 'failed',
    },
  });
  return items.flatMap((stored) => {
    const item = parseItem(BatchItemSchema, stored);
    if (item.status !== 'failed') return [];
    return [
      {
        index: item.index,
        subject: item.subject,
        detail: item.detail,
        failure: item.failure === 'refused' ? 'refused' : 'error',
      },
    ];
  });
}

/** A finished subject as the stream reports it. */
export type FinishedItem =
  | ({ status: 'done'; index: number; seq: number } & ScreenedSubject)
  | { status: 'failed'; index: number; seq: number; detail: string };

/** The subjects that finished with a sequence above `afterSeq`, in finish order (the batch-progress index). */
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
  return items.flatMap((stored): FinishedItem[] => {
    const item = parseItem(BatchItemSchema, stored);
    if (item.status === 'done')
      return [
        {
          status: 'done',
          index: item.index,
          seq: item.seq,
          screen_id: item.screen_id,
          risk_level: item.risk_level,
          skipped: item.skipped,
          ...(item.client_id !== undefined ? { client_id: item.client_id } : {}),
        },
      ];
    if (item.status === 'failed')
      return [{ status: 'failed', index: item.index, seq: item.seq, detail: item.detail }];
    return [];
  });
}
