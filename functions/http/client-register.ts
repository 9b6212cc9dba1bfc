import { httpHandler } from '../../lib/http/handler.ts';
import { ClientRequestSchema, registerClient } from '../../lib/monitoring/register-client.ts';

export const handler = httpHandler('client-register', { body: ClientRequestSchema }, async (request) => ({
  status: 201,
  body: (await registerClient(request.services, request.principal, request.body)).client,
}));
