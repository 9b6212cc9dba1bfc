import { batchResultsFile } from '../../lib/batch/batches-read.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

/** GET /batch/{batch_id}/results: the batch's rows as CSV or NDJSON (`format`, else Accept). */
export const handler = httpHandler('batch-results', ({ services, principal, params, query, event }) =>
  batchResultsFile(services.table, principal.tenantId, params.batch_id ?? '', {
    format: query.format,
    accept: event.headers?.accept,
  }),
);
