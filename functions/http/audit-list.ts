import { httpHandler } from '../../lib/runtime/handlers.ts';
import { listAuditAsAdmin } from '../../lib/tenancy/users.ts';

export const handler = httpHandler('audit-list', async ({ services, principal, query }) => ({
  body: await listAuditAsAdmin(services.table, principal, query.limit, query.cursor),
}));
