import { httpHandler } from '../../lib/runtime/handlers.ts';
import { listRememberedFalsePositives } from '../../lib/screening/false-positive-memory.ts';

export const handler = httpHandler('false-positives-list', async ({ services, principal, query }) => ({
  body: await listRememberedFalsePositives(services.table, principal, query),
}));
