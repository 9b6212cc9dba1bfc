import { httpHandler } from '../../lib/runtime/handlers.ts';
import { getWebhookDeps } from '../../lib/runtime/webhooks.ts';
import { createWebhook } from '../../lib/webhooks/endpoints.ts';

export const handler = httpHandler('webhook-create', async ({ principal, body }) => ({
  status: 201,
  body: await createWebhook(getWebhookDeps(), principal, body),
}));
