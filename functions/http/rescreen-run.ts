import { httpHandler } from '../../lib/http/handler.ts';
import { getRescreenRun } from '../../lib/monitoring/rescreen-run.ts';

export const handler = httpHandler('rescreen-run', async ({ services, principal, params }) => ({
  body: await getRescreenRun(services.table, principal.tenantId, params.run_id ?? ''),
}));
