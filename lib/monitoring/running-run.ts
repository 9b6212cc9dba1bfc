import { setTimeout as sleep } from 'node:timers/promises';
import { getBatch } from '../batch/batch-table.ts';
import type { Table } from '../store/table.ts';
import { claimRunningRunItem, getRunningRun, type RunningRunClaim } from './run-table.ts';

/**
 * The tenant's running rescreen run: one item per tenant, claimed with ONE conditional put before
 * a run charges anything, so a tenant has one manual or scheduled run at a time. Three concurrent
 * triggers used to each reserve the month's quota for every due client (the losers refunded later,
 * per client), and direct screens meanwhile got false 429s; now the second and third find the
 * claim and reserve nothing.
 *
 * The claim is never released by a second write that a crash could lose. It is free when:
 * - the run it names has finished (its batch record's `finished` reached `total`), or
 * - the run never got as far as its record (its starter died) and the claim is older than
 *   STARTING_GRACE_MS, or
 * - its lease (RUN_LEASE_MS) has passed, whatever the run's state: a run whose subjects are stuck
 *   cannot hold the tenant's re-screens back for longer than that. Clients are still claimed one
 *   by one (rescreen-client.ts), so an overlap after the lease never screens a client twice.
 * Taking over a free claim is the same put with the condition `run_id = <the run seen>`, so of
 * two triggers that both see the old run finished, one wins. The item and its writes are in
 * run-table.ts.
 */

/** How long a claim holds at most. */
export const RUN_LEASE_MS = 6 * 60 * 60 * 1000;
/** How long a run may take to record itself (find, charge, write its subjects) before its claim is deemed dead. */
export const STARTING_GRACE_MS = 5 * 60 * 1000;

export type ClaimResult = { claimed: true } | { claimed: false; running: RunningRunClaim };

/** Claims the tenant's running run for `runId`, or names the run that holds it. */
export async function claimRunningRun(
  table: Table,
  tenantId: string,
  runId: string,
  now: number = Date.now(),
): Promise<ClaimResult> {
  let stale: string | undefined;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const claim = await claimRunningRunItem(table, tenantId, runId, {
      now,
      leaseUntil: now + RUN_LEASE_MS,
      stale,
    });
    if (claim.claimed) return { claimed: true };
    const { found } = claim;
    // Gone or expired between the put and the read: simply try again.
    if (!found || found.lease_until < now) continue;
    if (!(await holds(table, tenantId, found, now))) {
      stale = found.run_id;
      continue;
    }
    return { claimed: false, running: found };
  }
  throw new Error(`the running rescreen run of tenant ${tenantId} kept changing; not started`);
}

/** Whether the claimed run is still running (or still starting), read from its batch record. */
async function holds(table: Table, tenantId: string, claim: RunningRunClaim, now: number): Promise<boolean> {
  const record = await getBatch(table, { tenantId, batchId: claim.run_id });
  if (record) return record.finished < record.total;
  return now - claim.claimed_at < STARTING_GRACE_MS;
}

/**
 * The running run's claim once its counts are noted (they follow the claim by one query of the due
 * shards and one charge), read again every 50 ms for at most `waitMs`; as last read after that.
 */
export async function claimWithCounts(
  table: Table,
  tenantId: string,
  claim: RunningRunClaim,
  waitMs = 5_000,
): Promise<RunningRunClaim> {
  let current = claim;
  for (const started = Date.now(); current.queued === undefined && Date.now() - started < waitMs; ) {
    await sleep(50);
    const found = await getRunningRun(table, tenantId);
    // Taken over by another run meanwhile: the one this trigger found is over.
    if (found?.run_id !== claim.run_id) break;
    current = found;
  }
  return current;
}
