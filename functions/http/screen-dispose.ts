import { httpHandler } from '../../lib/runtime/handlers.ts';
import { disposeScreen } from '../../lib/jobs/dispose-screen.ts';

export const handler = httpHandler('screen-dispose', async ({ services, principal, params, body }) => ({
  body: await disposeScreen(services.table, principal, params.screen_id ?? '', body),
}));
