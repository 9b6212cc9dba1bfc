import { httpHandler } from '../../lib/runtime/handlers.ts';
import { getScreen } from '../../lib/screening/screens-read.ts';

export const handler = httpHandler('screen-get', async ({ services, principal, params }) => ({
  body: await getScreen(services.table, principal.tenantId, params.screen_id ?? ''),
}));
