import { httpHandler } from '../../lib/http/handler.ts';
import { ClientListQuerySchema, listClients } from '../../lib/monitoring/clients-read.ts';

export const handler = httpHandler('clients-list', { query: ClientListQuerySchema }, async (request) => ({
  body: await listClients(request.services.table, request.principal.tenantId, request.query),
}));
