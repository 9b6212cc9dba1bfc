import { disposeScreen } from '../../lib/jobs/dispose-screen.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('screen-dispose', async ({ services, principal, params, body }) => ({
  body: await disposeScreen(services.table, principal, params.screen_id ?? '', body),
}));
