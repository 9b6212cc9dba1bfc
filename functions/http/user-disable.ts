import { httpHandler } from '../../lib/runtime/handlers.ts';
import { usersOfCaller } from '../../lib/tenancy/users.ts';

export const handler = httpHandler('user-disable', async ({ services, principal, params }) => ({
  body: await usersOfCaller.disable(services.table, principal, params.user_id ?? ''),
}));
