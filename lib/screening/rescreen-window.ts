import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { HOUR_MS, isoSeconds } from '../common/time.ts';
import type { Matcher } from '../matcher/screen.ts';
import type { CheckType, ScreenChecks, SubjectInput } from '../matcher/types.ts';
import { INDEXES, keys } from '../store/schema.ts';
import { isConditionalCheckFailed, itemOfConditionFailure, type Table, writeIf } from '../store/table.ts';
import { compareWithBaseline } from './change-detection.ts';
import { parseScreenItem, type ScreenItem } from './screen-record.ts';

/**
 * The rescreen window (docs/api-decisions.md#rescreen-window): at most one fresh screen of a subject per tenant per window.
 *
 * Two pieces. Every screen item carries its subject hash as a subject-screens index key, so the
 * subject's latest screen is one query away (the common repeat: nothing written). And one
 * window item per subject (`WINDOW#<hash>`) names the screen that holds the window: a fresh
 * screen takes it with one conditional write, which only succeeds when the window holds no
 * screen or its screen has left the window. Of concurrent identical screens exactly one wins;
 * the others wait for the winner's screen (stored right after its claim) and return it as
 * `skipped`. The window is judged from the screen time and the window configured now, so
 * changing RESCREEN_WINDOW_HOURS takes effect at once.
 */
export function windowEnds(screenedAt: string, windowHours: number): number {
  return Date.parse(screenedAt) + windowHours * HOUR_MS;
}

/** Whether a cached screen may answer a repeat; when not, the checks a fresh screen stores. */
export type CachedScreenVerdict = { stands: true } | { stands: false; checks: ScreenChecks };

/**
 * The rescreen window respects list versions: a screen in the window answers a repeat only when
 * it was taken on the lists in force (the matcher's snapshot version), or when the subject run
 * again on the lists in force gives the same result: the same matches (list and entry), each
 * listing saying the same (change-detection.ts's fingerprint), and the same risk level. So after
 * a sync, a subject the change could match gets a fresh screen, decided exactly rather than
 * guessed from names, and everyone else keeps the cached one. A screen stored before receipts
 * were recorded counts as taken on other lists. The re-run is the matcher's pure, in-memory
 * screen (a fraction of a millisecond), and only repeats across a list change pay it.
 */
export function judgeCachedScreen(
  cached: ScreenItem,
  matcher: Matcher,
  subject: SubjectInput,
  types: readonly CheckType[],
): CachedScreenVerdict {
  if (cached.receipt?.snapshot.version === matcher.snapshot.version) return { stands: true };
  const checks = matcher.screen(subject, types);
  const change = compareWithBaseline(cached, { ...checks, subject: cached.subject });
  const same =
    checks.risk_level === cached.risk_level &&
    change.matches_added.length === 0 &&
    change.matches_removed.length === 0 &&
    change.identifying.length === 0 &&
    change.cosmetic.length === 0;
  return same ? { stands: true } : { stands: false, checks };
}

/**
 * How long a claim whose screen does not exist is believed to be in flight: the winner stores
 * its screen one write after its claim. Past this, the screen was never stored (its writer
 * failed or died) or was deleted, and the next fresh screen takes the window over.
 */
export const WINDOW_CLAIM_PATIENCE_MS = 2_000;

/** The subject's latest screen if it is still inside the window (deleted screens are gone from the index). */
export async function findRecentScreen(
  table: Table,
  tenantId: string,
  hash: string,
  windowHours: number,
  at: Date,
): Promise<ScreenItem | undefined> {
  if (windowHours <= 0) return undefined;
  const { Items = [] } = await table.doc.send(
    new QueryCommand({
      TableName: table.name,
      IndexName: INDEXES.subjectScreens.name,
      KeyConditionExpression: `${INDEXES.subjectScreens.partitionKey} = :pk`,
      ExpressionAttributeValues: { ':pk': keys.subjectIndex(tenantId, hash) },
      ScanIndexForward: false,
      Limit: 1,
    }),
  );
  const indexed = Items[0] ? parseScreenItem(Items[0]) : undefined;
  if (!indexed || windowEnds(indexed.screened_at, windowHours) <= at.getTime()) return undefined;
  // The index entry is only a pointer: the screen itself decides. On DynamoDB a secondary index
  // lags its table (a screen deleted a moment ago is still indexed), and dynalite writes the two
  // separately, so a process killed between them can leave an entry with no screen; returning
  // it would hand out a screen that does not exist.
  const { Item } = await table.doc.send(
    new GetCommand({
      TableName: table.name,
      Key: keys.screen(tenantId, indexed.screen_id),
      ConsistentRead: true,
    }),
  );
  return Item ? parseScreenItem(Item) : undefined;
}

interface WindowHolder {
  screen_id: string;
  /** Wall-clock time of the claim (not the screen time, which tests may set). */
  claimed_at_ms: number;
}

/** The screen taking the window: its id and time. */
export interface WindowScreen {
  screenId: string;
  at: Date;
}

function windowValues(screen: WindowScreen) {
  return {
    ':entity': 'rescreen-window',
    ':screen': screen.screenId,
    ':at': isoSeconds(screen.at),
    ':claimed': Date.now(),
  };
}
const SET_WINDOW = 'SET entity = :entity, screen_id = :screen, screened_at = :at, claimed_at_ms = :claimed';

/**
 * Takes the subject's window for a fresh screen, before the screen is stored. Resolves to
 * undefined when this screen holds the window (store it now), or to the screen that holds it
 * (return that one as `skipped`). A holder whose screen never appears within
 * WINDOW_CLAIM_PATIENCE_MS of its claim is taken over.
 *
 * `replacing` names a screen in the window that the lists in force no longer bear out
 * (judgeCachedScreen): the window is taken from it, or from any screen numbered before it, still
 * in one conditional write, so of concurrent repeats after a list change exactly one screens
 * afresh and the others get its screen.
 */
export async function takeWindow(
  table: Table,
  tenantId: string,
  hash: string,
  screen: WindowScreen,
  windowHours: number,
  replacing?: string,
): Promise<ScreenItem | undefined> {
  const key = keys.rescreenWindow(tenantId, hash);
  const cutoff = isoSeconds(new Date(screen.at.getTime() - windowHours * HOUR_MS));
  // Screen ids sort in the order they were numbered (SCR-YYYYMMDD-NNNNNN, per tenant).
  const outdated = replacing === undefined ? '' : ' OR screen_id <= :replacing';
  for (let attempt = 0; attempt < 3; attempt++) {
    let holder: WindowHolder;
    try {
      await table.doc.send(
        new UpdateCommand({
          TableName: table.name,
          Key: key,
          UpdateExpression: SET_WINDOW,
          // Free, or its screen has left the window (screened_at + window <= now), or is outdated.
          ConditionExpression: `attribute_not_exists(pk) OR screened_at <= :cutoff${outdated}`,
          ExpressionAttributeValues: {
            ...windowValues(screen),
            ':cutoff': cutoff,
            ...(replacing === undefined ? {} : { ':replacing': replacing }),
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return undefined;
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      const found = await itemOfConditionFailure(table, error, key);
      if (!found) continue; // released meanwhile: claim again
      holder = found as unknown as WindowHolder;
      // Held for this very screen id (drawn for a queued job): an earlier attempt of the same job.
      if (holder.screen_id === screen.screenId) return undefined;
    }
    const held = await awaitScreen(table, tenantId, holder);
    if (held) return held;
    // The holder's screen does not exist and is not coming: take over from exactly that holder.
    const tookOver = await writeIf(
      table,
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: SET_WINDOW,
        ConditionExpression: 'screen_id = :holder',
        ExpressionAttributeValues: { ...windowValues(screen), ':holder': holder.screen_id },
      }),
    );
    if (tookOver) return undefined;
  }
  throw new Error('rescreen window contended: no holder after 3 attempts');
}

/** The holder's screen, waiting while its claim is young enough for the screen to be in flight. */
async function awaitScreen(
  table: Table,
  tenantId: string,
  holder: WindowHolder,
): Promise<ScreenItem | undefined> {
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    const { Item } = await table.doc.send(
      new GetCommand({
        TableName: table.name,
        Key: keys.screen(tenantId, holder.screen_id),
        ConsistentRead: true,
      }),
    );
    if (Item) return parseScreenItem(Item);
    const waited = Date.now() - holder.claimed_at_ms;
    if (waited >= WINDOW_CLAIM_PATIENCE_MS) return undefined;
    await sleep(Math.min(delay, WINDOW_CLAIM_PATIENCE_MS - waited));
  }
}

/**
 * The screen holding the subject's window, if any, waiting for it while its claim is young (a
 * concurrent identical screen being stored). A screen numbered just before this call takes the
 * window one write later, so an empty window is looked at a few times over `settleMs`.
 */
export async function windowScreen(
  table: Table,
  tenantId: string,
  hash: string,
  windowHours: number,
  at: Date,
  settleMs = 100,
): Promise<ScreenItem | undefined> {
  for (const started = Date.now(); ; await sleep(20)) {
    const { Item } = await table.doc.send(
      new GetCommand({
        TableName: table.name,
        Key: keys.rescreenWindow(tenantId, hash),
        ConsistentRead: true,
      }),
    );
    if (Item && windowEnds(Item.screened_at as string, windowHours) > at.getTime())
      return awaitScreen(table, tenantId, Item as unknown as WindowHolder);
    if (Date.now() - started >= settleMs) return undefined;
  }
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
  await writeIf(
    table,
    new UpdateCommand({
      TableName: table.name,
      Key: keys.rescreenWindow(tenantId, hash),
      UpdateExpression: SET_WINDOW,
      ConditionExpression: 'attribute_not_exists(pk) OR screened_at <= :at',
      ExpressionAttributeValues: windowValues(screen),
    }),
  );
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
  await writeIf(
    table,
    new DeleteCommand({
      TableName: table.name,
      Key: keys.rescreenWindow(tenantId, hash),
      ConditionExpression: 'screen_id = :screen',
      ExpressionAttributeValues: { ':screen': screenId },
    }),
  );
}
