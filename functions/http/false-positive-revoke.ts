import { httpHandler } from '../../lib/runtime/handlers.ts';
import { revokeRememberedFalsePositive } from '../../lib/screening/false-positive-memory.ts';

export const handler = httpHandler('false-positive-revoke', async ({ services, principal, params }) => ({
  body: await revokeRememberedFalsePositive(services.table, principal, params.memory_id),
}));
