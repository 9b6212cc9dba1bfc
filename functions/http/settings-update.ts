import { httpHandler } from '../../lib/runtime/handlers.ts';
import { settingsOfCaller } from '../../lib/tenancy/retention.ts';

export const handler = httpHandler('settings-update', async ({ services, principal, body }) => ({
  body: await settingsOfCaller.set(services.table, principal, body),
}));
