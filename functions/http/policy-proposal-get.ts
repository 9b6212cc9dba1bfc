import { readProposal } from '../../lib/policy/policy-proposals.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('policy-proposal-get', async ({ services, principal, params }) => ({
  body: await readProposal(services.table, principal, params.proposal_id),
}));
