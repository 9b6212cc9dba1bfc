import { registerClient } from '../../lib/monitoring/register-client.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('client-register', async ({ services, principal, body, once }) => ({
  status: 201,
  body: await once(async () => (await registerClient(services, principal, body)).client),
}));
