import { httpHandler } from '../../lib/http/handler.ts';
import { AddUserRequestSchema, addAnalystAsAdmin } from '../../lib/tenancy/users.ts';

export const handler = httpHandler(
  'user-add',
  { body: AddUserRequestSchema },
  async ({ services, principal, body }) => ({
    status: 201,
    body: await addAnalystAsAdmin(services.table, principal, body),
  }),
);
