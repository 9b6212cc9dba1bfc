import { httpHandler } from '../../lib/runtime/handlers.ts';
import { deletedScreenDetail } from '../../lib/screening/delete.ts';
import { screenSubject } from '../../lib/screening/screen-subject.ts';

export const handler = httpHandler('screen', async ({ services, principal, body, once }) => ({
  body: await once(() => screenSubject(services, principal, body), {
    stillHeld: (screen) => deletedScreenDetail(services.table, principal.tenantId, screen.screen_id),
  }),
}));
