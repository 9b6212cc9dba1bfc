import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { handler as autoRescreen } from '../../functions/schedule/auto-rescreen.ts';
import { scheduledEvent } from '../../infra/local/scheduler.ts';
import { logger } from '../../lib/common/log.ts';
import { encodeJob } from '../../lib/jobs/kinds.ts';
import { createQueueWorker } from '../../lib/jobs/queue-worker.ts';
import { findDueClients } from '../../lib/monitoring/client-table.ts';
import { startRescreenRun } from '../../lib/monitoring/rescreen-run.ts';
import { publishedSnapshotVersion } from '../../lib/monitoring/run-lists.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { PLANS } from '../../lib/tenancy/plans.ts';
import { chargeScreens } from '../../lib/tenancy/quota.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';
import { madeUpName, useLocalStack } from '../support/api-client.ts';
import { failOnce } from '../support/flaky-table.ts';
import { monitoredClientItem, putItems } from '../support/monitored-client.ts';
import { screenBeforeListing } from '../support/screen-before-listing.ts';
import { sqsRecord } from '../support/sqs-record.ts';

const local = useLocalStack();

const DAY = 86_400_000;
/** The hourly rule firing `days` from now: the injectable clock of the scheduled function. */
const scheduleAt = (days: number) =>
  autoRescreen(scheduledEvent({ id: 'auto-rescreen' }, new Date(Date.now() + days * DAY)));

/**
 * A run started a few days ahead with a queue that accepts and holds its jobs, so the test
 * delivers them (`jobOf`) when it chooses. A list change's run, because those are the runs that
 * may overlap (a manual or scheduled run waits for the tenant's running one): two of them can
 * hold the same client.
 */
async function startHeldRun(tenantId: string) {
  const services = getServices();
  const held = { ...services.batchQueue(), sendAll: async () => ({ failed: [] as number[] }) };
  const now = new Date(Date.now() + 2 * DAY);
  return startRescreenRun(
    { table: services.table, batchQueue: () => held },
    {
      tenantId,
      plan: PLANS.enterprise,
      trigger: 'list_change',
      clients: await findDueClients(services.table, tenantId, now),
      startedBy: { user_id: 'system', role: 'system' },
      now,
      snapshotVersion: await publishedSnapshotVersion(services.config),
    },
    logger,
  );
}

/** The queue message of a run's first client. */
const jobOf = (tenantId: string, runId: string) =>
  encodeJob({ kind: 'batch-subject', v: 2, tenant_id: tenantId, batch_id: runId, index: 0 });

async function freshTenant(plan: 'starter' | 'enterprise' = 'enterprise', used = 0) {
  const { table } = getServices();
  const { tenant, admin } = await createTenant(table, { name: `Rescreen ${plan}`, plan });
  if (used > 0) await chargeScreens(table, tenant.tenant_id, used, null);
  return { tenantId: tenant.tenant_id, key: admin.api_key };
}

async function runOf(tenantId: string, runs: { runs: { run_id: string }[] }, key: string) {
  for (const { run_id } of runs.runs) {
    const run = await local.api.get(`/clients/rescreen/runs/${run_id}`, key);
    if (run.status === 200) return run_id;
  }
  throw new Error(`no run for ${tenantId}`);
}

/** Polls the run until every queued client has finished. */
async function finished(runId: string, key: string) {
  for (let i = 0; i < 200; i += 1) {
    const run = (await local.api.get(`/clients/rescreen/runs/${runId}`, key)).body;
    if (run.status === 'finished') return run;
    await sleep(50);
  }
  throw new Error(`run ${runId} did not finish`);
}

const usedOf = async (key: string) => (await local.api.get('/me', key)).body.usage.screens_used as number;
const screensOf = async (clientId: string, key: string) =>
  (await local.api.get(`/clients/${clientId}`, key)).body.screens as { screen_id: string }[];

describe('auto-rescreen', () => {
  it('re-screens only the clients past their due date, charging one screen each', async () => {
    const { tenantId, key } = await freshTenant();
    const daily = (await local.api.post('/clients', key, { name: madeUpName(), rescreen_interval_days: 1 }))
      .body;
    const quarterly = (await local.api.post('/clients', key, { name: madeUpName() })).body;

    const run = await finished(await runOf(tenantId, await scheduleAt(2), key), key);

    expect(run).toMatchObject({ trigger: 'schedule', due: 1, queued: 1, skipped_quota: 0, finished: 1 });
    expect(await screensOf(daily.client_id, key)).toHaveLength(2);
    expect(await screensOf(quarterly.client_id, key)).toHaveLength(1);
    expect(await usedOf(key)).toBe(3);
    const profile = (await local.api.get(`/clients/${daily.client_id}`, key)).body;
    expect(profile.last_screen_id).not.toBe(daily.last_screen_id);
    // Next due: one interval after the new screen.
    expect(Date.parse(profile.next_due_at) - Date.parse(profile.last_screened_at)).toBe(DAY);
    expect(Date.parse(profile.last_screened_at)).toBeGreaterThanOrEqual(Date.parse(daily.last_screened_at));
  });

  it('an unchanged CLEAR does not alert, and its newer screen supersedes the older pending one', async () => {
    const { tenantId, key } = await freshTenant();
    const client = (await local.api.post('/clients', key, { name: madeUpName(), rescreen_interval_days: 1 }))
      .body;

    const run = await finished(await runOf(tenantId, await scheduleAt(2), key), key);

    expect(run.changed).toEqual([]);
    const [newest, oldest] = await screensOf(client.client_id, key);
    const fresh = (await local.api.get(`/screens/${newest.screen_id}`, key)).body;
    expect(fresh).toMatchObject({
      origin: 'rescreen',
      alert: null,
      disposition: null,
      client_id: client.client_id,
    });
    expect((await local.api.get(`/screens/${oldest.screen_id}`, key)).body.superseded_by).toBe(
      newest.screen_id,
    );
    const pending = (await local.api.get('/screens/pending', key)).body.screens.map(
      (s: { screen_id: string }) => s.screen_id,
    );
    expect(pending).toEqual([newest.screen_id]);
  });

  it('a new match alerts: the new screen is pending with the matches added and the risk before and after', async () => {
    const { tenantId, key } = await freshTenant();
    const client = (
      await local.api.post('/clients', key, {
        name: 'Vladimir Putin',
        dob: '1952-10-07',
        rescreen_interval_days: 1,
      })
    ).body;
    await screenBeforeListing(tenantId, client.last_screen_id);

    const run = await finished(await runOf(tenantId, await scheduleAt(2), key), key);

    expect(run.changed).toHaveLength(1);
    expect(run.changed[0]).toMatchObject({
      client_id: client.client_id,
      previous_screen_id: client.last_screen_id,
      risk_before: 'CLEAR',
    });
    const alerted = (await local.api.get(`/screens/${run.changed[0].screen_id}`, key)).body;
    expect(alerted.disposition).toBeNull();
    expect(alerted.alert.risk_before).toBe('CLEAR');
    expect(['HIGH', 'CRITICAL']).toContain(alerted.alert.risk_after);
    expect(alerted.alert.matches_added.map((m: { list_id: string }) => m.list_id)).toContain(
      alerted.sanctions_result.matches[0].list_id,
    );
  });

  it('a false positive on unchanged entries is carried forward by the system, not asked again', async () => {
    const { tenantId, key } = await freshTenant();
    const client = (
      await local.api.post('/clients', key, {
        name: 'Vladimir Putin',
        dob: '1952-10-07',
        rescreen_interval_days: 1,
      })
    ).body;
    await local.api.post(`/screens/${client.last_screen_id}/dispose`, key, {
      disposition: 'false_positive',
      note: 'Different person: verified passport',
    });

    const run = await finished(await runOf(tenantId, await scheduleAt(2), key), key);

    expect(run.changed).toEqual([]);
    const [newest] = await screensOf(client.client_id, key);
    const history = (await local.api.get(`/screens/${newest.screen_id}/history`, key)).body;
    expect(history.disposition).toMatchObject({
      disposition: 'false_positive',
      author: { role: 'admin' },
      carried_by: { role: 'system' },
      carried_from: { screen_id: client.last_screen_id, decision_version: 1 },
    });
    expect(history.history).toHaveLength(1);
    expect(history.history[0].note).toContain(client.last_screen_id);
    const pending = (await local.api.get('/screens/pending', key)).body.screens;
    expect(pending).toEqual([]);
  });

  it('at the quota limit the client is skipped, counted, stays due and is not charged', async () => {
    const { key } = await freshTenant('starter');
    const clients = [];
    for (let i = 0; i < 3; i += 1) {
      clients.push(
        (await local.api.post('/clients', key, { name: madeUpName(), rescreen_interval_days: 1 })).body,
      );
    }
    const { table } = getServices();
    const tenantId = (await local.api.get('/me', key)).body.tenant.tenant_id;
    await chargeScreens(table, tenantId, 1000 - 3 - 1, 1000);

    const run = await finished(await runOf(tenantId, await scheduleAt(2), key), key);

    expect(run).toMatchObject({ due: 3, queued: 1, skipped_quota: 2 });
    expect(await usedOf(key)).toBe(1000);
    let skipped = 0;
    for (const client of clients) {
      const profile = (await local.api.get(`/clients/${client.client_id}`, key)).body;
      if (profile.last_screen_id !== client.last_screen_id) continue;
      skipped += 1;
      expect(profile.next_due_at).toBe(client.next_due_at);
    }
    expect(skipped).toBe(2);
    // Still due: the next run finds them (and, with no quota left, skips them again).
    const again = await finished(await runOf(tenantId, await scheduleAt(3), key), key);
    expect(again).toMatchObject({ due: 3, queued: 0, skipped_quota: 3 });
  });

  it('two scheduled rules at once start one run: each due client is screened and charged once', async () => {
    const { key } = await freshTenant();
    const clients = [];
    for (let i = 0; i < 6; i += 1) {
      clients.push(
        (await local.api.post('/clients', key, { name: madeUpName(), rescreen_interval_days: 1 })).body,
      );
    }

    // The rule fires at the clients' due date, once the clock is a second past their registration:
    // a client re-screened by the run is then due a day after the cut-off, not within it.
    const cutOff = Math.max(...clients.map((client) => Date.parse(client.next_due_at)));
    await sleep(Math.max(0, cutOff - DAY + 1000 - Date.now()));
    const rule = () => autoRescreen(scheduledEvent({ id: 'auto-rescreen' }, new Date(cutOff)));
    const [first, second] = await Promise.all([rule(), rule()]);
    const mine = new Set<string>();
    for (const { run_id } of [...first.runs, ...second.runs]) {
      if ((await local.api.get(`/clients/rescreen/runs/${run_id}`, key)).status === 200) mine.add(run_id);
    }

    expect(mine.size).toBe(1);
    const run = await finished([...mine][0], key);
    expect(run).toMatchObject({ due: 6, queued: 6, already_running: 0 });
    for (const client of clients) expect(await screensOf(client.client_id, key)).toHaveLength(2);
    expect(await usedOf(key)).toBe(12);
  });

  it('three concurrent manual triggers: one run, the quota reserved once, direct screens meanwhile not refused', async () => {
    const { tenantId, key } = await freshTenant('starter', 1000 - 30);
    const { table } = getServices();
    const dueAt = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await putItems(
      table,
      Array.from({ length: 20 }, (_, i) =>
        monitoredClientItem(
          tenantId,
          `CLI-20260101-${String(i).padStart(9, '0')}-abcdef`,
          { name: madeUpName() },
          dueAt,
        ),
      ),
    );

    const triggers = await Promise.all(
      Array.from({ length: 3 }, () => local.api.post('/clients/rescreen/auto/trigger', key)),
    );

    expect(triggers.map((t) => t.status)).toEqual([202, 202, 202]);
    const runIds = new Set(triggers.map((t) => t.body.run_id));
    expect(runIds.size).toBe(1);
    expect(triggers.filter((t) => t.body.started).length).toBe(1);
    for (const trigger of triggers)
      expect(trigger.body).toMatchObject({ due: 20, queued: 20, skipped_quota: 0 });
    // Reserved once: 970 + 20, so ten direct screens still fit in the month.
    expect(await usedOf(key)).toBe(990);
    // The Starter rate (a burst of 10, then 9 a second) may answer a 429 to these on top of the
    // triggers: a client waits and sends again. The quota is what must not refuse them.
    const screenWaitingOutRate = async () => {
      for (;;) {
        const response = await local.api.post('/screen', key, { name: madeUpName(), force: true });
        if (response.status !== 429) return response;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    };
    const direct = await Promise.all(Array.from({ length: 10 }, screenWaitingOutRate));
    expect(direct.map((r) => r.status)).toEqual(Array(10).fill(200));
    const run = await finished([...runIds][0], key);
    expect(run).toMatchObject({ due: 20, queued: 20, finished: 20, already_running: 0 });
    expect(await usedOf(key)).toBe(1000);
    // Once it has finished, the next trigger starts a run of its own.
    const next = await local.api.post('/clients/rescreen/auto/trigger', key);
    expect(next.body).toMatchObject({ started: true, due: 0 });
    expect(next.body.run_id).not.toBe([...runIds][0]);
  });

  it('POST /clients/rescreen/auto/trigger answers 202 with the counts; another tenant’s run is 404', async () => {
    const { key } = await freshTenant();
    const other = await freshTenant();
    await local.api.post('/clients', key, { name: madeUpName() });

    const { status, body } = await local.api.post('/clients/rescreen/auto/trigger', key);

    expect(status).toBe(202);
    expect(body).toMatchObject({
      run_id: expect.stringMatching(/^RUN-\d{8}-[0-9a-f]{10}$/),
      due: 0,
      queued: 0,
    });
    expect((await local.api.get(`/clients/rescreen/runs/${body.run_id}`, key)).body.status).toBe('finished');
    expect((await local.api.get(`/clients/rescreen/runs/${body.run_id}`, other.key)).status).toBe(404);
    expect((await local.api.get('/clients/rescreen/runs/RUN-20260101-0123456789', key)).status).toBe(404);
    expect((await local.api.get('/clients/rescreen/runs/nonsense', key)).status).toBe(404);
  });

  it('a run that queued a client another run re-screened since does not screen it, even when the new due date equals the one it saw', async () => {
    const { tenantId, key } = await freshTenant();
    // A frozen clock: the registration and run A's re-screen fall in the same second, so the
    // client's next due date after A's re-screen is, to the second, the one run B saw.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now());
      const client = (
        await local.api.post('/clients', key, { name: madeUpName(), rescreen_interval_days: 1 })
      ).body;
      const [runA, runB] = [await startHeldRun(tenantId), await startHeldRun(tenantId)];
      expect([runA.queued, runB.queued]).toEqual([1, 1]);
      const deliver = (runId: string) =>
        createQueueWorker({ services: getServices })({ Records: [sqsRecord(runId, jobOf(tenantId, runId))] });

      await deliver(runA.run_id);
      const profile = (await local.api.get(`/clients/${client.client_id}`, key)).body;
      expect(profile.next_due_at).toBe(client.next_due_at);
      await deliver(runB.run_id);

      expect(await screensOf(client.client_id, key)).toHaveLength(2);
      expect(await usedOf(key)).toBe(2);
      expect(await finished(runB.run_id, key)).toMatchObject({ queued: 1, already_running: 1, finished: 1 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('a client stopped mid-run is reported failed with its reason, refunded; the others are re-screened', async () => {
    const { tenantId, key } = await freshTenant();
    const stopped = (await local.api.post('/clients', key, { name: madeUpName(), rescreen_interval_days: 1 }))
      .body;
    const kept = (await local.api.post('/clients', key, { name: madeUpName(), rescreen_interval_days: 1 }))
      .body;
    const run = await startHeldRun(tenantId);
    expect(run.queued).toBe(2);
    const used = await usedOf(key);

    expect((await local.api.delete(`/clients/${stopped.client_id}`, key)).status).toBe(200);
    const worker = createQueueWorker({ services: getServices });
    for (const index of [0, 1])
      await worker({
        Records: [
          sqsRecord(
            `${run.run_id}-${index}`,
            encodeJob({ kind: 'batch-subject', v: 2, tenant_id: tenantId, batch_id: run.run_id, index }),
          ),
        ],
      });

    const report = await finished(run.run_id, key);
    expect(report).toMatchObject({
      queued: 2,
      finished: 2,
      failed: 1,
      failed_clients: [
        {
          client_id: stopped.client_id,
          reason: 'monitoring_stopped',
          detail: expect.stringContaining(`Client ${stopped.client_id} is no longer monitored`),
        },
      ],
    });
    expect(await screensOf(stopped.client_id, key)).toHaveLength(1);
    expect(await screensOf(kept.client_id, key)).toHaveLength(2);
    // The stopped client's screen was refunded: only the kept client's re-screen stays charged.
    expect(await usedOf(key)).toBe(used - 1);
  });

  it('a run whose clients all re-screened reports no failed clients', async () => {
    const { tenantId, key } = await freshTenant();
    await local.api.post('/clients', key, { name: madeUpName(), rescreen_interval_days: 1 });

    const run = await finished(await runOf(tenantId, await scheduleAt(2), key), key);

    expect(run).toMatchObject({ finished: 1, failed: 0, failed_clients: [] });
  });

  it('a retry after the screen was stored but not recorded on the client finds that screen: no second screen', async () => {
    const { tenantId, key } = await freshTenant();
    const client = (await local.api.post('/clients', key, { name: madeUpName(), rescreen_interval_days: 1 }))
      .body;
    const services = getServices();
    const run = await startHeldRun(tenantId);
    expect(run.queued).toBe(1);
    const used = await usedOf(key);

    // First delivery: the screen is stored, then the store fails on the client's update.
    const flaky = failOnce(services.table, (input) => String(input.UpdateExpression).includes('last_run_id'));
    const body = jobOf(tenantId, run.run_id);
    const first = await createQueueWorker({ services: () => ({ ...services, table: flaky.table }) })({
      Records: [sqsRecord('first', body, 1)],
    });
    expect(flaky.failed()).toBe(true);
    expect(first.batchItemFailures).toHaveLength(1);

    const second = await createQueueWorker({ services: getServices })({
      Records: [sqsRecord('first', body, 2)],
    });
    expect(second.batchItemFailures).toEqual([]);
    const screens = await screensOf(client.client_id, key);
    expect(screens).toHaveLength(2);
    const profile = (await local.api.get(`/clients/${client.client_id}`, key)).body;
    expect(profile.last_screen_id).toBe(screens[0].screen_id);
    expect(profile.last_screen_id).not.toBe(client.last_screen_id);
    expect(await usedOf(key)).toBe(used);
    expect((await finished(run.run_id, key)).finished).toBe(1);
  });

  it('a repeat POST /screen of a client after its re-screen returns the re-screen, charging nothing', async () => {
    const { tenantId, key } = await freshTenant();
    const name = madeUpName();
    const client = (await local.api.post('/clients', key, { name, rescreen_interval_days: 1 })).body;
    const runId = await runOf(tenantId, await scheduleAt(2), key);
    await finished(runId, key);
    const [rescreen] = await screensOf(client.client_id, key);
    const used = await usedOf(key);

    const repeat = await local.api.post('/screen', key, { name });

    expect(repeat.status).toBe(200);
    expect(repeat.body.screen_id).toBe(rescreen.screen_id);
    expect(repeat.body.skipped).toBe(true);
    expect(await usedOf(key)).toBe(used);
  });

  it('a redelivered rescreen job screens and charges once', async () => {
    const { tenantId, key } = await freshTenant();
    const client = (await local.api.post('/clients', key, { name: madeUpName(), rescreen_interval_days: 1 }))
      .body;
    const runId = await runOf(tenantId, await scheduleAt(2), key);
    await finished(runId, key);
    const used = await usedOf(key);

    const body = encodeJob({ kind: 'batch-subject', v: 2, tenant_id: tenantId, batch_id: runId, index: 0 });
    const worker = createQueueWorker({ services: getServices });
    const result = await worker({ Records: [sqsRecord('again', body, 2)] });

    expect(result.batchItemFailures).toEqual([]);
    expect(await screensOf(client.client_id, key)).toHaveLength(2);
    expect(await usedOf(key)).toBe(used);
  });
});
