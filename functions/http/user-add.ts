import { httpHandler } from '../../lib/runtime/handlers.ts';
import { addAnalystAsAdmin } from '../../lib/tenancy/users.ts';

export const handler = httpHandler('user-add', async ({ services, principal, body }) => ({
  status: 201,
  body: await addAnalystAsAdmin(services.table, principal, body),
}));
