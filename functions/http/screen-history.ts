import { httpHandler } from '../../lib/runtime/handlers.ts';
import { getScreenHistory } from '../../lib/screening/screens-read.ts';

export const handler = httpHandler('screen-history', async ({ services, principal, params }) => ({
  body: await getScreenHistory(services.table, principal.tenantId, params.screen_id ?? ''),
}));
