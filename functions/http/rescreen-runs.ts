import { listRescreenRuns } from '../../lib/monitoring/monitoring-lists.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('rescreen-runs', async ({ services, principal, query }) => ({
  body: await listRescreenRuns(services.table, principal.tenantId, query),
}));
