import { listBatches } from '../../lib/batch/batches-read.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('batches-list', async ({ services, principal, query }) => ({
  body: await listBatches(services.table, principal.tenantId, query),
}));
