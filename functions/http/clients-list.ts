import { listClients } from '../../lib/monitoring/clients-read.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('clients-list', async (request) => ({
  body: await listClients(request.services.table, request.principal.tenantId, request.query),
}));
