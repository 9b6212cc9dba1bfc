import { getClient } from '../../lib/monitoring/clients-read.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('client-get', async ({ services, principal, params, query }) => ({
  body: await getClient(services.table, principal.tenantId, params.client_id ?? '', query),
}));
