import { httpHandler } from '../../lib/runtime/handlers.ts';
import { usersOfCaller } from '../../lib/tenancy/users.ts';

export const handler = httpHandler('users-list', async ({ services, principal }) => ({
  body: await usersOfCaller.list(services.table, principal),
}));
