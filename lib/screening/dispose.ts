import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, ForbiddenError, InvalidRequestError, NotFoundError } from '../errors.ts';
import {
  indexAttributes,
  isConditionalCheckFailed,
  itemOfConditionFailure,
  keys,
  type Table,
} from '../store/table.ts';
import type { Principal } from '../tenancy/auth.ts';
import type { DisposeRequest } from './request.ts';
import { isScreenId } from './screen-id.ts';
import {
  type ApprovalRecord,
  currentDisposition,
  type DecisionRecord,
  type HistoryEntry,
  historyView,
  isoSeconds,
  parseScreenItem,
  type ScreenItem,
} from './screen-record.ts';
import type { ScreenHistory } from './screens-read.ts';

type Caller = Pick<Principal, 'tenantId' | 'userId' | 'role'>;

/**
 * POST /screens/{screen_id}/dispose: the SPEC §3 state table and the DESIGN §4 sign-off rules.
 * Each rule is one conditional UpdateItem on the screen item (history appended with list_append
 * in the same write), so two concurrent decisions on a pending screen cannot both land: one wins,
 * the other gets 409. When a condition fails, the item DynamoDB found (ALL_OLD) says which
 * status applies.
 *
 * - `approved` needs the admin role (403 whatever the state, checked first); it signs off the
 *   disposition in force: 409 on a pending or already-approved screen, 403 when the admin made
 *   that disposition (four eyes).
 * - Any other value on a pending screen records it; on a screen with a disposition it is a 409
 *   naming the disposition and its author, unless `override: true`, which replaces it (and any
 *   sign-off of it); both stay in the history.
 * - `approval_requested: true` marks the disposition as awaiting an admin's sign-off.
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
  if (request.disposition === 'approved') {
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
  }
  const notFound = new NotFoundError(`Screen ${screenId} not found`);
  if (!isScreenId(screenId)) throw notFound;

  const author = { user_id: caller.userId, role: caller.role };
  const entry: HistoryEntry = {
    disposition: request.disposition,
    note: request.note ?? null,
    author,
    at: isoSeconds(at),
    override: request.disposition !== 'approved' && request.override === true,
    approval_requested: request.approval_requested === true,
  };
  const appendHistory = 'history = list_append(if_not_exists(history, :empty), :entry)';
  const common = {
    TableName: table.name,
    Key: keys.screen(caller.tenantId, screenId),
    ReturnValues: 'ALL_NEW' as const,
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };

  try {
    let updated: Record<string, unknown> | undefined;
    if (request.disposition === 'approved') {
      const approval: ApprovalRecord = { author, at: entry.at, note: entry.note };
      ({ Attributes: updated } = await table.doc.send(
        new UpdateCommand({
          ...common,
          UpdateExpression: `SET approval = :approval, ${appendHistory}`,
          // Four eyes: the admin who signs off must not be the author of the decision signed off.
          ConditionExpression:
            'attribute_exists(disposition) AND attribute_not_exists(approval) AND disposition.author.user_id <> :me',
          ExpressionAttributeValues: {
            ':approval': approval,
            ':entry': [entry],
            ':empty': [],
            ':me': caller.userId,
          },
        }),
      ));
    } else {
      const decision: DecisionRecord = entry;
      ({ Attributes: updated } = await table.doc.send(
        new UpdateCommand({
          ...common,
          // Leaving the sparse pending index in the same write keeps the pending list exact.
          UpdateExpression: `SET disposition = :decision, ${appendHistory} REMOVE ${indexAttributes('pendingScreens').join(', ')}${request.override ? ', approval' : ''}`,
          ConditionExpression: request.override
            ? 'attribute_exists(pk)'
            : 'attribute_exists(pk) AND attribute_not_exists(disposition)',
          ExpressionAttributeValues: { ':decision': decision, ':entry': [entry], ':empty': [] },
        }),
      ));
    }
    const item = parseScreenItem(updated ?? {});
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
    return new ConflictError(
      `Screen ${found.screen_id} is pending: there is no disposition to approve yet; record one first`,
    );
  }
  const who = `${current.author.user_id} (${current.author.role}) at ${current.at}`;
  if (request.disposition === 'approved') {
    if (found.approval) {
      return new ConflictError(`Screen ${found.screen_id} is already approved by ${who}`, current);
    }
    if (found.disposition?.author.user_id === caller.userId) {
      return new ForbiddenError(
        `Screen ${found.screen_id}: you recorded the disposition ${current.disposition} yourself; another admin must approve it (four-eyes principle)`,
      );
    }
  }
  return new ConflictError(
    `Screen ${found.screen_id} already has the disposition ${current.disposition}, recorded by ${who}; send "override": true to replace it`,
    current,
  );
}
