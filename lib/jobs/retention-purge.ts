import { type AuditActor, audited } from '../audit/trail.ts';
import { type Logger, logger } from '../common/log.ts';
import { DAY_MS, isoSeconds } from '../common/time.ts';
import { findClient } from '../monitoring/client-table.ts';
import { lastDecisionAt, removeScreen } from '../screening/delete.ts';
import { baselineScreenIdOf, type ScreenPagePosition, screensNumberedBy } from '../screening/screen-table.ts';
import type { Table } from '../store/table.ts';
import { getRetention } from '../tenancy/retention.ts';
import { listTenants } from '../tenancy/tenants.ts';

/**
 * The daily retention purge (README "Retention"): for every tenant with a `retention_days`, the
 * screens whose last activity (their last decision, or their screening while undecided) is older
 * than the period are deleted under the purge rule (`removeScreen`, one conditional delete each,
 * with the same follow-ups as DELETE /screens/{id}). Each tenant's pass is one summary entry in its
 * audit trail (`screens.purge`, write-ahead) with the counts: a pass is many deletes, so it is not
 * one transaction with its entry, and a screen it deletes leaves no tombstone of its own (DELETE
 * /screens/{id} commits each deletion with its tombstone).
 *
 * What it keeps, and why:
 * - an undecided screen with a match (risk above CLEAR): an unreviewed hit stays in the pending
 *   queue until someone decides it; a timer never makes a hit disappear unseen. Undecided CLEAR
 *   screens hold nothing to review and are purged like decided ones.
 * - a registered client's current screen (`last_screen_id`), its last settled screen and the
 *   baseline its current screen was compared with: monitoring reads them on the next re-screen,
 *   and the client profile names the current one.
 *
 * Safe to re-run: a deleted screen is simply not found again, and each delete's condition
 * re-checks the rule on the screen as it stands (a decision recorded meanwhile keeps it).
 */

/** The purge acts as the service itself, not as any user. */
export const PURGE_ACTOR: AuditActor = { user_id: 'retention-purge', role: 'system' };

/** Screens read per page (one Query); the purge never holds more than one page. */
export const PURGE_PAGE_SIZE = 100;

export interface PurgeCounts {
  tenant_id: string;
  retention_days: number;
  /** Screens whose last activity is at or before this were due. */
  cutoff: string;
  /** Screens read (those numbered on or before the cutoff's day). */
  examined: number;
  deleted: number;
  kept_undecided_hit: number;
  kept_client_screen: number;
  /** Due screens whose delete condition failed: decided or deleted by someone meanwhile. */
  kept_changed: number;
  /** False when the run stopped at its deadline; the next run carries on. */
  complete: boolean;
}

/** The screens a client's monitoring still reads: its current, last settled and baseline screens. */
async function clientScreens(table: Table, tenantId: string, clientId: string): Promise<Set<string>> {
  const client = await findClient(table, tenantId, clientId);
  if (!client) return new Set();
  const baseline = await baselineScreenIdOf(table, tenantId, client.last_screen_id);
  return new Set(
    [client.last_screen_id, client.settled_screen_id, baseline].filter(
      (id): id is string => id !== undefined,
    ),
  );
}

/**
 * One tenant's pass: pages of the tenant's screens numbered up to the cutoff's day (screen ids
 * start with the day they were numbered, so newer screens are never read), each due one deleted
 * under the purge rule. Stops taking pages once `deadline` has passed.
 */
export async function purgeTenantScreens(
  table: Table,
  tenantId: string,
  retentionDays: number,
  now: Date,
  deadline = Number.POSITIVE_INFINITY,
): Promise<PurgeCounts> {
  const cutoff = isoSeconds(new Date(now.getTime() - retentionDays * DAY_MS));
  const counts: PurgeCounts = {
    tenant_id: tenantId,
    retention_days: retentionDays,
    cutoff,
    examined: 0,
    deleted: 0,
    kept_undecided_hit: 0,
    kept_client_screen: 0,
    kept_changed: 0,
    complete: true,
  };
  const cutoffDay = cutoff.slice(0, 10).replaceAll('-', '');
  const protectedOf = new Map<string, Promise<Set<string>>>();
  let startKey: ScreenPagePosition | undefined;
  do {
    if (Date.now() > deadline) {
      counts.complete = false;
      break;
    }
    // Only what the rule needs: never the subject or the results.
    const page = await screensNumberedBy(table, tenantId, cutoffDay, PURGE_PAGE_SIZE, startKey);
    startKey = page.next;
    for (const row of page.rows) {
      counts.examined += 1;
      const lastActivity = lastDecisionAt(row) ?? row.screened_at;
      if (row.screened_at > cutoff || lastActivity > cutoff) continue;
      if (!row.disposition && row.risk_level !== 'CLEAR') {
        counts.kept_undecided_hit += 1;
        continue;
      }
      if (row.client_id) {
        if (!protectedOf.has(row.client_id))
          protectedOf.set(row.client_id, clientScreens(table, tenantId, row.client_id));
        if ((await protectedOf.get(row.client_id))?.has(row.screen_id)) {
          counts.kept_client_screen += 1;
          continue;
        }
      }
      const removal = await removeScreen(table, tenantId, row.screen_id, { kind: 'purge', before: cutoff });
      if ('removed' in removal) counts.deleted += 1;
      else counts.kept_changed += 1;
    }
  } while (startKey);
  return counts;
}

/** The counts as audit details (strings, like every audit detail). */
function countDetails(counts: PurgeCounts): Record<string, string> {
  return {
    examined: String(counts.examined),
    deleted: String(counts.deleted),
    kept_undecided_hit: String(counts.kept_undecided_hit),
    kept_client_screen: String(counts.kept_client_screen),
    kept_changed: String(counts.kept_changed),
    complete: String(counts.complete),
  };
}

/**
 * The scheduled run: every tenant with a retention period, each pass audited. Tenants are
 * independent: one that fails is logged (its entry says `failed`) and the others still run.
 */
export async function runRetentionPurge(
  table: Table,
  now: Date,
  log: Logger,
  deadline = Number.POSITIVE_INFINITY,
): Promise<PurgeCounts[]> {
  const done: PurgeCounts[] = [];
  for (const tenant of await listTenants(table)) {
    const { retention_days: days } = await getRetention(table, tenant.tenant_id);
    if (days === null) continue;
    try {
      const counts = await audited(
        table,
        tenant.tenant_id,
        {
          action: 'screens.purge',
          actor: PURGE_ACTOR,
          details: { retention_days: String(days), run_at: isoSeconds(now) },
          // The outcome entry stands on its own: the period it applied, then what it did.
          done: (result) => ({
            details: { retention_days: String(days), cutoff: result.cutoff, ...countDetails(result) },
          }),
        },
        () => purgeTenantScreens(table, tenant.tenant_id, days, now, deadline),
      );
      log.info({ ...counts }, 'retention purge');
      done.push(counts);
    } catch (error) {
      log.error({ err: error, tenant: tenant.tenant_id }, 'retention purge failed');
    }
  }
  return done;
}

/**
 * The daily rule's run (functions/schedule/retention-purge.ts). The event's own time is the clock,
 * so a retried invocation judges the same cut-off; it stops taking pages a minute before the
 * function's timeout (the next run goes on).
 */
export async function purgeOnSchedule(
  table: Table,
  event: { time: string; id: string },
  remainingMs: number,
) {
  const now = Number.isNaN(Date.parse(event.time)) ? new Date() : new Date(event.time);
  const purged = await runRetentionPurge(
    table,
    now,
    logger.child({ eventId: event.id }),
    Date.now() + remainingMs - 60_000,
  );
  return { tenants: purged.map(({ tenant_id, deleted, complete }) => ({ tenant_id, deleted, complete })) };
}
