import { httpHandler } from '../../lib/runtime/handlers.ts';
import { listPendingScreens } from '../../lib/screening/screens-read.ts';

export const handler = httpHandler('screens-pending', async ({ services, principal, query }) => ({
  body: await listPendingScreens(services.table, principal.tenantId, query.limit, query.cursor, query),
}));
