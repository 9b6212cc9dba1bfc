import { httpHandler } from '../../lib/http/handler.ts';
import { getClient } from '../../lib/monitoring/clients-read.ts';

export const handler = httpHandler('client-get', async ({ services, principal, params, query }) => ({
  body: await getClient(services.table, principal.tenantId, params.client_id ?? '', query),
}));
