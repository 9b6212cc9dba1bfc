import { httpHandler } from '../../lib/runtime/handlers.ts';
import { readWebhook } from '../../lib/webhooks/endpoints.ts';

export const handler = httpHandler('webhook-get', async ({ services, principal, params }) => ({
  body: await readWebhook(services.table, principal, params.webhook_id),
}));
