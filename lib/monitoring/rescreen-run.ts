import { randomBytes } from 'node:crypto';
import { audited } from '../audit/trail.ts';
import { type BatchRecord, failedItems, getBatch, type RunCounts } from '../batch/batch-table.ts';
import { queueBatch } from '../batch/start-batch.ts';
import { NotFoundError, QuotaExceededError } from '../common/errors.ts';
import { isRunId } from '../common/ids.ts';
import type { Logger } from '../common/log.ts';
import type { Services } from '../ports.ts';
import { screenDay } from '../screening/screen-id.ts';
import type { Actor } from '../screening/screen-record.ts';
import type { Table } from '../store/table.ts';
import { PLANS, type Plan } from '../tenancy/plans.ts';
import { chargeScreens, getMonthlyUsage } from '../tenancy/quota.ts';
import type { Role } from '../tenancy/roles.ts';
import { listTenants } from '../tenancy/tenants.ts';
import { CHECK_TYPES } from '../watchlists/types.ts';
import { type ClientItem, findClient, findDueClients } from './client-table.ts';
import { publishedSnapshotVersion } from './run-lists.ts';
import { runSummaryOf } from './run-summary.ts';
import { noteRunCounts, type RunChange, type RunningRunClaim, runChanges } from './run-table.ts';
import { claimRunningRun, claimWithCounts } from './running-run.ts';

/**
 * Rescreen runs: the clients past their due date, re-screened through the batch pipeline (a run
 * is a batch of purpose `rescreen`; its id is the batch id, so the worker, the claims, the
 * refunds and the progress records are the batch's own).
 *
 * Starting a run does only what the answer needs, so a manual trigger answers at once however
 * many clients are due: (1) read the tenant's due shards (sk <= now: the items read are the
 * clients due), (2) charge the month's quota for as many as it has left in one conditional write
 * (a rescreen is a forced, charged screen; the clients beyond it are not touched, stay due and
 * are counted as skipped for quota), (3) record the run and queue one job per charged client.
 *
 * Each client is then claimed by the worker that re-screens it (rescreen-client.ts), with one
 * conditional write on the client: its due date and last screen still the ones the run saw, and
 * no other run's live claim. So two runs at once (the hourly schedule, a manual trigger) screen a client at most
 * once per due window: the run that loses the claim refunds that client's screen and counts it
 * as `already_running`. The claim moves the client's due-index key past a lease, so a run that
 * dies leaves the client due again rather than lost.
 */

export interface RunStarted {
  run_id: string;
  status: 'running' | 'finished';
  due: number;
  queued: number;
  skipped_quota: number;
}

/**
 * What a trigger answers: the run it started (`started: true`), or the tenant's run already
 * running (`started: false`: nothing was found due, charged or queued by this trigger).
 */
export interface RunTriggered extends RunStarted {
  started: boolean;
}

export function newRunId(at: Date): string {
  return `RUN-${screenDay(at)}-${randomBytes(5).toString('hex')}`;
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
  /**
   * The snapshot its clients must be screened on, or a newer one (RunCounts `snapshot_version`):
   * the store's newest when the run starts (publishedSnapshotVersion), or the version a list
   * change's sync published; undefined only when nothing was ever published.
   */
  snapshotVersion: string | undefined;
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
): Promise<RunTriggered> {
  const runId = newRunId(input.now);
  // A list change's run is recorded by its caller as the list sync that affected the tenant
  // (`lists.synced`, lib/monitoring/delta-rescreen.ts). It screens only the clients the change
  // could match, on the version the sync published, so it does not wait for the running run.
  if (input.trigger === 'list_change')
    return { ...(await queueRun(services, input, runId, log)), started: true };
  return audited(
    services.table,
    input.tenantId,
    {
      action: 'clients.rescreen',
      actor: input.startedBy,
      target: { run_id: runId },
      details: { trigger: input.trigger, snapshot_version: input.snapshotVersion ?? null },
      done: (run) => ({
        // A trigger that found a run running names that run, and says it started nothing.
        target: { run_id: run.run_id },
        details: {
          started: run.started,
          status: run.status,
          due: run.due,
          queued: run.queued,
          skipped_quota: run.skipped_quota,
        },
      }),
    },
    async () => {
      // One manual or scheduled run per tenant at a time, claimed before anything is charged.
      const claim = await claimRunningRun(services.table, input.tenantId, runId);
      if (!claim.claimed) {
        log.info({ tenant: input.tenantId, runId: claim.running.run_id }, 'rescreen run already running');
        return { ...(await runningRunCounts(services.table, input.tenantId, claim.running)), started: false };
      }
      return { ...(await queueRun(services, input, runId, log, true)), started: true };
    },
  );
}

/** The counts of the tenant's running run: from its record, or (still starting) from its claim. */
async function runningRunCounts(table: Table, tenantId: string, found: RunningRunClaim): Promise<RunStarted> {
  const claim = await claimWithCounts(table, tenantId, found);
  const record = await getBatch(table, { tenantId, batchId: claim.run_id });
  return {
    run_id: claim.run_id,
    status: 'running',
    due: record?.run?.due ?? claim.due ?? 0,
    queued: record?.total ?? claim.queued ?? 0,
    skipped_quota: record?.run?.skipped_quota ?? claim.skipped_quota ?? 0,
  };
}

async function queueRun(
  services: Pick<Services, 'table' | 'batchQueue'>,
  input: StartRunInput,
  runId: string,
  log: Logger,
  claimed = false,
): Promise<RunStarted> {
  const { table } = services;
  const due = input.clients ?? (await findDueClients(table, input.tenantId, input.now));
  const chargeAt = new Date();
  const charged = await chargeWhatFits(table, input.tenantId, input.plan, due.length, chargeAt);
  const queued = due.slice(0, charged);
  if (claimed) {
    await noteRunCounts(table, input.tenantId, runId, {
      due: due.length,
      queued: queued.length,
      skipped_quota: due.length - queued.length,
    });
  }
  const run: RunCounts = {
    trigger: input.trigger,
    due: due.length,
    // Known as the workers claim the clients: counted on the run record (the batch's `skipped`).
    already_running: 0,
    skipped_quota: due.length - queued.length,
    ...(input.snapshotVersion === undefined ? {} : { snapshot_version: input.snapshotVersion }),
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
      subjects: queued.map((client) => ({
        ...client.subject,
        client_id: client.client_id,
        previous_screen_id: client.last_screen_id,
        due_at: client.next_due_at,
      })),
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
  };
}

/**
 * The hourly schedule: a run for every tenant that has clients due. Tenants are independent:
 * one that fails is logged and the others still run.
 */
export async function runScheduledRescreens(
  services: Pick<Services, 'table' | 'batchQueue' | 'config'>,
  now: Date,
  log: Logger,
): Promise<RunTriggered[]> {
  const started: RunTriggered[] = [];
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
            snapshotVersion: await publishedSnapshotVersion(services.config),
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

export interface RunReport extends RunStarted {
  /** Queued clients another run was already re-screening (not screened by this one, refunded). */
  already_running: number;
  started_at: string;
  started_by: Actor;
  trigger: RunCounts['trigger'];
  /** Clients whose re-screen has finished (screened or failed). */
  finished: number;
  /** Of those, the clients that were not re-screened (refunded): `failed_clients` says why. */
  failed: number;
  failed_clients: FailedClient[];
  /**
   * Once the run has finished (and as they come): the clients whose new screen carries an open
   * alert, raised by this run or still open from an earlier one.
   */
  changed: RunChange[];
}

/**
 * A client of the run that was not re-screened, and why: `monitoring_stopped` (stopped after the
 * run found it due), `refused` (another reason given in `detail`), or `error` (its re-screen kept
 * failing; the next run picks it up again, it stays due).
 */
export interface FailedClient {
  client_id: string;
  reason: 'monitoring_stopped' | 'refused' | 'error';
  detail: string;
}

/** The run's failed clients, read only when it counted some (the batch items of the run). */
async function failedClients(table: Table, tenantId: string, record: BatchRecord): Promise<FailedClient[]> {
  if (!record.failed) return [];
  const failed = await failedItems(table, { tenantId, batchId: record.batch_id });
  return Promise.all(
    failed.map(async ({ subject, detail, failure }): Promise<FailedClient> => {
      const clientId = subject.client_id ?? '';
      if (failure === 'error') return { client_id: clientId, reason: 'error', detail };
      const client = await findClient(table, tenantId, clientId);
      return {
        client_id: clientId,
        reason: client?.status === 'active' ? 'refused' : 'monitoring_stopped',
        detail,
      };
    }),
  );
}

/** GET /clients/rescreen/runs/{run_id}: the run's counts, progress, and the clients that changed or failed. */
export async function getRescreenRun(table: Table, tenantId: string, runId: string): Promise<RunReport> {
  const notFound = new NotFoundError(`Rescreen run ${runId} not found`);
  if (!isRunId(runId)) throw notFound;
  const record: BatchRecord | undefined = await getBatch(table, { tenantId, batchId: runId });
  const summary = record ? runSummaryOf(record) : undefined;
  if (!record || !summary) throw notFound;
  return {
    ...summary,
    failed_clients: await failedClients(table, tenantId, record),
    changed: await runChanges(table, tenantId, runId),
  };
}

/**
 * POST /clients/rescreen/auto/trigger: a manual run for the caller's tenant, started by the
 * caller, on the newest published lists.
 */
export async function triggerRescreenRun(
  services: Pick<Services, 'table' | 'config' | 'batchQueue'>,
  principal: { tenantId: string; plan: Plan; userId: string; role: Role },
  log: Logger,
) {
  return startRescreenRun(
    services,
    {
      tenantId: principal.tenantId,
      plan: principal.plan,
      trigger: 'manual',
      startedBy: { user_id: principal.userId, role: principal.role },
      now: new Date(),
      snapshotVersion: await publishedSnapshotVersion(services.config),
    },
    log,
  );
}
