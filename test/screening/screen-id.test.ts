import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuotaExceededError } from '../../lib/common/errors.ts';
import { isScreenId } from '../../lib/common/ids.ts';
import {
  blockScreenId,
  formatScreenId,
  numberScreen,
  reserveScreenNumbers,
  screenDay,
} from '../../lib/screening/screen-id.ts';
import { getMonthlyUsage } from '../../lib/tenancy/quota.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';
import { failOnce } from '../support/flaky-table.ts';

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store.close());

const day = new Date('2025-03-14T12:00:00Z');

describe('screen ids', () => {
  it('have the SCR-YYYYMMDD-NNNNNN form of the UTC day', () => {
    expect(screenDay(new Date('2025-03-14T23:59:59Z'))).toBe('20250314');
    expect(formatScreenId('20250314', 7)).toBe('SCR-20250314-000007');
    expect(isScreenId('SCR-20250314-000007')).toBe(true);
    expect(isScreenId('SCR-2025-03-14-7')).toBe(false);
  });

  it('are unique under concurrency, numbered per tenant and day, and charged one each', async () => {
    const ids = await Promise.all(
      Array.from({ length: 40 }, () => numberScreen(store.table, 'tone', day, { limit: null })),
    );

    expect(new Set(ids).size).toBe(40);
    expect([...ids].sort()[39]).toBe('SCR-20250314-000040');
    expect(await getMonthlyUsage(store.table, 'tone', day)).toBe(40);
    expect(await numberScreen(store.table, 'ttwo', day, { limit: null })).toBe('SCR-20250314-000001');
    expect(await numberScreen(store.table, 'tone', new Date('2025-03-15T00:00:00Z'), { limit: null })).toBe(
      'SCR-20250315-000001',
    );
  });

  it('draws a block of numbers for a batch that single screens never reuse, charging nothing', async () => {
    const [block, single, other] = await Promise.all([
      reserveScreenNumbers(store.table, 'tblock', day, 500),
      numberScreen(store.table, 'tblock', day),
      reserveScreenNumbers(store.table, 'tblock', day, 3),
    ]);
    const ids = [
      ...Array.from({ length: 500 }, (_, i) => blockScreenId(block, i)),
      single,
      ...Array.from({ length: 3 }, (_, i) => blockScreenId(other, i)),
    ];

    expect(new Set(ids).size).toBe(504);
    expect([...ids].sort()).toEqual(Array.from({ length: 504 }, (_, i) => formatScreenId('20250314', i + 1)));
    expect(await getMonthlyUsage(store.table, 'tblock', day)).toBe(0);
  });

  it('lets exactly the limit through under concurrency; refused screens consume no id', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, () => numberScreen(store.table, 'tlimited', day, { limit: 5 })),
    );

    const granted = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value);
    expect(granted.sort()).toEqual([1, 2, 3, 4, 5].map((n) => formatScreenId('20250314', n)));
    for (const o of outcomes.filter((o) => o.status === 'rejected')) {
      expect(o.reason).toBeInstanceOf(QuotaExceededError);
      expect((o.reason as QuotaExceededError).detail).toContain('5/5');
    }
    expect(await getMonthlyUsage(store.table, 'tlimited', day)).toBe(5);
  });

  it('numbers without charging when no charge is asked (pre-charged batch subjects)', async () => {
    expect(await numberScreen(store.table, 'tfree', day)).toBe('SCR-20250314-000001');
    expect(await getMonthlyUsage(store.table, 'tfree', day)).toBe(0);
  });

  it('passes a store outage on as it is, not as a quota refusal, and numbers and charges nothing', async () => {
    const flaky = failOnce(store.table, (input) => String(input.UpdateExpression).includes('used'));

    const numbered = numberScreen(flaky.table, 'tnumberoutage', day, { limit: 5 });

    await expect(numbered).rejects.toThrow('store unavailable');
    await expect(numbered).rejects.not.toBeInstanceOf(QuotaExceededError);
    expect(await getMonthlyUsage(store.table, 'tnumberoutage', day)).toBe(0);
    expect(await numberScreen(store.table, 'tnumberoutage', day, { limit: 5 })).toBe('SCR-20250314-000001');
  });
});
