import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMatcher, type Matcher } from '../../lib/matcher/screen.ts';
import { loadSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { readConfig } from '../../lib/runtime/config.ts';
import { deleteScreen } from '../../lib/screening/delete.ts';
import { screenSubject } from '../../lib/screening/screen-subject.ts';
import { listScreens } from '../../lib/screening/screens-read.ts';
import type { Table } from '../../lib/store/table.ts';
import { PLANS } from '../../lib/tenancy/plans.ts';
import { getMonthlyUsage } from '../../lib/tenancy/quota.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';

let store: TestStore;
let matcher: Matcher;
beforeAll(async () => {
  store = await startTestStore();
  matcher = createMatcher(loadSnapshot());
}, 60_000);
afterAll(async () => store.close());

const servicesWith = (windowHours: string, table: Table = store.table) => ({
  table,
  config: readConfig({ TABLE_NAME: table.name, RESCREEN_WINDOW_HOURS: windowHours }),
  matcher: () => matcher,
});
const caller = (tenantId: string) => ({
  tenantId,
  userId: 'u1',
  role: 'analyst' as const,
  plan: PLANS.growth,
});
const hours = (base: Date, h: number) => new Date(base.getTime() + h * 3600_000);

describe('screenSubject', () => {
  it('returns the earlier screen inside the window and screens afresh once it has passed', async () => {
    const services = servicesWith('24');
    const t0 = new Date('2025-06-01T08:00:00Z');
    const first = await screenSubject(services, caller('twindow'), { name: 'Jane Quillonby' }, { at: t0 });

    const inside = await screenSubject(
      services,
      caller('twindow'),
      { name: 'jane quillonby' },
      { at: hours(t0, 23.9) },
    );
    const outside = await screenSubject(
      services,
      caller('twindow'),
      { name: 'Jane Quillonby' },
      { at: hours(t0, 24.1) },
    );

    expect(first.skipped).toBe(false);
    expect(inside).toMatchObject({
      skipped: true,
      screen_id: first.screen_id,
      screened_at: '2025-06-01T08:00:00Z',
    });
    expect(outside.skipped).toBe(false);
    expect(outside.screen_id).not.toBe(first.screen_id);
    expect(await getMonthlyUsage(store.table, 'twindow', t0)).toBe(2);
  });

  it('never caches with a window of 0 hours', async () => {
    const services = servicesWith('0');
    const a = await screenSubject(services, caller('tzero'), { name: 'Jane Quillonby' });
    const b = await screenSubject(services, caller('tzero'), { name: 'Jane Quillonby' });
    expect(b.skipped).toBe(false);
    expect(b.screen_id).not.toBe(a.screen_id);
  });

  it('charges nothing with charge: false (the batch pre-charges)', async () => {
    await screenSubject(servicesWith('24'), caller('tbatch'), { name: 'Jane Quillonby' }, { charge: false });
    expect(await getMonthlyUsage(store.table, 'tbatch')).toBe(0);
    expect((await listScreens(store.table, 'tbatch', 10)).screens).toHaveLength(1);
  });

  it('refunds the charge when the screen cannot be stored', async () => {
    const failing: Table = {
      name: store.table.name,
      doc: new Proxy(store.table.doc, {
        get(target, property, receiver) {
          if (property !== 'send') return Reflect.get(target, property, receiver);
          return (command: unknown) => {
            if (command instanceof PutCommand && command.input.Item?.entity === 'screen') {
              return Promise.reject(new Error('storage unavailable'));
            }
            return target.send(command as never);
          };
        },
      }),
    };

    await expect(
      screenSubject(servicesWith('24', failing), caller('tfailing'), { name: 'Jane Quillonby' }),
    ).rejects.toThrow('storage unavailable');

    expect(await getMonthlyUsage(store.table, 'tfailing')).toBe(0);
    expect((await listScreens(store.table, 'tfailing', 10)).screens).toEqual([]);
  });

  it('screens a subject sent five times at once exactly once: one charge, the others return it as skipped', async () => {
    const services = servicesWith('24');

    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        screenSubject(services, caller('tconcurrent'), { name: 'Ada Brennholt' }),
      ),
    );

    expect(results.filter((r) => !r.skipped)).toHaveLength(1);
    expect(new Set(results.map((r) => r.screen_id)).size).toBe(1);
    expect(await getMonthlyUsage(store.table, 'tconcurrent')).toBe(1);
    expect((await listScreens(store.table, 'tconcurrent', 10)).screens).toHaveLength(1);
  });

  it('screens afresh after the window screen was deleted, at once', async () => {
    const services = servicesWith('24');
    const first = await screenSubject(services, caller('tdeleted'), { name: 'Ada Brennholt' });
    await deleteScreen(store.table, { ...caller('tdeleted'), role: 'admin' }, first.screen_id);

    const started = Date.now();
    const again = await screenSubject(services, caller('tdeleted'), { name: 'Ada Brennholt' });

    expect(again.skipped).toBe(false);
    expect(again.screen_id).not.toBe(first.screen_id);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('a forced screen becomes the one the window returns', async () => {
    const services = servicesWith('24');
    await screenSubject(services, caller('tforced'), { name: 'Ada Brennholt' });
    const forced = await screenSubject(services, caller('tforced'), { name: 'Ada Brennholt', force: true });

    const repeat = await screenSubject(services, caller('tforced'), { name: 'Ada Brennholt' });

    expect(repeat).toMatchObject({ skipped: true, screen_id: forced.screen_id });
  });
});
