import { tombstoneOf } from '../audit/tombstone.ts';
import { audited } from '../audit/trail.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../common/errors.ts';
import { isScreenId } from '../common/ids.ts';
import { logger } from '../common/log.ts';
import { DAY_MS, isoSeconds } from '../common/time.ts';
import type { Table } from '../store/table.ts';
import type { Principal } from '../tenancy/auth.ts';
import { getRetention } from '../tenancy/retention.ts';
import {
  type DeletionRule,
  type Removal,
  removeScreenItem,
  type ScreenItem,
  screenExists,
  storedScreen,
} from './screen-table.ts';
import { forgetSubjectScreen } from './screened-subjects.ts';
import { releaseWindow } from './window-table.ts';

/** The last decision on a screen (its decision or the sign-off of it), or undefined while undecided. */
export function lastDecisionAt(item: {
  disposition?: { at: string };
  approval?: { at: string };
}): string | undefined {
  const times = [item.disposition?.at, item.approval?.at].filter((at): at is string => at !== undefined);
  return times.length === 0 ? undefined : times.sort().at(-1);
}

/**
 * Deletes one screen under a rule: the one way a screen is deleted, by a request or by the purge,
 * so whatever a deletion must leave behind (its subject row recomputed, its rescreen window
 * released, its record in the audit trail) happens the same for both. The disposition history and
 * notes live inside the screen item, so they go with it, for good. `refused`: the rule did not
 * hold (with the screen as it stands, undefined when there is none).
 */
export async function removeScreen(
  table: Table,
  tenantId: string,
  screenId: string,
  rule: DeletionRule,
): Promise<Removal> {
  const removal = await removeScreenItem(table, tenantId, screenId, rule);
  if (!('removed' in removal)) return removal;
  const deleted = removal.removed;
  const hash = deleted.subject_hash;
  if (typeof hash === 'string') {
    // The subject's row of GET /clients/screened is recomputed from its remaining screens.
    await forgetSubjectScreen(table, tenantId, hash).catch((error) =>
      logger.error({ err: error, tenant: tenantId, screenId }, 'subject row not updated'),
    );
    // A deleted screen no longer holds its subject's rescreen window: the next screen is fresh.
    await releaseWindow(table, tenantId, hash, screenId);
  }
  return { removed: deleted };
}

/**
 * DELETE /screens/{screen_id}, recorded in the tenant's audit trail (lib/audit/trail.ts,
 * write-ahead): the `started` entry is the screen's TOMBSTONE (lib/audit/tombstone.ts: its risk
 * level, last decision and sign-off, and the SHA-256 of its stored content), written before the
 * item is deleted, so no screen is ever deleted without one. The `done` entry carries the hash of
 * what the delete actually removed (the same, unless a decision landed in between); `refused` the
 * rule that kept it.
 */
export async function deleteScreen(
  table: Table,
  caller: Pick<Principal, 'tenantId' | 'userId' | 'role'>,
  screenId: string,
  now: Date = new Date(),
): Promise<{ screen_id: string; deleted: true }> {
  if (!isScreenId(screenId)) return (await deleteOnRequest(table, caller, screenId, now)).result;
  const stored = await storedScreen(table, caller.tenantId, screenId);
  const tombstone = stored ? tombstoneOf(stored) : { screen_id: screenId };
  const { result } = await audited(
    table,
    caller.tenantId,
    {
      action: 'screen.delete',
      actor: { user_id: caller.userId, role: caller.role },
      target: {
        screen_id: screenId,
        ...(typeof stored?.client_id === 'string' ? { client_id: stored.client_id } : {}),
      },
      details: tombstone,
      done: ({ removed }) => {
        const gone = tombstoneOf(removed as unknown as Record<string, unknown>);
        // A decision between the read and the delete: the done entry describes what was removed.
        return gone.content_sha256 === tombstone.content_sha256
          ? { details: { content_sha256: gone.content_sha256 } }
          : { details: gone };
      },
    },
    () => deleteOnRequest(table, caller, screenId, now),
  );
  return result;
}

/**
 * DELETE /screens/{screen_id} (docs/api-decisions.md#the-screen-lifecycle): admins delete any
 * screen of their tenant, analysts only screens they created (403 otherwise). Under the tenant's
 * retention lock (lib/tenancy/retention.ts) a decided screen is kept until `retention_days` after
 * its last decision: 403 naming the rule and the date it becomes deletable. Undecided screens stay
 * deletable under the lock: the lock keeps decisions, and a screen nobody decided holds none.
 */
async function deleteOnRequest(
  table: Table,
  caller: Pick<Principal, 'tenantId' | 'userId' | 'role'>,
  screenId: string,
  now: Date,
): Promise<{ result: { screen_id: string; deleted: true }; removed: ScreenItem }> {
  const notFound = new NotFoundError(`Screen ${screenId} not found`);
  if (!isScreenId(screenId)) throw notFound;
  const retention = await getRetention(table, caller.tenantId);
  const lockedDays = retention.retention_lock ? retention.retention_days : null;
  const decidedBefore =
    lockedDays === null ? undefined : isoSeconds(new Date(now.getTime() - lockedDays * DAY_MS));
  const ownerOnly = caller.role === 'admin' ? undefined : caller.userId;
  const removal = await removeScreen(table, caller.tenantId, screenId, {
    kind: 'request',
    ownerOnly,
    decidedBefore,
  });
  if ('removed' in removal)
    return { result: { screen_id: screenId, deleted: true }, removed: removal.removed };

  const found = removal.refused;
  if (!found) throw notFound;
  if (ownerOnly !== undefined && found.created_by.user_id !== ownerOnly) {
    throw new ForbiddenError(
      `Analysts may delete only screens they created; screen ${screenId} was created by ${found.created_by.user_id}`,
    );
  }
  const decidedAt = lastDecisionAt(found);
  if (
    lockedDays !== null &&
    decidedAt !== undefined &&
    decidedBefore !== undefined &&
    decidedAt > decidedBefore
  ) {
    const deletableFrom = isoSeconds(new Date(Date.parse(decidedAt) + lockedDays * DAY_MS));
    throw new ForbiddenError(
      `Retention lock: the tenant keeps decided screens for ${lockedDays} days after their last decision; screen ${screenId} was last decided at ${decidedAt} and can be deleted from ${deletableFrom}`,
      'retention_locked',
    );
  }
  // The screen changed between the rule's write and this read (e.g. decided just now): ask again.
  throw new ConflictError(`Screen ${screenId} changed while it was being deleted; send the request again`);
}

/**
 * The replay rule of `Idempotency-Key` (lib/http/idempotency.ts `stillHeld`): a stored response
 * that returned this screen is replayed only while the screen exists. Undefined while it does,
 * else the 410's detail. One consistent read of the key alone (never the screen's content).
 */
export async function deletedScreenDetail(
  table: Table,
  tenantId: string,
  screenId: string,
): Promise<string | undefined> {
  if (await screenExists(table, tenantId, screenId)) return undefined;
  return `Screen ${screenId}, which the first request with this Idempotency-Key returned, has been deleted since; its response is not replayed and nothing was screened again. Send a new Idempotency-Key to screen the subject afresh`;
}
