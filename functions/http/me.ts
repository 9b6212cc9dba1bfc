import { httpHandler } from '../../lib/runtime/handlers.ts';
import { describeAccount } from '../../lib/tenancy/account.ts';

export const handler = httpHandler('me', async ({ services, principal }) => ({
  body: await describeAccount(services.table, principal),
}));
