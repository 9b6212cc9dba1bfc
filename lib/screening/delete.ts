import { createHash } from 'node:crypto';
import { tombstoneOf } from '../audit/tombstone.ts';
import { auditedCommit, type CommitAudited } from '../audit/trail.ts';
import { ConflictError, ForbiddenError, InvalidRequestError, NotFoundError } from '../common/errors.ts';
import { isScreenId } from '../common/ids.ts';
import { logger } from '../common/log.ts';
import { DAY_MS, isoSeconds } from '../common/time.ts';
import { currentPolicy } from '../policy/policy-table.ts';
import type { Table } from '../store/table.ts';
import type { Principal } from '../tenancy/auth.ts';
import { getRetention } from '../tenancy/retention.ts';
import {
  type DeletionRule,
  parseScreenItem,
  type Removal,
  removeScreenItem,
  type ScreenItem,
  screenExists,
  screenWrites,
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
 * Deletes one screen under a rule, for the daily retention purge (lib/jobs/retention-purge.ts):
 * one conditional delete, then what a deletion leaves behind (see `afterRemoval`). The purge
 * deletes many screens in a pass, so it records each tenant's pass as one summary entry
 * (`screens.purge`, with the counts) rather than a tombstone per screen; DELETE /screens/{id}
 * (`deleteScreen`) commits each deletion with its tombstone. `refused`: the rule did not hold
 * (with the screen as it stands, undefined when there is none).
 */
export async function removeScreen(
  table: Table,
  tenantId: string,
  screenId: string,
  rule: DeletionRule,
): Promise<Removal> {
  const removal = await removeScreenItem(table, tenantId, screenId, rule);
  if (!('removed' in removal)) return removal;
  await afterRemoval(table, tenantId, screenId, removal.removed);
  return { removed: removal.removed };
}

/**
 * What a deletion leaves behind, the same for a request and the purge: the subject's row
 * recomputed and its rescreen window released. The disposition history and notes live inside the
 * screen item, so they went with it, for good.
 */
async function afterRemoval(
  table: Table,
  tenantId: string,
  screenId: string,
  removed: { subject_hash?: unknown },
): Promise<void> {
  const hash = removed.subject_hash;
  if (typeof hash !== 'string') return;
  // The subject's row of GET /clients/screened is recomputed from its remaining screens.
  await forgetSubjectScreen(table, tenantId, hash).catch((error) =>
    logger.error({ err: error, tenant: tenantId, screenId }, 'subject row not updated'),
  );
  // A deleted screen no longer holds its subject's rescreen window: the next screen is fresh.
  await releaseWindow(table, tenantId, hash, screenId);
}

/** Reads and deletes of one request, before one lands (a retry follows a change between the two). */
const DELETE_ATTEMPTS = 8;

/** The delete was refused: the screen as DynamoDB found it (undefined: gone) says why. */
class DeleteRefused extends ConflictError {
  constructor(
    screenId: string,
    readonly found: Record<string, unknown> | undefined,
  ) {
    super(`Screen ${screenId} changed while it was being deleted; send the request again`);
  }
}

/**
 * DELETE /screens/{screen_id}, recorded in the tenant's audit trail (lib/audit/trail.ts,
 * `auditedCommit`): the delete and its `done` entry, the screen's TOMBSTONE (lib/audit/
 * tombstone.ts: its risk level, last decision and sign-off, and the SHA-256 of its stored
 * content), are ONE transaction, so no screen is ever deleted without one nor a tombstone written
 * for a screen that stays. The tombstone is made from a consistent read of the screen and the
 * delete is conditional on the screen being still as read, so it describes exactly what was
 * removed; when the screen changed meanwhile (a decision landed), it is read again and the delete
 * retried. A refusal (the rule that keeps the screen) is a `refused` entry alone.
 */
export async function deleteScreen(
  table: Table,
  caller: Pick<Principal, 'tenantId' | 'userId' | 'role'>,
  screenId: string,
  now: Date = new Date(),
  reason?: string,
): Promise<{ screen_id: string; deleted: true }> {
  if (!isScreenId(screenId)) throw new NotFoundError(`Screen ${screenId} not found`);
  const read = await storedScreen(table, caller.tenantId, screenId);
  const { version, policy } = await currentPolicy(table, caller.tenantId);
  // The tenant's policy may ask a reason for deleting a decided screen (docs/policies.md); it is
  // recorded as its SHA-256, as a decision's note is, never as text.
  if (
    policy.approval.delete_decided.reason_required &&
    read &&
    lastDecisionAt(parseScreenItem(read)) &&
    !reason
  ) {
    throw new InvalidRequestError(
      `reason: tenant policy version ${version} requires a reason to delete a decided screen; send it as the query parameter reason`,
      undefined,
      [{ field: 'reason', code: 'required', message: 'required to delete a decided screen' }],
    );
  }
  const removed = await auditedCommit(
    table,
    caller.tenantId,
    {
      action: 'screen.delete',
      actor: { user_id: caller.userId, role: caller.role },
      target: { screen_id: screenId, ...clientOf(read) },
      details: {
        ...(read ? tombstoneOf(read) : { screen_id: screenId }),
        ...(reason ? { reason_sha256: createHash('sha256').update(reason).digest('hex') } : {}),
      },
    },
    (commit) =>
      deleteOnRequest(table, caller, screenId, now, {
        read,
        commit,
        policyLock: { version, days: policy.retention.decided_lock_days },
      }),
  );
  await afterRemoval(table, caller.tenantId, screenId, removed);
  return { screen_id: screenId, deleted: true };
}

const clientOf = (stored: Record<string, unknown> | undefined) =>
  typeof stored?.client_id === 'string' ? { client_id: stored.client_id } : {};

/**
 * DELETE /screens/{screen_id} (docs/api-decisions.md#the-screen-lifecycle): admins delete any
 * screen of their tenant, analysts only screens they created (403 otherwise). Under the tenant's
 * retention lock (lib/tenancy/retention.ts) a decided screen is kept until `retention_days` after
 * its last decision: 403 naming the rule and the date it becomes deletable. Undecided screens stay
 * deletable under the lock: the lock keeps decisions, and a screen nobody decided holds none.
 * Answers the screen removed, exactly as it was stored.
 */
async function deleteOnRequest(
  table: Table,
  caller: Pick<Principal, 'tenantId' | 'userId' | 'role'>,
  screenId: string,
  now: Date,
  {
    read,
    commit,
    policyLock,
  }: {
    read: Record<string, unknown> | undefined;
    commit: CommitAudited;
    policyLock: { version: number; days: number | null };
  },
): Promise<Record<string, unknown>> {
  const notFound = new NotFoundError(`Screen ${screenId} not found`);
  const retention = await getRetention(table, caller.tenantId);
  const settingsLock = retention.retention_lock ? retention.retention_days : null;
  // The longer of the retention lock (GET /settings) and the policy's lock on decided screens.
  const byPolicy = policyLock.days !== null && (settingsLock === null || policyLock.days > settingsLock);
  const lockedDays = byPolicy ? policyLock.days : settingsLock;
  const lockRule = byPolicy
    ? `Tenant policy version ${policyLock.version} locks decided screens for ${lockedDays} days after their last decision`
    : `Retention lock: the tenant keeps decided screens for ${lockedDays} days after their last decision`;
  const decidedBefore =
    lockedDays === null ? undefined : isoSeconds(new Date(now.getTime() - lockedDays * DAY_MS));
  const ownerOnly = caller.role === 'admin' ? undefined : caller.userId;
  const rule: DeletionRule = { kind: 'request', ownerOnly, decidedBefore };
  let stored = read;
  for (let attempt = 1; ; attempt += 1) {
    if (!stored) throw notFound;
    const asRead = stored;
    try {
      await commit(
        [
          screenWrites.remove(caller.tenantId, screenId, rule, {
            asRead,
            refused: (found) => new DeleteRefused(screenId, found),
          }),
        ],
        { target: clientOf(asRead), details: tombstoneOf(asRead) },
      );
      return asRead;
    } catch (error) {
      if (!(error instanceof DeleteRefused)) throw error;
      if (!error.found) throw notFound;
      const refusal = ruleRefusal(parseScreenItem(error.found), screenId, ownerOnly, {
        lockedDays,
        decidedBefore,
        lockRule,
      });
      if (refusal) throw refusal;
      // The rule holds on the screen as it stands: it changed since it was read. Read it again.
      if (attempt >= DELETE_ATTEMPTS) throw error;
      stored = await storedScreen(table, caller.tenantId, screenId);
    }
  }
}

/** Which rule keeps the screen as found (403), or undefined when none does. */
function ruleRefusal(
  found: ScreenItem,
  screenId: string,
  ownerOnly: string | undefined,
  {
    lockedDays,
    decidedBefore,
    lockRule,
  }: { lockedDays: number | null; decidedBefore: string | undefined; lockRule: string },
): ForbiddenError | undefined {
  if (ownerOnly !== undefined && found.created_by.user_id !== ownerOnly) {
    return new ForbiddenError(
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
    return new ForbiddenError(
      `${lockRule}; screen ${screenId} was last decided at ${decidedAt} and can be deleted from ${deletableFrom}`,
      'retention_locked',
    );
  }
  return undefined;
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
