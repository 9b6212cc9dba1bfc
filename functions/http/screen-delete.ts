import { httpHandler } from '../../lib/runtime/handlers.ts';
import { deleteScreen } from '../../lib/screening/delete.ts';

export const handler = httpHandler('screen-delete', async ({ services, principal, params, query }) => ({
  body: await deleteScreen(services.table, principal, params.screen_id ?? '', new Date(), query.reason),
}));
