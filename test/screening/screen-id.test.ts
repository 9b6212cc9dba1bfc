import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allocateScreenId, formatScreenId, isScreenId, screenDay } from '../../lib/screening/screen-id.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store.close());

describe('screen ids', () => {
  it('have the SCR-YYYYMMDD-NNNNNN form of the UTC day', () => {
    expect(screenDay(new Date('2025-03-14T23:59:59Z'))).toBe('20250314');
    expect(formatScreenId('20250314', 7)).toBe('SCR-20250314-000007');
    expect(isScreenId('SCR-20250314-000007')).toBe(true);
    expect(isScreenId('SCR-2025-03-14-7')).toBe(false);
  });

  it('are unique under concurrency and numbered per tenant and day', async () => {
    const day = new Date('2025-03-14T12:00:00Z');
    const ids = await Promise.all(
      Array.from({ length: 40 }, () => allocateScreenId(store.table, 'tone', day)),
    );

    expect(new Set(ids).size).toBe(40);
    expect([...ids].sort()[39]).toBe('SCR-20250314-000040');
    expect(await allocateScreenId(store.table, 'ttwo', day)).toBe('SCR-20250314-000001');
    expect(await allocateScreenId(store.table, 'tone', new Date('2025-03-15T00:00:00Z'))).toBe(
      'SCR-20250315-000001',
    );
  });
});
