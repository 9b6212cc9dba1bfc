import { httpHandler } from '../../lib/runtime/handlers.ts';
import { listWebhooks } from '../../lib/webhooks/endpoints.ts';

export const handler = httpHandler('webhooks-list', async ({ services, principal }) => ({
  body: await listWebhooks(services.table, principal),
}));
