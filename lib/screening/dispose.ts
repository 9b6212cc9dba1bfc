import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, ForbiddenError, InvalidRequestError, NotFoundError } from '../errors.ts';
import { noteScreenDecision } from '../monitoring/screened-subjects.ts';
import { applySettledDecision } from '../monitoring/settled-decisions.ts';
import {
  indexAttributes,
  isConditionalCheckFailed,
  itemOfConditionFailure,
  keys,
  type Table,
} from '../store/table.ts';
import type { Principal } from '../tenancy/auth.ts';
import { type DisposeRequest, NOTE_MAX_LENGTH } from './request.ts';
import { isScreenId } from './screen-id.ts';
import {
  type ApprovalRecord,
  currentDisposition,
  type DecisionRecord,
  historyEntryBytes,
  historyView,
  isoSeconds,
  parseScreenItem,
  type ScreenItem,
} from './screen-record.ts';
import type { ScreenHistory } from './screens-read.ts';

type Caller = Pick<Principal, 'tenantId' | 'userId' | 'role'>;

/**
 * The most a screen's history may hold, in UTF-8 bytes of its entries. DynamoDB refuses items
 * over 400 KB; a screen's own data (subject, up to 30 matches with narratives) stays well under
 * 100 KB, so this keeps every screen item writable for good. About 1,000 decisions with short
 * notes fit, and at least 18 with 4,000-character notes in any script.
 */
export const HISTORY_BYTES_LIMIT = 256 * 1024;

/**
 * Room kept for one sign-off: a decision is accepted only while an approval of it would still
 * fit, so a full history never leaves a decision that cannot be approved. A JSON-escaped
 * character takes at most 6 bytes.
 */
const APPROVAL_RESERVE_BYTES = 6 * NOTE_MAX_LENGTH + 1024;

/**
 * POST /screens/{screen_id}/dispose: the state table and the sign-off rules. Each rule is one
 * conditional UpdateItem on the screen item (history appended with list_append in the same
 * write), so two concurrent decisions on a pending screen cannot both land: one wins, the other
 * gets 409. When a condition fails, the item DynamoDB found (ALL_OLD) says which status applies.
 *
 * - `approved` needs the admin role (403 whatever the state, checked first) and names the
 *   `approves_version` it signs off: 409 when that is no longer the decision in force (a decision
 *   replaced while the admin reviewed it), on a pending or already-approved screen; 403 when the
 *   admin made that decision (four eyes).
 * - Any other value on a pending screen records it; on a screen with a disposition it is a 409
 *   naming the disposition and its author, unless `override: true`, which replaces it (and any
 *   sign-off of it); both stay in the history.
 * - `approval_requested: true` marks the disposition as awaiting an admin's sign-off.
 * - The history is bounded by HISTORY_BYTES_LIMIT: past it, 409 (screen the subject afresh).
 *
 * The same write keeps the version counters: `history_count` (entries so far; SET expressions
 * read the item as it was, so the new decision's version is the old count plus one) and
 * `history_bytes`.
 *
 * On a client's screen, a settled decision then reaches the client's current screen
 * (lib/monitoring/settled-decisions.ts), a follow-up of the decision, never part of it.
 *
 * Returns the screen's disposition in force and its full history, oldest first.
 */
export async function disposeScreen(
  table: Table,
  caller: Caller,
  screenId: string,
  request: DisposeRequest,
  at: Date = new Date(),
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
    if (request.approves_version === undefined) {
      throw new InvalidRequestError(
        'approves_version: is required with "approved": the decision_version of the decision you reviewed (GET /screens/{screen_id}/history)',
      );
    }
  } else if (request.approves_version !== undefined) {
    throw new InvalidRequestError('approves_version: only goes with the "approved" disposition');
  }
  const notFound = new NotFoundError(`Screen ${screenId} not found`);
  if (!isScreenId(screenId)) throw notFound;

  const author = { user_id: caller.userId, role: caller.role };
  const entry: DecisionRecord = {
    disposition: request.disposition,
    note: request.note ?? null,
    author,
    at: isoSeconds(at),
    override: !approving && request.override === true,
    approval_requested: request.approval_requested === true,
    ...(approving ? { approves_version: request.approves_version } : {}),
  };
  const bytes = historyEntryBytes(entry);
  const room = HISTORY_BYTES_LIMIT - bytes - (approving ? 0 : APPROVAL_RESERVE_BYTES);
  const counters =
    'history = list_append(if_not_exists(history, :empty), :entry), ' +
    'history_count = if_not_exists(history_count, :zero) + :one, ' +
    'history_bytes = if_not_exists(history_bytes, :zero) + :bytes';
  const fits = '(attribute_not_exists(history_bytes) OR history_bytes <= :room)';
  const values = { ':entry': [entry], ':empty': [], ':zero': 0, ':one': 1, ':bytes': bytes, ':room': room };
  const common = {
    TableName: table.name,
    Key: keys.screen(caller.tenantId, screenId),
    ReturnValues: 'ALL_NEW' as const,
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };

  try {
    let updated: Record<string, unknown> | undefined;
    if (approving) {
      const approval: ApprovalRecord = {
        author,
        at: entry.at,
        note: entry.note,
        approves_version: request.approves_version,
      };
      ({ Attributes: updated } = await table.doc.send(
        new UpdateCommand({
          ...common,
          UpdateExpression: `SET approval = :approval, ${counters}`,
          // Four eyes: the admin who signs off must not be the author of the decision signed off,
          // and signs off exactly the decision they reviewed.
          ConditionExpression: `attribute_exists(disposition) AND attribute_not_exists(approval) AND disposition.author.user_id <> :me AND decision_version = :version AND ${fits}`,
          ExpressionAttributeValues: {
            ...values,
            ':approval': approval,
            ':me': caller.userId,
            ':version': request.approves_version,
          },
        }),
      ));
    } else {
      const decision: DecisionRecord = entry;
      ({ Attributes: updated } = await table.doc.send(
        new UpdateCommand({
          ...common,
          // Leaving the sparse pending index in the same write keeps the pending list exact.
          UpdateExpression: `SET disposition = :decision, decision_version = if_not_exists(history_count, :zero) + :one, ${counters} REMOVE ${indexAttributes('pendingScreens').join(', ')}${request.override ? ', approval' : ''}`,
          ConditionExpression: request.override
            ? `attribute_exists(pk) AND ${fits}`
            : `attribute_exists(pk) AND attribute_not_exists(disposition) AND ${fits}`,
          ExpressionAttributeValues: { ...values, ':decision': decision },
        }),
      ));
    }
    const item = parseScreenItem(updated ?? {});
    await noteScreenDecision(table, item, at);
    // A client's screen: its settled decision reaches the client's current screen (settled-decisions.ts).
    await applySettledDecision(table, item, at);
    return {
      screen_id: item.screen_id,
      disposition: currentDisposition(item),
      history: historyView(item.history),
    };
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const stored = await itemOfConditionFailure(table, error, common.Key);
    const found = stored ? parseScreenItem(stored) : undefined;
    if (!found) throw notFound;
    throw explainRefusal(found, request, caller);
  }
}

/** Which rule refused the write, judged from the item as DynamoDB found it. */
function explainRefusal(found: ScreenItem, request: DisposeRequest, caller: Caller): Error {
  const current = currentDisposition(found);
  if (!current) {
    if (request.disposition === 'approved') {
      return new ConflictError(
        `Screen ${found.screen_id} is pending: there is no disposition to approve yet; record one first`,
      );
    }
    return historyFull(found);
  }
  const who = `${current.author.user_id} (${current.author.role}) at ${current.at}`;
  if (request.disposition === 'approved') {
    if (found.approval) {
      return new ConflictError(`Screen ${found.screen_id} is already approved by ${who}`, current);
    }
    const decision = found.disposition!;
    const inForce = `${decision.disposition} (decision_version ${found.decision_version ?? 'unknown'}), recorded by ${decision.author.user_id} (${decision.author.role}) at ${decision.at}`;
    if (found.decision_version !== request.approves_version) {
      const seen = found.history?.[request.approves_version! - 1];
      const sawWhat = seen && seen.disposition !== 'approved' ? ` (${seen.disposition})` : '';
      return new ConflictError(
        `Screen ${found.screen_id}: you reviewed decision_version ${request.approves_version}${sawWhat}, but the decision in force is now ${inForce}; review it and approve that version`,
        current,
      );
    }
    if (decision.author.user_id === caller.userId) {
      return new ForbiddenError(
        `Screen ${found.screen_id}: you recorded the disposition ${decision.disposition} yourself; another admin must approve it (four-eyes principle)`,
      );
    }
    return historyFull(found);
  }
  if (!request.override) {
    return new ConflictError(
      `Screen ${found.screen_id} already has the disposition ${current.disposition}, recorded by ${who}; send "override": true to replace it`,
      current,
    );
  }
  return historyFull(found);
}

function historyFull(found: ScreenItem): ConflictError {
  return new ConflictError(
    `Screen ${found.screen_id}: its disposition history is full (${found.history_count ?? found.history?.length ?? 0} entries, ${found.history_bytes ?? 0} of ${HISTORY_BYTES_LIMIT} bytes); a decision already recorded can still be approved. Screen the subject again with "force": true to start a new screen`,
  );
}
