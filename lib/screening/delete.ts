import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { ForbiddenError, NotFoundError } from '../errors.ts';
import { logger } from '../log.ts';
import { forgetSubjectScreen } from '../monitoring/screened-subjects.ts';
import { isConditionalCheckFailed, itemOfConditionFailure, keys, type Table } from '../store/table.ts';
import type { Principal } from '../tenancy/auth.ts';
import { releaseWindow } from './rescreen-window.ts';
import { isScreenId } from './screen-id.ts';
import type { ScreenItem } from './screen-record.ts';

/**
 * DELETE /screens/{screen_id} (docs/api-decisions.md#the-screen-lifecycle): admins delete any screen of their tenant, analysts only
 * screens they created (403 otherwise, decided by a condition on `created_by` in the delete
 * itself). The disposition history and notes live inside the screen item, so they go with it,
 * for good, and so does its rescreen-window index entry, so the next screen of the subject is fresh.
 */
export async function deleteScreen(
  table: Table,
  caller: Pick<Principal, 'tenantId' | 'userId' | 'role'>,
  screenId: string,
): Promise<{ screen_id: string; deleted: true }> {
  const notFound = new NotFoundError(`Screen ${screenId} not found`);
  if (!isScreenId(screenId)) throw notFound;
  const ownOnly = caller.role !== 'admin';
  let deleted: Record<string, unknown> | undefined;
  try {
    ({ Attributes: deleted } = await table.doc.send(
      new DeleteCommand({
        TableName: table.name,
        Key: keys.screen(caller.tenantId, screenId),
        ConditionExpression: ownOnly
          ? 'attribute_exists(pk) AND created_by.user_id = :me'
          : 'attribute_exists(pk)',
        ExpressionAttributeValues: ownOnly ? { ':me': caller.userId } : undefined,
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ));
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const found = (await itemOfConditionFailure(table, error, keys.screen(caller.tenantId, screenId))) as
      | ScreenItem
      | undefined;
    if (!found) throw notFound;
    throw new ForbiddenError(
      `Analysts may delete only screens they created; screen ${screenId} was created by ${found.created_by.user_id}`,
    );
  }
  // The subject's row of GET /clients/screened is recomputed from its remaining screens.
  const hash = deleted?.subject_hash;
  if (typeof hash === 'string') {
    await forgetSubjectScreen(table, caller.tenantId, hash).catch((error) =>
      logger.error({ err: error, tenant: caller.tenantId, screenId }, 'subject row not updated'),
    );
  }
  // A deleted screen no longer holds its subject's rescreen window: the next screen is fresh.
  if (typeof deleted?.subject_hash === 'string')
    await releaseWindow(table, caller.tenantId, deleted.subject_hash, screenId);
  return { screen_id: screenId, deleted: true };
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
  const { Item } = await table.doc.send(
    new GetCommand({
      TableName: table.name,
      Key: keys.screen(tenantId, screenId),
      ProjectionExpression: 'pk',
      ConsistentRead: true,
    }),
  );
  if (Item) return undefined;
  return `Screen ${screenId}, which the first request with this Idempotency-Key returned, has been deleted since; its response is not replayed and nothing was screened again. Send a new Idempotency-Key to screen the subject afresh`;
}
