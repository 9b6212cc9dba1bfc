import { listAlerts } from '../../lib/monitoring/monitoring-lists.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('alerts-list', async ({ services, principal, query }) => ({
  body: await listAlerts(services.table, principal.tenantId, query),
}));
