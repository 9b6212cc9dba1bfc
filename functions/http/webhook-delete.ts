import { httpHandler } from '../../lib/runtime/handlers.ts';
import { deleteWebhook } from '../../lib/webhooks/endpoints.ts';

export const handler = httpHandler('webhook-delete', async ({ services, principal, params }) => ({
  body: await deleteWebhook(services.table, principal, params.webhook_id),
}));
