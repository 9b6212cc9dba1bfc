import { httpHandler } from '../../lib/runtime/handlers.ts';
import { listDeliveries } from '../../lib/webhooks/deliveries.ts';

export const handler = httpHandler('webhook-deliveries', async ({ services, principal, params, query }) => ({
  body: await listDeliveries(services.table, principal, params.webhook_id, query),
}));
