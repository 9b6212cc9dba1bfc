import { httpHandler } from '../../lib/runtime/handlers.ts';
import { getWebhookDeps } from '../../lib/runtime/webhooks.ts';
import { rotateWebhookSecret } from '../../lib/webhooks/endpoints.ts';

export const handler = httpHandler('webhook-rotate-secret', async ({ principal, params, body }) => ({
  body: await rotateWebhookSecret(getWebhookDeps(), principal, params.webhook_id, body),
}));
