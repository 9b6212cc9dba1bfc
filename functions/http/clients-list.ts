import { httpHandler } from '../../lib/http/handler.ts';
import { listClients } from '../../lib/monitoring/clients-read.ts';

export const handler = httpHandler('clients-list', async (request) => ({
  body: await listClients(request.services.table, request.principal.tenantId, request.query),
}));
