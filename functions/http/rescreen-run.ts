import { getRescreenRun } from '../../lib/monitoring/rescreen-run.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('rescreen-run', async ({ services, principal, params }) => ({
  body: await getRescreenRun(services.table, principal.tenantId, params.run_id ?? ''),
}));
