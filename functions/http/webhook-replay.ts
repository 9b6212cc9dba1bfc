import { httpHandler } from '../../lib/runtime/handlers.ts';
import { getWebhookDeps } from '../../lib/runtime/webhooks.ts';
import { replayDelivery } from '../../lib/webhooks/deliveries.ts';

export const handler = httpHandler('webhook-replay', async ({ principal, params }) => ({
  status: 202,
  body: await replayDelivery(getWebhookDeps(), principal, params.webhook_id, params.delivery_id),
}));
