import { httpHandler } from '../../lib/runtime/handlers.ts';
import { getWebhookDeps } from '../../lib/runtime/webhooks.ts';
import { updateWebhook } from '../../lib/webhooks/endpoints.ts';

export const handler = httpHandler('webhook-update', async ({ principal, params, body }) => ({
  body: await updateWebhook(getWebhookDeps(), principal, params.webhook_id, body),
}));
