import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '../common/errors.ts';
import { outboxEvent, outboxUpdate } from '../outbox/outbox.ts';
import { keys } from '../store/schema.ts';
import { type Table, writeIf } from '../store/table.ts';
import { type Principal, requireRole } from '../tenancy/auth.ts';
import { WEBHOOK_ID_PATTERN } from './endpoints.ts';

/**
 * POST /webhooks/{id}/test: a `webhook.test` event through the same outbox, queue and signing as
 * every other, so a success proves the whole path. It is written on the endpoint item itself and
 * reaches only that endpoint (the drain sends `webhook.test` to the endpoint that carries it).
 */
export async function sendTestEvent(table: Table, caller: Principal, webhookId: string) {
  requireRole(caller, 'admin', 'Testing a webhook');
  const key = keys.webhook(caller.tenantId, webhookId);
  const event = outboxEvent('webhook.test', caller.tenantId, {
    webhook_id: webhookId,
    detail: `A test event sent by ${caller.userId}`,
  });
  const update = outboxUpdate(key, [event]);
  const written =
    WEBHOOK_ID_PATTERN.test(webhookId) &&
    (await writeIf(
      table,
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: `SET ${update.set}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: update.values,
      }),
    ));
  if (!written) throw new NotFoundError(`No webhook ${webhookId} in your tenant`);
  return {
    event_id: event.event_id,
    detail: 'Queued: see GET /webhooks/{webhook_id}/deliveries for the attempt',
  };
}
