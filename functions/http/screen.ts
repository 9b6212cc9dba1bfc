import { idempotent } from '../../lib/http/idempotency.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';
import { deletedScreenDetail } from '../../lib/screening/delete.ts';
import { screenSubject } from '../../lib/screening/screen-subject.ts';

export const handler = httpHandler('screen', async ({ services, principal, body, idempotencyKey }) => {
  const scope = {
    tenantId: principal.tenantId,
    route: 'screen',
    key: idempotencyKey,
    body,
  };
  const { result } = await idempotent(services.table, scope, () => screenSubject(services, principal, body), {
    stillHeld: (screen) => deletedScreenDetail(services.table, principal.tenantId, screen.screen_id),
  });
  return { body: result };
});
