import { httpHandler } from '../../lib/http/handler.ts';
import { idempotent } from '../../lib/http/idempotency.ts';
import { screenSubject } from '../../lib/screening/screen-subject.ts';

export const handler = httpHandler('screen', async ({ services, principal, body, idempotencyKey }) => {
  const scope = {
    tenantId: principal.tenantId,
    route: 'screen',
    key: idempotencyKey,
    body,
  };
  const { result } = await idempotent(services.table, scope, () => screenSubject(services, principal, body));
  return { body: result };
});
