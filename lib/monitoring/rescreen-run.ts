import { randomBytes } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { type BatchRecord, getBatch, type RunCounts } from '../batch/batch-record.ts';
import { queueBatch } from '../batch/start-batch.ts';
import { NotFoundError, QuotaExceededError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { RISK_ORDER } from '../matcher/types.ts';
import type { Services } from '../runtime/services.ts';
import { screenDay } from '../screening/screen-id.ts';
import { type Actor, isoSeconds as isoOf } from '../screening/screen-record.ts';
import {
  conditionHeld,
  INDEXES,
  indexAttributes,
  keys,
  parseItem,
  queryAll,
  type Table,
} from '../store/table.ts';
import { PLANS, type Plan } from '../tenancy/plans.ts';
import { chargeScreens, getMonthlyUsage } from '../tenancy/quota.ts';
import { listTenants } from '../tenancy/tenants.ts';
import { CHECK_TYPES } from '../watchlists/types.ts';
import { type ClientItem, DUE_SHARDS, dueIndexKeys, parseClientItem } from './client-record.ts';

/**
 * Rescreen runs: the clients past their due date, re-screened through the batch pipeline (a run
 * is a batch of purpose `rescreen`; its id is the batch id, so the worker, the claims, the
 * refunds and the progress records are the batch's own).
 *
 * A run (1) reads the tenant's due shards (sk <= now: the items read are the clients due),
 * (2) claims each client with one conditional write on it, so two runs at once (the hourly
 * schedule, a manual trigger) screen a client at most once per due window: the claim moves the
 * client's due-index key past a lease, so a run that dies leaves it due again rather than lost,
 * (3) charges the month's quota for as many as it has left in one conditional write (a rescreen
 * is a forced, charged screen); the clients beyond it are released, stay due and are counted as
 * skipped for quota, (4) queues one job per charged client.
 */

/** How long a claim holds a client before another run may take it (the worker's retries fit in it). */
export const RUN_CLAIM_LEASE_MS = 60 * 60_000;

/** Clients claimed at once while starting a run. */
const CLAIM_CONCURRENCY = 16;

export interface RunStarted {
  run_id: string;
  status: 'running' | 'finished';
  due: number;
  queued: number;
  skipped_quota: number;
  already_running: number;
}

export function newRunId(at: Date): string {
  return `RUN-${screenDay(at)}-${randomBytes(5).toString('hex')}`;
}

export function isRunId(text: string): boolean {
  return /^RUN-\d{8}-[0-9a-f]{10}$/.test(text);
}

/** The tenant's clients whose next due date has passed, read shard by shard in parallel. */
export async function findDueClients(table: Table, tenantId: string, now: Date): Promise<ClientItem[]> {
  const [pkName, skName] = indexAttributes('clientsDue');
  const shards = await Promise.all(
    Array.from({ length: DUE_SHARDS }, (_, shard) =>
      queryAll(table, {
        IndexName: INDEXES.clientsDue.name,
        KeyConditionExpression: `${pkName} = :pk AND ${skName} <= :now`,
        // '~' sorts after every client id, so clients due at exactly `now` are included.
        ExpressionAttributeValues: { ':pk': keys.dueShard(tenantId, shard), ':now': `${isoOf(now)}#~` },
      }),
    ),
  );
  return shards.flat().map(parseClientItem);
}

/** Claims a due client for this run: false when another run holds it or it changed meanwhile. */
async function claimClient(table: Table, client: ClientItem, runId: string, now: Date): Promise<boolean> {
  const leaseUntil = isoOf(new Date(now.getTime() + RUN_CLAIM_LEASE_MS));
  const due = dueIndexKeys(client.tenant_id, client.client_id, leaseUntil);
  const [, skName] = indexAttributes('clientsDue');
  return conditionHeld(
    table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: keys.client(client.tenant_id, client.client_id),
        UpdateExpression: 'SET claim_run_id = :run, claim_until = :lease, #dueSk = :dueSk',
        ConditionExpression:
          '#status = :active AND next_due_at = :seen AND (attribute_not_exists(claim_until) OR claim_until < :now)',
        ExpressionAttributeNames: { '#status': 'status', '#dueSk': skName },
        ExpressionAttributeValues: {
          ':run': runId,
          ':lease': leaseUntil,
          ':dueSk': due[skName],
          ':active': 'active',
          ':seen': client.next_due_at,
          ':now': isoOf(now),
        },
      }),
    ),
  );
}

/** Gives a claimed client back, due as before (a client skipped for quota). */
async function releaseClient(table: Table, client: ClientItem, runId: string): Promise<void> {
  const due = dueIndexKeys(client.tenant_id, client.client_id, client.next_due_at);
  const [, skName] = indexAttributes('clientsDue');
  await conditionHeld(
    table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: keys.client(client.tenant_id, client.client_id),
        UpdateExpression: 'SET #dueSk = :dueSk REMOVE claim_run_id, claim_until',
        ConditionExpression: 'claim_run_id = :run',
        ExpressionAttributeNames: { '#dueSk': skName },
        ExpressionAttributeValues: { ':run': runId, ':dueSk': due[skName] },
      }),
    ),
  );
}

async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** Charges as many of `wanted` screens as the month has left, in one conditional write. */
async function chargeWhatFits(table: Table, tenantId: string, plan: Plan, wanted: number, at: Date) {
  for (let attempt = 0; attempt < 5 && wanted > 0; attempt += 1) {
    const limit = plan.monthly_screens;
    const left = limit === null ? wanted : Math.max(0, limit - (await getMonthlyUsage(table, tenantId, at)));
    const count = Math.min(wanted, left);
    if (count === 0) return 0;
    try {
      await chargeScreens(table, tenantId, count, limit, at);
      return count;
    } catch (error) {
      // Another screen took some of what was left in the meantime: look again.
      if (!(error instanceof QuotaExceededError)) throw error;
    }
  }
  return 0;
}

export interface StartRunInput {
  tenantId: string;
  plan: Plan;
  trigger: RunCounts['trigger'];
  startedBy: Actor;
  now: Date;
  /** The clients to run, when the caller already made them due (a list change); default the due shards. */
  clients?: ClientItem[];
  /** A list-change run: the sync whose lists its screens must use (RunCounts `lists_synced_at`). */
  listsSyncedAt?: string;
}

/**
 * Starts a rescreen run for one tenant (POST /clients/rescreen/auto/trigger; the schedule does it
 * for every tenant with clients due) and answers at once with the counts; the screens follow
 * through the queue.
 */
export async function startRescreenRun(
  services: Pick<Services, 'table' | 'batchQueue'>,
  input: StartRunInput,
  log: Logger,
): Promise<RunStarted> {
  const { table } = services;
  const runId = newRunId(input.now);
  const due = input.clients ?? (await findDueClients(table, input.tenantId, input.now));
  const claimedFlags = await inParallel(due, CLAIM_CONCURRENCY, (client) =>
    claimClient(table, client, runId, input.now),
  );
  const claimed = due.filter((_, index) => claimedFlags[index]);
  const chargeAt = new Date();
  const charged = await chargeWhatFits(table, input.tenantId, input.plan, claimed.length, chargeAt);
  const queued = claimed.slice(0, charged);
  const skipped = claimed.slice(charged);
  await inParallel(skipped, CLAIM_CONCURRENCY, (client) => releaseClient(table, client, runId));

  const run: RunCounts = {
    trigger: input.trigger,
    due: due.length,
    already_running: due.length - claimed.length,
    skipped_quota: skipped.length,
    ...(input.listsSyncedAt ? { lists_synced_at: input.listsSyncedAt } : {}),
  };
  await queueBatch(
    services,
    {
      tenantId: input.tenantId,
      batchId: runId,
      // Each client is screened for its own check types; the run's are all of them.
      types: [...CHECK_TYPES],
      plan: input.plan.id,
      createdBy: input.startedBy,
      at: chargeAt,
      subjects: queued.map((client) => ({ ...client.subject, client_id: client.client_id })),
      purpose: 'rescreen',
      run,
    },
    log,
  );
  log.info({ tenant: input.tenantId, runId, ...run, queued: queued.length }, 'rescreen run started');
  return {
    run_id: runId,
    status: queued.length === 0 ? 'finished' : 'running',
    due: run.due,
    queued: queued.length,
    skipped_quota: run.skipped_quota,
    already_running: run.already_running,
  };
}

/**
 * The hourly schedule: a run for every tenant that has clients due. Tenants are independent:
 * one that fails is logged and the others still run.
 */
export async function runScheduledRescreens(
  services: Pick<Services, 'table' | 'batchQueue'>,
  now: Date,
  log: Logger,
): Promise<RunStarted[]> {
  const started: RunStarted[] = [];
  for (const tenant of await listTenants(services.table)) {
    try {
      const due = await findDueClients(services.table, tenant.tenant_id, now);
      if (due.length === 0) continue;
      started.push(
        await startRescreenRun(
          services,
          {
            tenantId: tenant.tenant_id,
            plan: PLANS[tenant.plan],
            trigger: 'schedule',
            startedBy: { user_id: 'system', role: 'system' },
            now,
          },
          log,
        ),
      );
    } catch (error) {
      log.error({ err: error, tenant: tenant.tenant_id }, 'rescreen run not started');
    }
  }
  return started;
}

/** A client whose outcome changed in a run, as stored by the rescreen (rescreen-client.ts). */
const RunChangeSchema = v.object({
  entity: v.literal('rescreen-change'),
  client_id: v.string(),
  reference: v.nullable(v.string()),
  screen_id: v.string(),
  previous_screen_id: v.nullable(v.string()),
  risk_before: v.nullable(v.picklist(RISK_ORDER)),
  risk_after: v.picklist(RISK_ORDER),
  matches_added: v.number(),
  matches_changed: v.number(),
});

export interface RunReport extends RunStarted {
  started_at: string;
  started_by: Actor;
  trigger: RunCounts['trigger'];
  /** Clients whose re-screen has finished (screened or failed). */
  finished: number;
  /** Once the run has finished (and as they come): the clients whose outcome changed. */
  changed: Omit<v.InferOutput<typeof RunChangeSchema>, 'entity'>[];
}

/** GET /clients/rescreen/runs/{run_id}: the run's counts, progress, and the clients that changed. */
export async function getRescreenRun(table: Table, tenantId: string, runId: string): Promise<RunReport> {
  const notFound = new NotFoundError(`Rescreen run ${runId} not found`);
  if (!isRunId(runId)) throw notFound;
  const record: BatchRecord | undefined = await getBatch(table, { tenantId, batchId: runId });
  if (record?.purpose !== 'rescreen' || !record.run) throw notFound;
  const changes = (
    await queryAll(table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': keys.tenantPartition(tenantId),
        ':prefix': `BATCH#${runId}#CHANGE#`,
      },
    })
  ).map((item) => parseItem(RunChangeSchema, item));
  return {
    run_id: runId,
    status: record.finished >= record.total ? 'finished' : 'running',
    trigger: record.run.trigger,
    started_at: record.created_at,
    started_by: record.created_by,
    due: record.run.due,
    queued: record.total,
    skipped_quota: record.run.skipped_quota,
    already_running: record.run.already_running,
    finished: Math.min(record.finished, record.total),
    changed: changes.map(({ entity: _entity, ...change }) => change),
  };
}
