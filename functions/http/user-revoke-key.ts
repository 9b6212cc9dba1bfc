import { httpHandler } from '../../lib/runtime/handlers.ts';
import { usersOfCaller } from '../../lib/tenancy/users.ts';

export const handler = httpHandler('user-revoke-key', async ({ services, principal, params }) => ({
  body: await usersOfCaller.revokeKey(services.table, principal, params.user_id ?? ''),
}));
