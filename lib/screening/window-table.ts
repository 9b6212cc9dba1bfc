import * as v from 'valibot';
import { isoSeconds } from '../common/time.ts';
import { keys } from '../store/schema.ts';
import { parseItem, readItem, type Table } from '../store/table.ts';
import type { TableWrite } from '../store/write.ts';
import { sendWriteIf, trySendWrite } from '../store/write.ts';

/**
 * The rescreen-window item (keys.rescreenWindow, `WINDOW#<subject hash>`): the screen that holds a
 * subject's rescreen window (lib/screening/rescreen-window.ts). A fresh screen takes it with one
 * conditional write, a forced screen moves it forward, deleting the screen that holds it releases
 * it; each a named write here.
 */
export const WindowItemSchema = v.object({
  entity: v.literal('rescreen-window'),
  screen_id: v.string(),
  screened_at: v.string(),
  /** Wall-clock time of the claim (not the screen time, which tests may set). */
  claimed_at_ms: v.number(),
});
export type WindowItem = v.InferOutput<typeof WindowItemSchema>;

/** The screen taking the window: its id and time. */
export interface WindowScreen {
  screenId: string;
  at: Date;
}

const SET_WINDOW = 'SET entity = :entity, screen_id = :screen, screened_at = :at, claimed_at_ms = :claimed';

function windowValues(screen: WindowScreen) {
  return {
    ':entity': 'rescreen-window',
    ':screen': screen.screenId,
    ':at': isoSeconds(screen.at),
    ':claimed': Date.now(),
  };
}

/** The window's writes, as values (lib/store/write.ts). */
export const windowWrites = {
  /**
   * Takes the window for `screen`: free, or its screen has left the window (screened at or
   * before `cutoff`), or (with `replacing`) its screen is that outdated one or numbered before it
   * (screen ids sort in the order they were numbered: SCR-YYYYMMDD-NNNNNN, per tenant).
   */
  take(tenantId: string, hash: string, screen: WindowScreen, cutoff: string, replacing?: string): TableWrite {
    const outdated = replacing === undefined ? '' : ' OR screen_id <= :replacing';
    return {
      Update: {
        Key: keys.rescreenWindow(tenantId, hash),
        UpdateExpression: SET_WINDOW,
        ConditionExpression: `attribute_not_exists(pk) OR screened_at <= :cutoff${outdated}`,
        ExpressionAttributeValues: {
          ...windowValues(screen),
          ':cutoff': cutoff,
          ...(replacing === undefined ? {} : { ':replacing': replacing }),
        },
      },
      what: 'rescreen window',
    };
  },

  /** Takes the window over from exactly the holder `holderId` (whose screen never appeared). */
  takeOver(tenantId: string, hash: string, screen: WindowScreen, holderId: string): TableWrite {
    return {
      Update: {
        Key: keys.rescreenWindow(tenantId, hash),
        UpdateExpression: SET_WINDOW,
        ConditionExpression: 'screen_id = :holder',
        ExpressionAttributeValues: { ...windowValues(screen), ':holder': holderId },
      },
      what: 'rescreen window',
    };
  },

  /** Points the window at a forced screen, unless it holds a later one (which stays). */
  moveForward(tenantId: string, hash: string, screen: WindowScreen): TableWrite {
    return {
      Update: {
        Key: keys.rescreenWindow(tenantId, hash),
        UpdateExpression: SET_WINDOW,
        ConditionExpression: 'attribute_not_exists(pk) OR screened_at <= :at',
        ExpressionAttributeValues: windowValues(screen),
      },
      what: 'rescreen window',
    };
  },

  /** Frees the window held by this screen; a window held by another screen is left alone. */
  release(tenantId: string, hash: string, screenId: string): TableWrite {
    return {
      Delete: {
        Key: keys.rescreenWindow(tenantId, hash),
        ConditionExpression: 'screen_id = :screen',
        ExpressionAttributeValues: { ':screen': screenId },
      },
      what: 'rescreen window',
    };
  },
};

/**
 * Sends windowWrites.take: `taken`, or refused with the window's holder as found (undefined: the
 * window was released meanwhile).
 */
export async function claimWindow(
  table: Table,
  ...args: Parameters<typeof windowWrites.take>
): Promise<{ taken: true } | { taken: false; holder: WindowItem | undefined }> {
  const outcome = await trySendWrite(table, windowWrites.take(...args));
  if (outcome.written) return { taken: true };
  return { taken: false, holder: outcome.found ? parseItem(WindowItemSchema, outcome.found) : undefined };
}

/** Sends windowWrites.takeOver; false when another screen took the window meanwhile. */
export function takeOverWindow(
  table: Table,
  ...args: Parameters<typeof windowWrites.takeOver>
): Promise<boolean> {
  return sendWriteIf(table, windowWrites.takeOver(...args));
}

/**
 * Points the window at a forced screen (already stored), unless it holds a later one: a forced
 * screen is what a repeat returns from then on.
 */
export async function pointWindowAt(
  table: Table,
  tenantId: string,
  hash: string,
  screen: WindowScreen,
): Promise<void> {
  // Refused when the window already holds a later screen, which stays.
  await sendWriteIf(table, windowWrites.moveForward(tenantId, hash, screen));
}

/**
 * Frees the window held by this screen (it was deleted, or never stored), so the next screen of
 * the subject is fresh at once. A window held by another screen is left alone.
 */
export async function releaseWindow(
  table: Table,
  tenantId: string,
  hash: string,
  screenId: string,
): Promise<void> {
  await sendWriteIf(table, windowWrites.release(tenantId, hash, screenId));
}

/** The window item of the subject (a consistent read), if any. */
export async function findWindow(
  table: Table,
  tenantId: string,
  hash: string,
): Promise<WindowItem | undefined> {
  const item = await readItem(table, keys.rescreenWindow(tenantId, hash));
  return item ? parseItem(WindowItemSchema, item) : undefined;
}
