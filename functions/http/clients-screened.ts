import { httpHandler } from '../../lib/runtime/handlers.ts';
import { listScreenedSubjects } from '../../lib/screening/screened-subjects.ts';

export const handler = httpHandler('clients-screened', async ({ services, principal, query }) => ({
  body: await listScreenedSubjects(services.table, principal.tenantId, 'screened', query.limit, query.cursor),
}));
