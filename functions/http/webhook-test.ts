import { httpHandler } from '../../lib/runtime/handlers.ts';
import { sendTestEvent } from '../../lib/webhooks/test-event.ts';

export const handler = httpHandler('webhook-test', async ({ services, principal, params }) => ({
  status: 202,
  body: await sendTestEvent(services.table, principal, params.webhook_id),
}));
