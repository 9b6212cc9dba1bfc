import { httpHandler } from '../../lib/http/handler.ts';
import { describeAccount } from '../../lib/tenancy/account.ts';

export const handler = httpHandler({}, async ({ services, principal }) => ({
  body: await describeAccount(services.table, principal),
}));
