import type { Table } from '../store/table.ts';
import { keyMatchesHash, parseApiKey } from './api-keys.ts';
import { getUserAndTenant } from './user-table.ts';

/**
 * Work that outlives the request that started it (an open export, a batch stream, a batch's
 * queued subjects) is done in someone's name; when that person loses access part way, the work
 * stops (issue 35, item 5: "disabled means stopped"). A request's key is checked once, when it
 * arrives (lib/tenancy/auth.ts); these re-read the user and tenant as the work goes on.
 */

/** Why a user no longer may work in the tenant, in words for the final record of their work. */
export const ACCESS_ENDED = {
  disabled: 'the user was disabled',
  missing: 'the user no longer exists',
  tenantMissing: 'the tenant no longer exists',
  keyReplaced: "the user's API key was rotated or revoked",
} as const;
export type AccessEnded = (typeof ACCESS_ENDED)[keyof typeof ACCESS_ENDED];

/**
 * Why the presented key no longer works, or undefined while it does: one consistent read of the
 * user and the tenant (the same read authentication makes).
 */
export async function whyKeyStopped(table: Table, apiKey: string): Promise<AccessEnded | undefined> {
  const presented = apiKey.trim();
  const ids = parseApiKey(presented);
  if (!ids) return ACCESS_ENDED.keyReplaced;
  const { user, tenant } = await getUserAndTenant(table, ids.tenantId, ids.userId);
  if (!tenant) return ACCESS_ENDED.tenantMissing;
  if (!user) return ACCESS_ENDED.missing;
  if (user.status === 'disabled') return ACCESS_ENDED.disabled;
  if (!user.key_hash || !keyMatchesHash(presented, user.key_hash)) return ACCESS_ENDED.keyReplaced;
  return undefined;
}

/**
 * Why the user can no longer work in the tenant, or undefined while they can. For work that was
 * queued in their name (a batch, a rescreen run) and no longer holds a key: a rotated key does
 * not stop it, a disabled or removed user does.
 */
export async function whyUserStopped(
  table: Table,
  tenantId: string,
  userId: string,
): Promise<AccessEnded | undefined> {
  const { user, tenant } = await getUserAndTenant(table, tenantId, userId);
  if (!tenant) return ACCESS_ENDED.tenantMissing;
  if (!user) return ACCESS_ENDED.missing;
  return user.status === 'disabled' ? ACCESS_ENDED.disabled : undefined;
}

/** How often open work re-reads its user at the most: exports and streams end within this (plus a page). */
export const ACCESS_RECHECK_MS = 2_000;

/**
 * A check an open export or stream calls as it goes (before every page it reads): it re-reads the
 * key's user at most every `everyMs`, and once access has ended it keeps answering why, without
 * reading again.
 */
export function keyWatch(
  table: Table,
  apiKey: string,
  everyMs = ACCESS_RECHECK_MS,
): () => Promise<AccessEnded | undefined> {
  let checkedAt = Date.now();
  let ended: AccessEnded | undefined;
  return async () => {
    if (ended || Date.now() - checkedAt < everyMs) return ended;
    ended = await whyKeyStopped(table, apiKey);
    checkedAt = Date.now();
    return ended;
  };
}
