import { sha256Hex } from '../audit/chain.ts';
import { audited } from '../audit/trail.ts';
import { ConflictError, ForbiddenError, InvalidRequestError, NotFoundError } from '../common/errors.ts';
import { isScreenId } from '../common/ids.ts';
import { isoSeconds } from '../common/time.ts';
import { outboxEvent } from '../outbox/outbox.ts';
import type { Table } from '../store/table.ts';
import type { TableWrite } from '../store/write.ts';
import type { Principal } from '../tenancy/auth.ts';
import { sharedCredential } from '../tenancy/key-lineage.ts';
import { getUser } from '../tenancy/tenants.ts';
import type { DisposeRequest } from './request.ts';
import { currentDisposition, historyView } from './screen-record.ts';
import {
  type ApprovalRecord,
  type DecisionRecord,
  decideScreen,
  decisionInForce,
  findScreen,
  HISTORY_BYTES_LIMIT,
  parseScreenItem,
  type ScreenItem,
  screenWrites,
} from './screen-table.ts';
import { noteScreenDecision } from './screened-subjects.ts';
import type { ScreenHistory } from './screens-read.ts';

type Caller = Pick<Principal, 'tenantId' | 'userId' | 'role' | 'keyLineage'>;

/** A follow-up run once a decision is written (lib/jobs/dispose-screen.ts passes monitoring's). */
export type AfterDecision = (table: Table, decided: ScreenItem, at: Date) => Promise<void>;

/**
 * POST /screens/{screen_id}/dispose, recorded in the tenant's audit trail (lib/audit/trail.ts,
 * write-ahead): a `started` entry naming the screen, the action (a disposition, an override or an
 * approval), what was asked (the note only as its SHA-256) and the decision in force before it;
 * then `done` with the decision version it produced, or `refused` with the refusal's detail.
 * The rules themselves are `recordDecision`'s, below.
 */
export async function disposeScreen(
  table: Table,
  caller: Caller,
  screenId: string,
  request: DisposeRequest,
  at: Date = new Date(),
  afterDecision?: AfterDecision,
): Promise<ScreenHistory> {
  if (!isScreenId(screenId)) return recordDecision(table, caller, screenId, request, at, afterDecision);
  const before = await decisionInForce(table, caller.tenantId, screenId);
  return audited(
    table,
    caller.tenantId,
    {
      action:
        request.disposition === 'approved'
          ? 'screen.approve'
          : request.override
            ? 'screen.override'
            : 'screen.dispose',
      actor: { user_id: caller.userId, role: caller.role },
      target: { screen_id: screenId },
      details: {
        disposition: request.disposition,
        override: request.override === true,
        approval_requested: request.approval_requested === true,
        approves_version: request.approves_version ?? null,
        note_sha256: request.note ? sha256Hex(request.note) : null,
        risk_level: before?.risk_level ?? null,
        in_force_before: before?.disposition?.disposition ?? null,
        in_force_version_before: before?.decision_version ?? null,
      },
      done: (result) => ({
        details: {
          version: result.history[result.history.length - 1]?.version ?? null,
          in_force: result.disposition?.disposition ?? null,
          in_force_version: result.disposition?.decision_version ?? null,
          awaiting_approval: result.disposition?.awaiting_approval ?? false,
        },
      }),
    },
    () => recordDecision(table, caller, screenId, request, at, afterDecision),
  );
}

/**
 * POST /screens/{screen_id}/dispose: the state table and the sign-off rules. Each rule is one
 * conditional UpdateItem on the screen item (history appended with list_append in the same
 * write), so two concurrent decisions on a pending screen cannot both land: one wins, the other
 * gets 409. When a condition fails, the item DynamoDB found (ALL_OLD) says which status applies.
 *
 * - `approved` needs the admin role (403 whatever the state, checked first) and signs off one
 *   decision version (README, "A sign-off names what it approves"):
 *   - with `approves_version`, that one: 409 when it is no longer the decision in force (a
 *     decision replaced while the admin reviewed it);
 *   - without it, the decision awaiting approval, only where that is unambiguous (it was recorded
 *     with `approval_requested` and replaced no earlier decision): otherwise 409 naming the
 *     `approves_version` to send. The version is resolved from a consistent read; the write then
 *     binds to it exactly as if the admin had named it.
 *   409 on a pending or already-approved screen. 403 (four eyes) when the admin made the decision,
 *   or when either of the two could have held the other's key (lib/tenancy/key-lineage.ts).
 * - Any other value on a pending screen records it; on a screen with a disposition it is a 409
 *   naming the disposition and its author, unless `override: true`, which replaces it (and any
 *   sign-off of it); both stay in the history.
 * - `approval_requested: true` marks the disposition as awaiting an admin's sign-off.
 * - The history is bounded by HISTORY_BYTES_LIMIT: past it, 409 (screen the subject afresh).
 * - Every entry records `author_key_lineage`: who besides the author could hold the key it was
 *   made with, so a later sign-off is judged by the key the decision was made with.
 *
 * The same write keeps the version counters: `history_count` (entries so far; SET expressions
 * read the item as it was, so the new decision's version is the old count plus one) and
 * `history_bytes`.
 *
 * `afterDecision` runs once the decision is written: a follow-up of the decision, never part of
 * it. The route passes monitoring's (lib/jobs/dispose-screen.ts), so on a client's screen a
 * settled decision reaches the client's current screen (lib/monitoring/settled-decisions.ts).
 *
 * Returns the screen's disposition in force and its full history, oldest first.
 */
async function recordDecision(
  table: Table,
  caller: Caller,
  screenId: string,
  request: DisposeRequest,
  at: Date = new Date(),
  afterDecision?: AfterDecision,
): Promise<ScreenHistory> {
  const approving = request.disposition === 'approved';
  if (approving) {
    if (caller.role !== 'admin') {
      throw new ForbiddenError(
        `Only an admin can give the approved disposition (a sign-off); your role is ${caller.role}`,
      );
    }
    if (request.approval_requested) {
      throw new InvalidRequestError(
        'approval_requested: cannot be set on an approval; an approval is the sign-off',
      );
    }
  } else if (request.approves_version !== undefined) {
    throw new InvalidRequestError('approves_version: only goes with the "approved" disposition');
  }
  const notFound = new NotFoundError(`Screen ${screenId} not found`);
  if (!isScreenId(screenId)) throw notFound;

  // An approval binds to one decision version, named or resolved (and checked) here.
  const approvesVersion = approving
    ? await approvalTarget(table, caller, screenId, request, notFound)
    : undefined;

  const author = { user_id: caller.userId, role: caller.role };
  const authorKeyLineage = [...(caller.keyLineage ?? [])];
  const entry: DecisionRecord = {
    disposition: request.disposition,
    note: request.note ?? null,
    author,
    author_key_lineage: authorKeyLineage,
    at: isoSeconds(at),
    override: !approving && request.override === true,
    approval_requested: request.approval_requested === true,
    ...(approving ? { approves_version: approvesVersion } : {}),
  };
  // When a condition fails, the item DynamoDB found (ALL_OLD) says which status applies.
  const refused = (stored: Record<string, unknown> | undefined) =>
    stored ? explainRefusal(parseScreenItem(stored), request, caller, approvesVersion) : notFound;

  let write: TableWrite;
  if (approvesVersion !== undefined) {
    const approval: ApprovalRecord = {
      author,
      author_key_lineage: authorKeyLineage,
      at: entry.at,
      note: entry.note,
      approves_version: approvesVersion,
    };
    const approved = outboxEvent(
      'screen.approved',
      caller.tenantId,
      {
        screen_id: screenId,
        approves_version: approvesVersion ?? null,
        approved_by: caller.userId,
        approved_at: entry.at,
      },
      at,
    );
    write = screenWrites.approve(caller.tenantId, screenId, approval, entry, {
      approver: caller.userId,
      version: approvesVersion,
      events: [approved],
      refused,
    });
  } else {
    // A decision that asks for an admin's sign-off is announced with it (the approvers' queue).
    const awaiting = request.approval_requested
      ? [
          outboxEvent(
            'screen.decision_awaiting_approval',
            caller.tenantId,
            {
              screen_id: screenId,
              disposition: request.disposition,
              decided_by: caller.userId,
              decided_at: entry.at,
            },
            at,
          ),
        ]
      : [];
    write = screenWrites.recordDecision(caller.tenantId, screenId, entry, {
      override: request.override === true,
      events: awaiting,
      refused,
    });
  }
  const item = await decideScreen(table, write);
  await noteScreenDecision(table, item, at);
  await afterDecision?.(table, item, at);
  return {
    screen_id: item.screen_id,
    disposition: currentDisposition(item),
    history: historyView(item.history),
  };
}

/**
 * The decision version an approval signs off: the one named, or, without `approves_version`, the
 * decision awaiting approval where that is unambiguous. Read consistently before the write, so a
 * refusal (stale version, nothing awaiting, four eyes) is explained without writing; the write's
 * condition then re-checks what may have changed since.
 */
async function approvalTarget(
  table: Table,
  caller: Caller,
  screenId: string,
  request: DisposeRequest,
  notFound: NotFoundError,
): Promise<number> {
  const found = await findScreen(table, caller.tenantId, screenId);
  if (!found) throw notFound;
  const version = request.approves_version ?? versionAwaitingApproval(found);
  const author = found.disposition?.author;
  // The author's current key too: who could act as them now (a decision made before lineages were
  // recorded has no lineage of its own).
  const authorUser =
    author && author.role !== 'system' ? await getUser(table, caller.tenantId, author.user_id) : undefined;
  const refusal = approvalRefusal(found, request, caller, version, authorUser?.key_lineage);
  if (refusal) throw refusal;
  return version;
}

/**
 * Without `approves_version`, the decision an approval signs off is the one awaiting approval,
 * and only when nobody could have reviewed another: it was recorded with `approval_requested`,
 * and no earlier decision of the screen was replaced by it (an admin reading the earlier one and
 * approving after the override would otherwise sign off what they never saw). Anything else is a
 * 409 whose detail names the `approves_version` to send.
 */
function versionAwaitingApproval(found: ScreenItem): number {
  const decision = found.disposition;
  const version = found.decision_version;
  if (!decision || found.approval) return version ?? 0; // approvalRefusal names pending / approved
  const what = `${decision.disposition} (decision_version ${version ?? 'unknown'}), recorded by ${decision.author.user_id} (${decision.author.role}) at ${decision.at}`;
  const send = version
    ? `review it and send {"disposition":"approved","approves_version":${version}} to sign it off`
    : 'it was recorded before decisions were versioned; record it again to sign it off';
  if (!decision.approval_requested) {
    throw new ConflictError(
      `Screen ${found.screen_id}: nothing awaits approval: the decision in force, ${what}, was recorded without approval_requested. To sign it off anyway, ${send}`,
      currentDisposition(found),
    );
  }
  if (!version) {
    throw new ConflictError(
      `Screen ${found.screen_id}: the decision in force, ${what}, cannot be approved: ${send}`,
    );
  }
  const earlier = (found.history ?? [])
    .slice(0, version - 1)
    .filter((entry) => entry.disposition !== 'approved' && entry.disposition !== 'not_carried');
  if (earlier.length > 0) {
    const replaced = earlier.at(-1);
    throw new ConflictError(
      `Screen ${found.screen_id}: the decision awaiting approval, ${what}, replaced an earlier decision${replaced ? ` (${replaced.disposition}, by ${replaced.author.user_id})` : ''}, so an approval without approves_version could sign off a decision other than the one you reviewed; ${send}`,
      currentDisposition(found),
    );
  }
  return version;
}

/** Which rule refused the write, judged from the item as DynamoDB found it. */
function explainRefusal(
  found: ScreenItem,
  request: DisposeRequest,
  caller: Caller,
  approvesVersion: number | undefined,
): Error {
  if (request.disposition === 'approved') {
    return approvalRefusal(found, request, caller, approvesVersion) ?? historyFull(found);
  }
  const current = currentDisposition(found);
  if (!current) return historyFull(found);
  if (!request.override) {
    const who = `${current.author.user_id} (${current.author.role}) at ${current.at}`;
    return new ConflictError(
      `Screen ${found.screen_id} already has the disposition ${current.disposition}, recorded by ${who}; send "override": true to replace it`,
      current,
      'already_disposed',
    );
  }
  return historyFull(found);
}

/**
 * Why an admin may not sign off decision `version` of the screen as found, or undefined when they
 * may: nothing to approve (409), already approved (409), another decision in force (409), their own
 * decision or a key either of them could hold for the other (403, four eyes). `authorKeyLineage`
 * adds the author's current key's lineage where it was read.
 */
function approvalRefusal(
  found: ScreenItem,
  request: DisposeRequest,
  caller: Caller,
  version: number | undefined,
  authorKeyLineage?: readonly string[],
): Error | undefined {
  const current = currentDisposition(found);
  const decision = found.disposition;
  if (!current || !decision) {
    return new ConflictError(
      `Screen ${found.screen_id} is pending: there is no disposition to approve yet; record one first`,
    );
  }
  if (found.approval) {
    const who = `${current.author.user_id} (${current.author.role}) at ${current.at}`;
    return new ConflictError(`Screen ${found.screen_id} is already approved by ${who}`, current);
  }
  if (found.decision_version !== version) {
    const inForce = `${decision.disposition} (decision_version ${found.decision_version ?? 'unknown'}), recorded by ${decision.author.user_id} (${decision.author.role}) at ${decision.at}`;
    const seen = version ? found.history?.[version - 1] : undefined;
    const sawWhat = seen && seen.disposition !== 'approved' ? ` (${seen.disposition})` : '';
    const reviewed =
      request.approves_version === undefined
        ? `the decision awaiting approval when your request arrived was decision_version ${version}${sawWhat}`
        : `you reviewed decision_version ${version}${sawWhat}`;
    return new ConflictError(
      `Screen ${found.screen_id}: ${reviewed}, but the decision in force is now ${inForce}; review it and approve that version`,
      current,
    );
  }
  if (decision.author.user_id === caller.userId) {
    return new ForbiddenError(
      `Screen ${found.screen_id}: you recorded the disposition ${decision.disposition} yourself; another admin must approve it (four-eyes principle)`,
      'four_eyes_required',
    );
  }
  const shared = sharedCredential(
    { user_id: decision.author.user_id, lineages: [decision.author_key_lineage, authorKeyLineage] },
    { user_id: caller.userId, lineages: [caller.keyLineage] },
  );
  if (shared)
    return new ForbiddenError(
      `Screen ${found.screen_id}: four-eyes principle: ${shared}`,
      'four_eyes_required',
    );
  return undefined;
}

function historyFull(found: ScreenItem): ConflictError {
  return new ConflictError(
    `Screen ${found.screen_id}: its disposition history is full (${found.history_count ?? found.history?.length ?? 0} entries, ${found.history_bytes ?? 0} of ${HISTORY_BYTES_LIMIT} bytes); a decision already recorded can still be approved. Screen the subject again with "force": true to start a new screen`,
  );
}
