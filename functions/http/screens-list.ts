import { httpHandler } from '../../lib/runtime/handlers.ts';
import { listScreens } from '../../lib/screening/screens-read.ts';

export const handler = httpHandler('screens-list', async ({ services, principal, query }) => ({
  body: await listScreens(services.table, principal.tenantId, query.limit, query.cursor, query),
}));
