import { listProposals } from '../../lib/policy/policy-proposals.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('policy-proposals-list', async ({ services, principal, query }) => ({
  body: await listProposals(services.table, principal, query),
}));
