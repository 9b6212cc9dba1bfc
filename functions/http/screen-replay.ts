import { httpHandler } from '../../lib/runtime/handlers.ts';
import { moreMatches } from '../../lib/screening/more-matches.ts';
import { replayScreen } from '../../lib/screening/replay.ts';

// One function serves POST /screens/{screen_id}/replay and GET /screens/{screen_id}/matches (same wiring).
const replay = httpHandler('screen-replay', async ({ services, principal, params }) => ({
  body: await replayScreen(services, principal, params.screen_id ?? ''),
}));
const matches = httpHandler('screen-matches', async ({ services, principal, params, query }) => ({
  body: await moreMatches(services, principal, params.screen_id ?? '', query),
}));

export const handler: typeof replay = (event, context) =>
  (event.requestContext?.http?.method === 'GET' ? matches : replay)(event, context);
