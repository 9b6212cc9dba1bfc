import { httpHandler } from '../../lib/runtime/handlers.ts';
import { rotateApiKey } from '../../lib/tenancy/auth.ts';

export const handler = httpHandler('rotate-key', async ({ services, principal, apiKey }) => ({
  body: {
    ...(await rotateApiKey(services.table, principal, apiKey)),
    detail: 'The previous key no longer works. Store this key now: it is not shown again.',
  },
}));
