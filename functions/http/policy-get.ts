import { readPolicy } from '../../lib/policy/policy-settings.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('policy-get', async ({ services, principal }) => ({
  body: await readPolicy(services.table, principal),
}));
