import { httpHandler } from '../../lib/runtime/handlers.ts';
import { describeDatabaseWithSync } from '../../lib/sync/database-status.ts';

export const handler = httpHandler('dbstatus', async ({ services }) => ({
  body: await describeDatabaseWithSync(services.table, (await services.matcher()).lists),
}));
