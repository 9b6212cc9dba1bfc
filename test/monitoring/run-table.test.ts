import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../lib/common/errors.ts';
import {
  claimRunningRunItem,
  getRunningRun,
  noteRunCounts,
  type RunChange,
  recordRunChange,
  runChanges,
  runChangeWrites,
  runningRunWrites,
} from '../../lib/monitoring/run-table.ts';
import { keys } from '../../lib/store/schema.ts';
import { transact } from '../../lib/store/write.ts';
import { readItem, startTestStore, type TestStore } from '../support/dynamo.ts';

/**
 * The rescreen run items on DynamoDB Local: a tenant's running run is claimed by one run at a time
 * (until its lease passes, or a trigger names it stale), and a run lists the clients whose outcome
 * it changed.
 */
let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store?.close());

let tenants = 0;
/** A tenant of its own per test: the running run is one per tenant. */
const newTenant = () => `trun${++tenants}`;

const NOW = 1_800_000_000_000;
const lease = (now = NOW, stale?: string) => ({ now, leaseUntil: now + 60_000, ...(stale ? { stale } : {}) });

describe("the tenant's running run", () => {
  it('is claimed when free; the claim reads back parsed', async () => {
    const tenant = newTenant();

    const outcome = await claimRunningRunItem(store.table, tenant, 'RUN-1', lease());

    expect(outcome).toEqual({ claimed: true });
    expect(await getRunningRun(store.table, tenant)).toEqual({
      entity: 'running-run',
      run_id: 'RUN-1',
      claimed_at: NOW,
      lease_until: NOW + 60_000,
    });
  });

  it("is refused while another run's lease holds, naming that run and leaving its claim as it was", async () => {
    const tenant = newTenant();
    await claimRunningRunItem(store.table, tenant, 'RUN-1', lease());
    const before = await readItem(store.table, keys.runningRun(tenant));

    const outcome = await claimRunningRunItem(store.table, tenant, 'RUN-2', lease(NOW + 1000));

    expect(outcome).toEqual({ claimed: false, found: expect.objectContaining({ run_id: 'RUN-1' }) });
    expect(await readItem(store.table, keys.runningRun(tenant))).toEqual(before);
  });

  it('is claimed once the lease has passed', async () => {
    const tenant = newTenant();
    await claimRunningRunItem(store.table, tenant, 'RUN-1', lease());

    const outcome = await claimRunningRunItem(store.table, tenant, 'RUN-2', lease(NOW + 60_001));

    expect(outcome).toEqual({ claimed: true });
    expect((await getRunningRun(store.table, tenant))?.run_id).toBe('RUN-2');
  });

  it('is claimed within the lease by a trigger that names the run stale, and not one naming another run', async () => {
    const tenant = newTenant();
    await claimRunningRunItem(store.table, tenant, 'RUN-1', lease());

    const namingAnother = await claimRunningRunItem(store.table, tenant, 'RUN-2', lease(NOW + 1000, 'RUN-0'));
    const namingHolder = await claimRunningRunItem(store.table, tenant, 'RUN-3', lease(NOW + 1000, 'RUN-1'));

    expect(namingAnother).toMatchObject({ claimed: false, found: { run_id: 'RUN-1' } });
    expect(namingHolder).toEqual({ claimed: true });
    expect((await getRunningRun(store.table, tenant))?.run_id).toBe('RUN-3');
  });

  it('lets exactly one of 20 concurrent triggers claim a free run; the others see the winner', async () => {
    const tenant = newTenant();

    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => claimRunningRunItem(store.table, tenant, `RUN-${i}`, lease())),
    );

    const winners = outcomes.flatMap((outcome, i) => (outcome.claimed ? [`RUN-${i}`] : []));
    expect(winners).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => !o.claimed))
      expect(outcome).toMatchObject({ claimed: false, found: { run_id: winners[0] } });
    expect((await getRunningRun(store.table, tenant))?.run_id).toBe(winners[0]);
  });

  it('lets exactly one of 20 concurrent triggers that all saw the same run over take its claim', async () => {
    const tenant = newTenant();
    await claimRunningRunItem(store.table, tenant, 'RUN-old', lease());

    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        claimRunningRunItem(store.table, tenant, `RUN-${i}`, lease(NOW + 1000, 'RUN-old')),
      ),
    );

    const winners = outcomes.flatMap((outcome, i) => (outcome.claimed ? [`RUN-${i}`] : []));
    expect(winners).toHaveLength(1);
    expect((await getRunningRun(store.table, tenant))?.run_id).toBe(winners[0]);
  });
});

describe("a run's counts on its claim", () => {
  it('are noted on its own claim', async () => {
    const tenant = newTenant();
    await claimRunningRunItem(store.table, tenant, 'RUN-1', lease());

    await noteRunCounts(store.table, tenant, 'RUN-1', { due: 5, queued: 3, skipped_quota: 2 });

    expect(await getRunningRun(store.table, tenant)).toMatchObject({
      run_id: 'RUN-1',
      due: 5,
      queued: 3,
      skipped_quota: 2,
    });
  });

  it('are not noted once the claim names another run, which keeps its own', async () => {
    const tenant = newTenant();
    await claimRunningRunItem(store.table, tenant, 'RUN-2', lease());
    const before = await readItem(store.table, keys.runningRun(tenant));

    // The run finished at once and another took the claim: nothing to note, and no error.
    await noteRunCounts(store.table, tenant, 'RUN-1', { due: 5, queued: 3, skipped_quota: 2 });

    expect(await readItem(store.table, keys.runningRun(tenant))).toEqual(before);
  });
});

const change = (clientId: string): RunChange => ({
  client_id: clientId,
  reference: null,
  screen_id: `SCR-20261201-${clientId.slice(-6)}`,
  previous_screen_id: null,
  risk_before: 'CLEAR',
  risk_after: 'HIGH',
  matches_added: 1,
  matches_changed: 0,
  alert: 'raised',
  alert_since: null,
});

describe("a run's changes", () => {
  it('read back parsed, in client id order, only for their run', async () => {
    const tenant = newTenant();
    await recordRunChange(store.table, tenant, 'RUN-1', change('CLI-000002'), '2026-12-01T00:00:00Z', 1);
    await recordRunChange(store.table, tenant, 'RUN-1', change('CLI-000001'), '2026-12-01T00:00:00Z', 1);
    await recordRunChange(store.table, tenant, 'RUN-2', change('CLI-000003'), '2026-12-01T00:00:00Z', 1);

    const changes = await runChanges(store.table, tenant, 'RUN-1');

    expect(changes).toEqual([change('CLI-000001'), change('CLI-000002')]);
  });
});

describe('in a transaction', () => {
  it("writes neither the claim nor a change when the run's claim is refused", async () => {
    const tenant = newTenant();
    await claimRunningRunItem(store.table, tenant, 'RUN-1', lease());
    const before = await readItem(store.table, keys.runningRun(tenant));

    const refusal = await transact(store.table, [
      runChangeWrites.record(tenant, 'RUN-2', change('CLI-000001'), '2026-12-01T00:00:00Z', 1),
      runningRunWrites.claim(tenant, 'RUN-2', NOW + 1000, NOW + 61_000),
    ]).catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(ConflictError);
    expect(await readItem(store.table, keys.runningRun(tenant))).toEqual(before);
    expect(await runChanges(store.table, tenant, 'RUN-2')).toEqual([]);
  });
});
