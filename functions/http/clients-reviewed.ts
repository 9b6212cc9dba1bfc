import { httpHandler } from '../../lib/runtime/handlers.ts';
import { listScreenedSubjects } from '../../lib/screening/screened-subjects.ts';

export const handler = httpHandler('clients-reviewed', async ({ services, principal, query }) => ({
  body: await listScreenedSubjects(services.table, principal.tenantId, 'reviewed', query.limit, query.cursor),
}));
