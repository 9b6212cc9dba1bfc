import { idempotent } from '../../lib/http/idempotency.ts';
import { registerClient } from '../../lib/monitoring/register-client.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('client-register', async (request) => {
  const { services, principal, body, idempotencyKey } = request;
  const scope = {
    tenantId: principal.tenantId,
    route: 'client-register',
    key: idempotencyKey,
    body,
  };
  const { result } = await idempotent(
    services.table,
    scope,
    async () => (await registerClient(services, principal, body)).client,
  );
  return { status: 201, body: result };
});
