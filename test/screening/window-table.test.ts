import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../lib/common/errors.ts';
import {
  claimWindow,
  findWindow,
  pointWindowAt,
  releaseWindow,
  takeOverWindow,
  WindowItemSchema,
  windowWrites,
} from '../../lib/screening/window-table.ts';
import { keys } from '../../lib/store/schema.ts';
import { transact } from '../../lib/store/write.ts';
import { readItem, startTestStore, type TestStore } from '../support/dynamo.ts';

/**
 * The rescreen-window item on DynamoDB Local: one screen holds a subject's window; a fresh screen
 * takes it only when it is free or its holder has left the window, a forced screen moves it
 * forward, and only its holder releases it.
 */
let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store?.close());

const TENANT = 'twindow';
let subjects = 0;
/** A subject of its own per test: the window is per subject hash. */
const newSubject = () => `hash-${++subjects}`;

/** Screen n's id: ids sort in the order they were numbered. */
const idOf = (n: number) => `SCR-20261201-${String(n).padStart(6, '0')}`;
const screen = (n: number, at: string) => ({ screenId: idOf(n), at: new Date(at) });
const NOON = '2026-12-01T12:00:00.000Z';
/** A cutoff before noon: a screen made at noon is still in its window. */
const MORNING = '2026-12-01T08:00:00Z';

describe('taking the window', () => {
  it('takes a free window; the item reads back whole, parsed with its schema', async () => {
    const hash = newSubject();
    const before = Date.now();

    const outcome = await claimWindow(store.table, TENANT, hash, screen(1, NOON), MORNING);

    expect(outcome).toEqual({ taken: true });
    const window = await findWindow(store.table, TENANT, hash);
    expect(window).toMatchObject({
      entity: 'rescreen-window',
      screen_id: 'SCR-20261201-000001',
      // Stored to the second: the form the cutoff is compared in.
      screened_at: '2026-12-01T12:00:00Z',
    });
    // The wall-clock time of the claim, not the screen's (which a test may set).
    expect(v.parse(WindowItemSchema, window).claimed_at_ms).toBeGreaterThanOrEqual(before);
  });

  it('refuses a window whose holder is still in it, naming the holder and leaving it as it was', async () => {
    const hash = newSubject();
    await claimWindow(store.table, TENANT, hash, screen(1, NOON), MORNING);
    const before = await readItem(store.table, keys.rescreenWindow(TENANT, hash));

    const outcome = await claimWindow(store.table, TENANT, hash, screen(2, NOON), MORNING);

    expect(outcome).toEqual({
      taken: false,
      holder: expect.objectContaining({ screen_id: 'SCR-20261201-000001' }),
    });
    expect(await readItem(store.table, keys.rescreenWindow(TENANT, hash))).toEqual(before);
  });

  it('takes a window whose holder was screened at or before the cutoff', async () => {
    const hash = newSubject();
    await claimWindow(store.table, TENANT, hash, screen(1, '2026-12-01T08:00:00Z'), '2026-12-01T00:00:00Z');

    // The holder's time equals the cutoff: it has left the window.
    const outcome = await claimWindow(store.table, TENANT, hash, screen(2, NOON), MORNING);

    expect(outcome).toEqual({ taken: true });
    expect((await findWindow(store.table, TENANT, hash))?.screen_id).toBe('SCR-20261201-000002');
  });

  it('replacing an outdated screen takes the window from it or an earlier one, never from a later one', async () => {
    const hash = newSubject();
    await claimWindow(store.table, TENANT, hash, screen(5, NOON), MORNING);

    const fromLater = await claimWindow(store.table, TENANT, hash, screen(6, NOON), MORNING, idOf(4));
    const fromItself = await claimWindow(store.table, TENANT, hash, screen(7, NOON), MORNING, idOf(5));

    expect(fromLater).toMatchObject({ taken: false, holder: { screen_id: 'SCR-20261201-000005' } });
    expect(fromItself).toEqual({ taken: true });
    expect((await findWindow(store.table, TENANT, hash))?.screen_id).toBe('SCR-20261201-000007');
  });

  it('lets exactly one of 20 concurrent fresh screens take a free window; the others see the winner', async () => {
    const hash = newSubject();

    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        claimWindow(store.table, TENANT, hash, screen(i + 1, NOON), MORNING),
      ),
    );

    const winners = outcomes.flatMap((outcome, i) => (outcome.taken ? [idOf(i + 1)] : []));
    expect(winners).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => !o.taken))
      expect(outcome).toMatchObject({ taken: false, holder: { screen_id: winners[0] } });
    expect((await findWindow(store.table, TENANT, hash))?.screen_id).toBe(winners[0]);
  });
});

describe('taking the window over from a holder whose screen never appeared', () => {
  it('takes it from exactly that holder, and refuses when another screen holds it', async () => {
    const hash = newSubject();
    await claimWindow(store.table, TENANT, hash, screen(1, NOON), MORNING);

    const fromWrongHolder = await takeOverWindow(store.table, TENANT, hash, screen(2, NOON), idOf(9));
    const fromHolder = await takeOverWindow(store.table, TENANT, hash, screen(3, NOON), idOf(1));

    expect(fromWrongHolder).toBe(false);
    expect(fromHolder).toBe(true);
    expect((await findWindow(store.table, TENANT, hash))?.screen_id).toBe('SCR-20261201-000003');
  });

  it('refuses a free window: there is no holder to take it from', async () => {
    const hash = newSubject();

    expect(await takeOverWindow(store.table, TENANT, hash, screen(1, NOON), 'SCR-20261201-000009')).toBe(
      false,
    );
    expect(await findWindow(store.table, TENANT, hash)).toBeUndefined();
  });

  it('lets exactly one of 20 concurrent screens take over from the same dead holder', async () => {
    const hash = newSubject();
    await claimWindow(store.table, TENANT, hash, screen(100, NOON), MORNING);

    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        takeOverWindow(store.table, TENANT, hash, screen(i + 1, NOON), 'SCR-20261201-000100'),
      ),
    );

    expect(outcomes.filter(Boolean)).toHaveLength(1);
    const winner = idOf(outcomes.indexOf(true) + 1);
    expect((await findWindow(store.table, TENANT, hash))?.screen_id).toBe(winner);
  });
});

describe('a forced screen', () => {
  it('moves the window forward to itself', async () => {
    const hash = newSubject();
    await claimWindow(store.table, TENANT, hash, screen(1, NOON), MORNING);

    await pointWindowAt(store.table, TENANT, hash, screen(2, '2026-12-01T13:00:00Z'));

    expect(await findWindow(store.table, TENANT, hash)).toMatchObject({
      screen_id: 'SCR-20261201-000002',
      screened_at: '2026-12-01T13:00:00Z',
    });
  });

  it('leaves a window that holds a later screen as it was', async () => {
    const hash = newSubject();
    await claimWindow(store.table, TENANT, hash, screen(2, '2026-12-01T13:00:00Z'), MORNING);
    const before = await readItem(store.table, keys.rescreenWindow(TENANT, hash));

    await pointWindowAt(store.table, TENANT, hash, screen(1, NOON));

    expect(await readItem(store.table, keys.rescreenWindow(TENANT, hash))).toEqual(before);
  });
});

describe('releasing the window', () => {
  it('frees it when its holder is released, so the next screen is fresh at once', async () => {
    const hash = newSubject();
    await claimWindow(store.table, TENANT, hash, screen(1, NOON), MORNING);

    await releaseWindow(store.table, TENANT, hash, 'SCR-20261201-000001');

    expect(await findWindow(store.table, TENANT, hash)).toBeUndefined();
    expect(await claimWindow(store.table, TENANT, hash, screen(2, NOON), MORNING)).toEqual({ taken: true });
  });

  it('leaves a window held by another screen alone', async () => {
    const hash = newSubject();
    await claimWindow(store.table, TENANT, hash, screen(2, NOON), MORNING);

    await releaseWindow(store.table, TENANT, hash, 'SCR-20261201-000001');

    expect((await findWindow(store.table, TENANT, hash))?.screen_id).toBe('SCR-20261201-000002');
  });
});

describe('in a transaction', () => {
  it('writes neither window when one take is refused', async () => {
    const free = newSubject();
    const held = newSubject();
    await claimWindow(store.table, TENANT, held, screen(1, NOON), MORNING);
    const heldBefore = await readItem(store.table, keys.rescreenWindow(TENANT, held));

    const refusal = await transact(store.table, [
      windowWrites.take(TENANT, free, screen(2, NOON), MORNING),
      windowWrites.take(TENANT, held, screen(2, NOON), MORNING),
    ]).catch((error: unknown) => error);

    // The window's writes carry no refusal of their own: a 409 naming the window.
    expect(refusal).toBeInstanceOf(ConflictError);
    expect((refusal as ConflictError).detail).toBe(
      'The rescreen window changed meanwhile; read it again and retry',
    );
    expect(await findWindow(store.table, TENANT, free)).toBeUndefined();
    expect(await readItem(store.table, keys.rescreenWindow(TENANT, held))).toEqual(heldBefore);
  });
});
