import { stopClient } from '../../lib/monitoring/clients-read.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('client-stop', async ({ services, principal, params }) => ({
  body: await stopClient(services.table, principal, params.client_id ?? ''),
}));
