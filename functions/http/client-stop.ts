import { httpHandler } from '../../lib/http/handler.ts';
import { stopClient } from '../../lib/monitoring/clients-read.ts';

export const handler = httpHandler('client-stop', async ({ services, principal, params }) => ({
  body: await stopClient(services.table, principal, params.client_id ?? ''),
}));
