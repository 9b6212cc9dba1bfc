import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuotaExceededError } from '../../lib/common/errors.ts';
import { chargeScreens, getMonthlyUsage, refundScreens } from '../../lib/tenancy/quota.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';
import { failOnce } from '../support/flaky-table.ts';

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store.close());

describe('monthly screen quota', () => {
  it('lets exactly the limit through when 50 increments race against a limit of 10', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, () => chargeScreens(store.table, 'traceone', 1, 10)),
    );

    const granted = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(granted).toHaveLength(10);
    expect(refused).toHaveLength(40);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(QuotaExceededError);
    expect(await getMonthlyUsage(store.table, 'traceone')).toBe(10);
  });

  it('reports used and allowed counts in the 429 detail', async () => {
    await chargeScreens(store.table, 'tfull', 3, 3);

    const refusal = await chargeScreens(store.table, 'tfull', 1, 3).catch((e: unknown) => e);

    expect(refusal).toBeInstanceOf(QuotaExceededError);
    expect((refusal as QuotaExceededError).detail).toBe(
      'Monthly screen limit reached: 3/3 screens used this month. Upgrade your plan to screen more.',
    );
  });

  it('refuses a multi-screen charge that would cross the limit and charges nothing', async () => {
    await chargeScreens(store.table, 'tbatch', 8, 10);

    await expect(chargeScreens(store.table, 'tbatch', 3, 10)).rejects.toBeInstanceOf(QuotaExceededError);
    expect(await getMonthlyUsage(store.table, 'tbatch')).toBe(8);
  });

  it('never limits an unlimited plan', async () => {
    await chargeScreens(store.table, 'tunlimited', 100_000, null);

    expect(await chargeScreens(store.table, 'tunlimited', 1, null)).toBe(100_001);
  });

  it('counts calendar months in UTC separately', async () => {
    const november = new Date('2026-11-30T23:59:59Z');
    const december = new Date('2026-12-01T00:00:00Z');
    await chargeScreens(store.table, 'tmonths', 2, 2, november);

    expect(await chargeScreens(store.table, 'tmonths', 1, 2, december)).toBe(1);
    expect(await getMonthlyUsage(store.table, 'tmonths', november)).toBe(2);
  });

  it('refunds screens that were charged for failed work, never below zero', async () => {
    await chargeScreens(store.table, 'trefund', 5, 10);

    await refundScreens(store.table, 'trefund', 2);
    await refundScreens(store.table, 'trefund', 10);

    expect(await getMonthlyUsage(store.table, 'trefund')).toBe(3);
  });

  it('passes a store outage on as it is, not as a quota refusal, and charges nothing', async () => {
    const flaky = failOnce(store.table, (input) => String(input.UpdateExpression).includes('used'));

    const charge = chargeScreens(flaky.table, 'toutage', 3, 10);

    await expect(charge).rejects.toThrow('store unavailable');
    await expect(charge).rejects.not.toBeInstanceOf(QuotaExceededError);
    expect(flaky.failed()).toBe(true);
    expect(await getMonthlyUsage(store.table, 'toutage')).toBe(0);
  });
});
