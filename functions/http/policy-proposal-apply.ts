import { applyProposal } from '../../lib/policy/policy-proposals.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('policy-proposal-apply', async ({ services, principal, params }) => ({
  body: await applyProposal(services.table, principal, params.proposal_id),
}));
