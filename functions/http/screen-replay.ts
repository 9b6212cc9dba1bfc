import { httpHandler } from '../../lib/runtime/handlers.ts';
import { replayScreen } from '../../lib/screening/replay.ts';

export const handler = httpHandler('screen-replay', async ({ services, principal, params }) => ({
  body: await replayScreen(services, principal, params.screen_id ?? ''),
}));
