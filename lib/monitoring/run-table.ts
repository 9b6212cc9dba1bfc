import * as v from 'valibot';
import { RISK_ORDER } from '../matcher/types.ts';
import { keys } from '../store/schema.ts';
import { parseItem, queryAll, readItem, type Table } from '../store/table.ts';
import { sendWrite, type TableWrite, trySendWrite } from '../store/write.ts';

/**
 * The items of rescreen runs: the tenant's running run (entity `running-run`, sk
 * RESCREEN#RUNNING: one per tenant, running-run.ts says when it is free), and the clients whose
 * outcome changed in a run (entity `rescreen-change`, sk BATCH#<run_id>#CHANGE#<client_id>: a run
 * is a batch, the changes expire with its record).
 */

export const RunningRunItemSchema = v.object({
  entity: v.literal('running-run'),
  run_id: v.string(),
  claimed_at: v.number(),
  lease_until: v.number(),
  /** Written once the run is charged, so a trigger that finds the claim can answer with them. */
  due: v.optional(v.number()),
  queued: v.optional(v.number()),
  skipped_quota: v.optional(v.number()),
});

export type RunningRunClaim = v.InferOutput<typeof RunningRunItemSchema>;

function parseRunningRun(item: Record<string, unknown>): RunningRunClaim {
  return parseItem(RunningRunItemSchema, item);
}

/** The counts a run notes on its claim once it is charged. */
export interface RunCountsNote {
  due: number;
  queued: number;
  skipped_quota: number;
}

export const runningRunWrites = {
  /**
   * Claims the tenant's running run for `runId` until `leaseUntil` (epoch ms): refused while
   * another run's claim holds, unless its lease has passed at `now` or it names `stale` (a run
   * seen finished or dead), so of two triggers that both see the old run over, one wins.
   */
  claim(tenantId: string, runId: string, now: number, leaseUntil: number, stale?: string): TableWrite {
    return {
      what: 'running rescreen run',
      Put: {
        Item: {
          ...keys.runningRun(tenantId),
          entity: 'running-run',
          run_id: runId,
          claimed_at: now,
          lease_until: leaseUntil,
        },
        ConditionExpression: `attribute_not_exists(pk) OR lease_until < :now${stale ? ' OR run_id = :stale' : ''}`,
        ExpressionAttributeValues: { ':now': now, ...(stale ? { ':stale': stale } : {}) },
      },
    };
  },

  /** Records the run's counts on its claim; refused once the claim names another run. */
  noteCounts(tenantId: string, runId: string, counts: RunCountsNote): TableWrite {
    return {
      what: 'running rescreen run',
      Update: {
        Key: keys.runningRun(tenantId),
        UpdateExpression: 'SET due = :due, queued = :queued, skipped_quota = :skipped',
        ConditionExpression: 'run_id = :run',
        ExpressionAttributeValues: {
          ':due': counts.due,
          ':queued': counts.queued,
          ':skipped': counts.skipped_quota,
          ':run': runId,
        },
      },
    };
  },
};

/**
 * Claims the tenant's running run (runningRunWrites.claim); when refused, the claim found
 * (undefined when it was gone by the time it was read).
 */
export async function claimRunningRunItem(
  table: Table,
  tenantId: string,
  runId: string,
  lease: { now: number; leaseUntil: number; stale?: string },
): Promise<{ claimed: true } | { claimed: false; found: RunningRunClaim | undefined }> {
  const outcome = await trySendWrite(
    table,
    runningRunWrites.claim(tenantId, runId, lease.now, lease.leaseUntil, lease.stale),
  );
  if (outcome.written) return { claimed: true };
  return { claimed: false, found: outcome.found ? parseRunningRun(outcome.found) : undefined };
}

/** Records the run's counts on its claim (runningRunWrites.noteCounts); nothing once the claim moved on. */
export async function noteRunCounts(
  table: Table,
  tenantId: string,
  runId: string,
  counts: RunCountsNote,
): Promise<void> {
  // The claim moved on (this run finished at once and another took it): nothing to note.
  await trySendWrite(table, runningRunWrites.noteCounts(tenantId, runId, counts));
}

/** The tenant's running-run claim (consistent read), or undefined. */
export async function getRunningRun(table: Table, tenantId: string): Promise<RunningRunClaim | undefined> {
  const item = await readItem(table, keys.runningRun(tenantId));
  return item ? parseRunningRun(item) : undefined;
}

/** A client whose outcome changed in a run, as the rescreen stores it (rescreen-client.ts). */
export const RunChangeItemSchema = v.object({
  entity: v.literal('rescreen-change'),
  client_id: v.string(),
  reference: v.nullable(v.string()),
  screen_id: v.string(),
  previous_screen_id: v.nullable(v.string()),
  risk_before: v.nullable(v.picklist(RISK_ORDER)),
  risk_after: v.picklist(RISK_ORDER),
  matches_added: v.number(),
  matches_changed: v.number(),
  // Every change listed before alerts were carried forward was raised by its run.
  alert: v.optional(v.picklist(['raised', 'still_open']), 'raised'),
  alert_since: v.optional(v.nullable(v.string()), null),
});

/** A run's change as GET /clients/rescreen/runs/{run_id} lists it. */
export type RunChange = Omit<v.InferOutput<typeof RunChangeItemSchema>, 'entity'>;

export const runChangeWrites = {
  /** Lists the client's change under the run, recorded `at`, expiring with the run's record. */
  record(tenantId: string, runId: string, change: RunChange, at: string, expiresAt: number): TableWrite {
    return {
      what: 'rescreen change',
      Put: {
        Item: {
          ...keys.rescreenRunChange(tenantId, runId, change.client_id),
          entity: 'rescreen-change',
          ...change,
          at,
          expires_at: expiresAt,
        },
      },
    };
  },
};

/** Lists the client's change under the run (runChangeWrites.record). */
export async function recordRunChange(
  table: Table,
  tenantId: string,
  runId: string,
  change: RunChange,
  at: string,
  expiresAt: number,
): Promise<void> {
  await sendWrite(table, runChangeWrites.record(tenantId, runId, change, at, expiresAt));
}

/** The run's changes, in client id order. */
export async function runChanges(table: Table, tenantId: string, runId: string): Promise<RunChange[]> {
  const items = await queryAll(table, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': keys.tenantPartition(tenantId),
      ':prefix': `BATCH#${runId}#CHANGE#`,
    },
  });
  return items.map((item) => {
    const { entity: _entity, ...change } = parseItem(RunChangeItemSchema, item);
    return change;
  });
}
