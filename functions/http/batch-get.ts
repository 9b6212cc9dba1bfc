import { getBatchDetail } from '../../lib/batch/batches-read.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('batch-get', async ({ services, principal, params }) => ({
  body: await getBatchDetail(services.table, principal.tenantId, params.batch_id ?? ''),
}));
