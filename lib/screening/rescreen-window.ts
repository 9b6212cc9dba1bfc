import { setTimeout as sleep } from 'node:timers/promises';
import { HOUR_MS, isoSeconds } from '../common/time.ts';
import type { Matcher } from '../matcher/screen.ts';
import type { CheckType, ScreenChecks, SubjectInput } from '../matcher/types.ts';
import { applyPolicy, type PolicyBody, SERVICE_POLICY } from '../policy/policy.ts';
import type { Table } from '../store/table.ts';
import { compareWithBaseline } from './change-detection.ts';
import { policyVersionOf } from './receipt.ts';
import { applyRemembered } from './remembered-false-positives.ts';
import { findScreen, latestSubjectScreen, type ScreenItem } from './screen-table.ts';
import {
  claimWindow,
  findWindow,
  takeOverWindow,
  type WindowItem,
  type WindowScreen,
} from './window-table.ts';

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
  policy: { version: number; policy: PolicyBody } = { version: 0, policy: SERVICE_POLICY },
): CachedScreenVerdict {
  // A screen made under another version of the tenant's policy is not what a fresh screen shows.
  if (policyVersionOf(cached.receipt) !== policy.version) {
    return { stands: false, checks: matcher.screen(subject, types) };
  }
  if (cached.receipt?.snapshot.version === matcher.snapshot.version) return { stands: true };
  const checks = matcher.screen(subject, types);
  // Compared as the cached screen was made: under its policy, with the decided false positives it applied.
  const shown = applyRemembered(
    applyPolicy(checks, policy.policy, policy.version),
    cached.remembered_false_positives ?? [],
  );
  const change = compareWithBaseline(cached, { ...shown, subject: cached.subject });
  const same =
    shown.risk_level === cached.risk_level &&
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
  const indexed = await latestSubjectScreen(table, tenantId, hash);
  if (!indexed || windowEnds(indexed.screened_at, windowHours) <= at.getTime()) return undefined;
  // The index entry is only a pointer: the screen itself decides. On DynamoDB a secondary index
  // lags its table (a screen deleted a moment ago is still indexed); returning the entry would
  // hand out a screen that does not exist.
  return findScreen(table, tenantId, indexed.screen_id);
}

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
  const cutoff = isoSeconds(new Date(screen.at.getTime() - windowHours * HOUR_MS));
  for (let attempt = 0; attempt < 3; attempt++) {
    // Free, or its screen has left the window (screened_at + window <= now), or is outdated.
    const claim = await claimWindow(table, tenantId, hash, screen, cutoff, replacing);
    if (claim.taken) return undefined;
    const holder = claim.holder;
    if (!holder) continue; // released meanwhile: claim again
    // Held for this very screen id (drawn for a queued job): an earlier attempt of the same job.
    if (holder.screen_id === screen.screenId) return undefined;
    const held = await awaitScreen(table, tenantId, holder);
    if (held) return held;
    // The holder's screen does not exist and is not coming: take over from exactly that holder.
    if (await takeOverWindow(table, tenantId, hash, screen, holder.screen_id)) return undefined;
  }
  throw new Error('rescreen window contended: no holder after 3 attempts');
}

/** The holder's screen, waiting while its claim is young enough for the screen to be in flight. */
async function awaitScreen(
  table: Table,
  tenantId: string,
  holder: WindowItem,
): Promise<ScreenItem | undefined> {
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    const screen = await findScreen(table, tenantId, holder.screen_id);
    if (screen) return screen;
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
    const window = await findWindow(table, tenantId, hash);
    if (window && windowEnds(window.screened_at, windowHours) > at.getTime())
      return awaitScreen(table, tenantId, window);
    if (Date.now() - started >= settleMs) return undefined;
  }
}
