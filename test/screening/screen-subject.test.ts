import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../lib/common/config.ts';
import { QuotaExceededError } from '../../lib/common/errors.ts';
import { createMatcher, type Matcher } from '../../lib/matcher/screen.ts';
import { loadSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { deleteScreen } from '../../lib/screening/delete.ts';
import { screenSubject } from '../../lib/screening/screen-subject.ts';
import { listScreens } from '../../lib/screening/screens-read.ts';
import type { Table } from '../../lib/store/table.ts';
import { PLANS } from '../../lib/tenancy/plans.ts';
import { chargeScreens, getMonthlyUsage } from '../../lib/tenancy/quota.ts';
import { buildSnapshot } from '../../lib/watchlists/snapshot.ts';
import { LIST_SOURCES } from '../../lib/watchlists/sources.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';
import { createListMirror, UN_FILE, unWithoutIndividuals } from '../support/list-mirror.ts';

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

  describe('after a list change', () => {
    // The UN list as published, and as it was before its first individual (Eric Badege, a real
    // designee) was listed: the lists in force before and after a sync that adds him.
    const sources = LIST_SOURCES.filter((source) => source.descriptor.id === 'un_sc');
    let before: Matcher;
    let after: Matcher;
    beforeAll(() => {
      const mirror = createListMirror([UN_FILE]);
      try {
        after = createMatcher(buildSnapshot(mirror.dir, { sources }));
        mirror.write(UN_FILE, unWithoutIndividuals(mirror.read(UN_FILE), 1));
        before = createMatcher(buildSnapshot(mirror.dir, { sources }));
      } finally {
        mirror.close();
      }
      expect(before.snapshot.version).not.toBe(after.snapshot.version);
    });
    const servicesOn = (lists: () => Matcher) => ({ ...servicesWith('24'), matcher: lists });

    it('of five repeats at once of a subject the change matches, exactly one screens afresh and is charged', async () => {
      let inForce = before;
      const services = servicesOn(() => inForce);
      const cleared = await screenSubject(services, caller('tlistchange'), { name: 'Eric Badege' });
      const other = await screenSubject(services, caller('tlistchange'), { name: 'Ada Brennholt' });
      expect(cleared.risk_level).toBe('CLEAR');

      inForce = after;
      const repeats = await Promise.all(
        Array.from({ length: 5 }, () =>
          screenSubject(services, caller('tlistchange'), { name: 'Eric Badege' }),
        ),
      );
      const otherRepeat = await screenSubject(services, caller('tlistchange'), { name: 'Ada Brennholt' });

      expect(repeats.filter((r) => !r.skipped)).toHaveLength(1);
      expect(new Set(repeats.map((r) => r.screen_id)).size).toBe(1);
      expect(repeats[0].screen_id).not.toBe(cleared.screen_id);
      expect(repeats[0].risk_level).toBe('HIGH');
      expect(otherRepeat).toMatchObject({ skipped: true, screen_id: other.screen_id });
      expect(await getMonthlyUsage(store.table, 'tlistchange')).toBe(3);
    });

    it('at the monthly limit refuses a repeat the change matches rather than return the outdated screen', async () => {
      const services = servicesOn(() => before);
      const cleared = await screenSubject(services, caller('tlistlimit'), { name: 'Eric Badege' });
      await chargeScreens(store.table, 'tlistlimit', PLANS.growth.monthly_screens ?? 0, null);

      const repeat = screenSubject(
        servicesOn(() => after),
        caller('tlistlimit'),
        { name: 'Eric Badege' },
      );

      await expect(repeat).rejects.toBeInstanceOf(QuotaExceededError);
      // On the lists it was taken on, the same screen is still the answer, free.
      const same = await screenSubject(services, caller('tlistlimit'), { name: 'Eric Badege' });
      expect(same).toMatchObject({ skipped: true, screen_id: cleared.screen_id });
    });
  });
});
