import { httpHandler } from '../../lib/runtime/handlers.ts';
import { settingsOfCaller } from '../../lib/tenancy/retention.ts';

export const handler = httpHandler('settings-get', async ({ services, principal }) => ({
  body: await settingsOfCaller.get(services.table, principal),
}));
