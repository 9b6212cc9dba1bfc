import type { BatchRecord } from '../batch/batch-table.ts';
import { outcomeOf, type SubjectScreener } from '../batch/worker.ts';
import { ConflictError } from '../common/errors.ts';
import { isClientId } from '../common/ids.ts';
import { isoSeconds } from '../common/time.ts';
import { outboxEvent, withOutbox } from '../outbox/outbox.ts';
import { screenSubject } from '../screening/screen-subject.ts';
import { findScreen, type ScreenItem, supersede } from '../screening/screen-table.ts';
import type { Table } from '../store/table.ts';
import { storeRescreen } from './carried-decisions.ts';
import { effectiveIntervalDays, nextDueAt, RUN_CLAIM_LEASE_MS, SYSTEM_ACTOR } from './client-record.ts';
import {
  type ClientClaim,
  type ClientItem,
  claimDueClient,
  recordRescreenOnClient,
  type SeenClient,
} from './client-table.ts';
import { baselineScreenId, reviewRescreen } from './rescreen-review.ts';
import { matcherForRun } from './run-lists.ts';
import { recordRunChange } from './run-table.ts';

/**
 * One client of a rescreen run (batch purpose `rescreen`; the run id is the batch id). The run
 * charged the client's screen; this claims the client, forces a fresh screen and judges it
 * against the client's last settled state (rescreen-review.ts): an open alert (raised now, or
 * carried forward from the previous screen until somebody settles it), the baseline's settled
 * decision carried forward, or neither. The baseline costs at most one more read: the previous
 * screen names its own baseline, and the client item the newest settled screen.
 *
 * A pending new screen supersedes the client's older pending screen (it leaves the pending
 * list, keeps its history and says `superseded_by`), so the queue holds one screen per client.
 * The client then records the new screen, risk and next due date, and gives up the claim.
 *
 * A client another run holds, or one already re-screened since this run found it due, is not
 * screened: the outcome is `skipped` (the batch refunds it; the run counts it as
 * `already_running`). A client whose monitoring stopped meanwhile fails, not charged.
 */
export const rescreenQueuedClient: SubjectScreener = async (services, principal, subject, batch, queued) => {
  const { table } = services;
  const runId = batch.batch_id;
  const clientId = subject.client_id ?? '';
  const claim = await claimClient(table, principal.tenantId, clientId, runId, {
    dueAt: subject.due_at,
    lastScreenId: subject.previous_screen_id,
  });
  if (!claim.claimed) {
    const { client } = claim;
    if (client?.status !== 'active') {
      throw new ConflictError(`Client ${clientId} is no longer monitored; it was not charged`);
    }
    // A redelivery after this run recorded the client's screen is done; otherwise another run
    // holds the client, or re-screened it since this run found it due: nothing to screen here.
    return {
      screen_id: client.last_screen_id,
      risk_level: client.risk_level,
      skipped: client.last_run_id !== runId,
      client_id: clientId,
    };
  }
  const { client } = claim;
  const previous = await findScreen(table, principal.tenantId, client.last_screen_id);
  const baselineId = baselineScreenId(previous, client.last_screen_id, client.settled_screen_id);
  const baseline =
    baselineId === previous?.screen_id ? previous : await findScreen(table, principal.tenantId, baselineId);
  // Never on lists older than the snapshot the run names (run-lists.ts).
  const screen = await screenSubject(
    { ...services, matcher: () => matcherForRun(services, batch.run) },
    { ...principal, userId: SYSTEM_ACTOR.user_id, role: SYSTEM_ACTOR.role },
    { ...client.subject, types: client.types, force: true },
    {
      charge: false,
      origin: 'rescreen',
      rescreenTrigger: batch.run?.trigger,
      clientId,
      jobRef: queued.jobRef,
      screenId: queued.screenId,
      review: (fresh) => withAlertEvent(reviewRescreen(fresh, { previous, baseline }), clientId, runId),
      // A carried decision is stored with its audit entry (carried-decisions.ts).
      store: (into, item) => storeRescreen(into, item, runId),
    },
  );
  if (previous && screen.disposition === null) await supersede(table, previous, screen.screen_id);
  await recordOnClient(table, client, runId, screen);
  // From the stored screen, so a retry that finds its own screen stored still lists the change.
  if (screen.alert) await listRunChange(table, batch, client, previous, screen);
  return { ...outcomeOf(screen), client_id: clientId };
};

/**
 * A re-screen that raises an alert carries its `monitoring.alert` webhook event in the same
 * PutItem that stores it (lib/outbox/outbox.ts): no alert without its event, no event without its
 * alert. An alert carried forward from an earlier screen was announced when it was raised.
 */
function withAlertEvent(screen: ScreenItem, clientId: string, runId: string): ScreenItem {
  const alert = screen.alert;
  if (!alert || alert.raised_by_screen_id !== screen.screen_id) return screen;
  return withOutbox(screen, [
    outboxEvent('monitoring.alert', screen.tenant_id, {
      client_id: clientId,
      screen_id: screen.screen_id,
      run_id: runId,
      previous_screen_id: alert.previous_screen_id ?? null,
      baseline_screen_id: alert.baseline_screen_id ?? null,
      risk_before: alert.risk_before ?? null,
      risk_after: alert.risk_after ?? null,
      matches_added: alert.matches_added?.length ?? 0,
      matches_removed: alert.matches_removed?.length ?? 0,
      matches_changed: alert.matches_changed?.length ?? 0,
      raised_at: alert.since ?? screen.screened_at,
    }),
  ]);
}

/**
 * Claims the client for this run (client-table.ts, claimDueClient: one conditional write that also
 * returns it) until the claim lease ends: still monitored, still the due date and last screen the
 * run saw, and not held by another run's live claim.
 */
async function claimClient(
  table: Table,
  tenantId: string,
  clientId: string,
  runId: string,
  seen: SeenClient,
): Promise<ClientClaim> {
  if (!isClientId(clientId)) return { claimed: false, client: undefined };
  const now = new Date();
  const leaseUntil = isoSeconds(new Date(now.getTime() + RUN_CLAIM_LEASE_MS));
  return claimDueClient(table, tenantId, clientId, runId, seen, { now: isoSeconds(now), leaseUntil });
}

/** The client's latest outcome and next due date; only while this run still holds it. */
async function recordOnClient(
  table: Table,
  client: ClientItem,
  runId: string,
  screen: { screen_id: string; screened_at: string; risk_level: ClientItem['risk_level'] },
): Promise<void> {
  const dueAt = nextDueAt(
    screen.screened_at,
    effectiveIntervalDays({
      rescreen_interval_days: client.rescreen_interval_days,
      risk_level: screen.risk_level,
    }),
  );
  await recordRescreenOnClient(table, client, runId, screen, dueAt);
}

/**
 * A client whose new screen carries an open alert: listed by GET /clients/rescreen/runs/{run_id},
 * as `raised` by this run or `still_open` (raised earlier, nobody has settled it).
 */
async function listRunChange(
  table: Table,
  batch: BatchRecord,
  client: ClientItem,
  previous: ScreenItem | undefined,
  screen: { screen_id: string; risk_level: ClientItem['risk_level']; alert: ScreenItem['alert'] | null },
): Promise<void> {
  await recordRunChange(
    table,
    batch.tenant_id,
    batch.batch_id,
    {
      client_id: client.client_id,
      reference: client.reference,
      screen_id: screen.screen_id,
      previous_screen_id: previous?.screen_id ?? null,
      risk_before: previous?.risk_level ?? null,
      risk_after: screen.risk_level,
      matches_added: screen.alert?.matches_added.length ?? 0,
      matches_changed: screen.alert?.matches_changed.length ?? 0,
      alert: screen.alert?.raised_by_screen_id === screen.screen_id ? 'raised' : 'still_open',
      alert_since: screen.alert?.since ?? null,
    },
    isoSeconds(new Date()),
    batch.expires_at,
  );
}
