/**
 * One row per synced list in the single table: what the last successful sync brought (source date,
 * when it was fetched, counts, content hash) and how the last attempt went (when, and its error).
 * /dbstatus reads them; the sync writes them. These rows belong to no tenant and no tenant-facing
 * route reads them by key (the partition is a constant), like the operators' list of tenants.
 *
 * | entity    | pk    | sk              |
 * |-----------|-------|-----------------|
 * | list-sync | LISTS | LIST#<list id>  |
 */
import * as v from 'valibot';
import { parseItem, queryAll, type Table } from '../store/table.ts';
import { sendWrite, type TableWrite } from '../store/write.ts';

export const listSyncKeys = {
  partition: 'LISTS',
  row: (listId: string) => ({ pk: 'LISTS', sk: `LIST#${listId}` }),
} as const;

export const ListSyncRowSchema = v.object({
  entity: v.literal('list-sync'),
  list_id: v.string(),
  last_attempt_at: v.string(),
  /** Absent until a sync of the list first succeeded. */
  last_success_at: v.optional(v.string()),
  /** When the data now in force was downloaded (the last success that changed or confirmed it). */
  fetched_at: v.optional(v.string()),
  /** Null when the list's files state no date of their own (the list is then stale). */
  source_date: v.optional(v.nullable(v.string())),
  entity_count: v.optional(v.number()),
  individual_count: v.optional(v.number()),
  content_hash: v.optional(v.string()),
  /** Where the data came from (official URLs or a mirror). */
  origin: v.optional(v.string()),
  /** Why the last attempt was refused; absent when it succeeded. */
  error: v.optional(v.string()),
  /**
   * The individuals the sanity checks compare with (lib/sync/sanity.ts): set by the first sync to
   * the count then in force, and moved only by an operator's acceptance.
   */
  baseline_individuals: v.optional(v.number()),
  baseline_at: v.optional(v.string()),
  /** `first sync`, or the operator's reason when one accepted. */
  baseline_basis: v.optional(v.string()),
  /** When a refused file was held for review; absent when none is held. */
  held_at: v.optional(v.string()),
});

export type ListSyncRow = v.InferOutput<typeof ListSyncRowSchema>;

export interface SyncSuccess {
  listId: string;
  at: string;
  sourceDate: string | null;
  entityCount: number;
  individualCount: number;
  contentHash: string;
  origin: string;
  /**
   * The baseline the run compared with. `accepted` (an operator confirmed the new count): it
   * becomes the baseline; otherwise it is only recorded when the row has none yet.
   */
  baseline: { individuals: number; accepted?: string };
}

/**
 * Both writes are conditional on not going back in time: a slow run that finishes after a newer
 * one (a retried schedule, a manual run) does not overwrite what the newer one recorded.
 */
const NOT_OLDER = 'attribute_not_exists(last_attempt_at) OR last_attempt_at <= :at';

/** A write refused for going back in time: a newer run recorded the list meanwhile. */
class OlderRun extends Error {
  constructor() {
    super('A newer sync run recorded the list meanwhile');
  }
}

/** The list-sync writes, as values (lib/store/write.ts). */
export const listSyncWrites = {
  /** A successful sync of the list: what it brought, and its baseline when it has none (or an operator accepted one). */
  success(success: SyncSuccess): TableWrite {
    return {
      Update: {
        Key: listSyncKeys.row(success.listId),
        UpdateExpression:
          'SET entity = :entity, list_id = :id, last_attempt_at = :at, last_success_at = :at, fetched_at = :at, ' +
          'source_date = :date, entity_count = :entities, individual_count = :individuals, content_hash = :hash, ' +
          'origin = :origin, ' +
          (success.baseline.accepted
            ? 'baseline_individuals = :baseline, baseline_at = :at, baseline_basis = :basis'
            : 'baseline_individuals = if_not_exists(baseline_individuals, :baseline), ' +
              'baseline_at = if_not_exists(baseline_at, :at), baseline_basis = if_not_exists(baseline_basis, :basis)') +
          ' REMOVE #error, held_at',
        ConditionExpression: NOT_OLDER,
        ExpressionAttributeNames: { '#error': 'error' },
        ExpressionAttributeValues: {
          ':entity': 'list-sync',
          ':id': success.listId,
          ':at': success.at,
          ':date': success.sourceDate,
          ':entities': success.entityCount,
          ':individuals': success.individualCount,
          ':hash': success.contentHash,
          ':origin': success.origin,
          ':baseline': success.baseline.individuals,
          ':basis': success.baseline.accepted ?? 'first sync',
        },
      },
      what: 'list sync status',
      refused: () => new OlderRun(),
    };
  },

  /** A refused attempt; what the last success recorded stays as it was. */
  failure(listId: string, at: string, error: string, options: { held?: boolean }): TableWrite {
    return {
      Update: {
        Key: listSyncKeys.row(listId),
        UpdateExpression: `SET entity = :entity, list_id = :id, last_attempt_at = :at, #error = :error${
          options.held ? ', held_at = :at' : ''
        }`,
        ConditionExpression: NOT_OLDER,
        ExpressionAttributeNames: { '#error': 'error' },
        ExpressionAttributeValues: { ':entity': 'list-sync', ':id': listId, ':at': at, ':error': error },
      },
      what: 'list sync status',
      refused: () => new OlderRun(),
    };
  },

  /** Clears the held mark and error of a list that has a row. */
  clearHeld(listId: string): TableWrite {
    return {
      Update: {
        Key: listSyncKeys.row(listId),
        UpdateExpression: 'REMOVE held_at, #error',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#error': 'error' },
      },
      what: 'list sync status',
      // Not a tenant's request: a list without its row is a server fault.
      refused: () => new Error(`List ${listId} has no sync status row`),
    };
  },
};

/** Sends a write that records a run, unless a newer run recorded the list meanwhile. */
async function recordUnlessOlder(table: Table, write: TableWrite): Promise<void> {
  try {
    await sendWrite(table, write);
  } catch (error) {
    if (!(error instanceof OlderRun)) throw error;
  }
}

export async function recordSyncSuccess(table: Table, success: SyncSuccess): Promise<void> {
  await recordUnlessOlder(table, listSyncWrites.success(success));
}

/** Records a refused attempt; what the last success recorded stays as it was. */
export async function recordSyncFailure(
  table: Table,
  listId: string,
  at: string,
  error: string,
  options: { held?: boolean } = {},
): Promise<void> {
  await recordUnlessOlder(table, listSyncWrites.failure(listId, at, error, options));
}

/**
 * Clears a list's held mark and error after an operator rejected the held file (the list keeps
 * the data it had; its last success stays as it was).
 */
export async function clearHeld(table: Table, listId: string): Promise<void> {
  await sendWrite(table, listSyncWrites.clearHeld(listId));
}

/** Every list's row, by list id (one query of one small partition). */
export async function readSyncStatus(table: Table): Promise<Map<string, ListSyncRow>> {
  const items = await queryAll(table, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': listSyncKeys.partition },
  });
  return new Map(
    items.map((item) => {
      const row = parseItem(ListSyncRowSchema, item);
      return [row.list_id, row];
    }),
  );
}
