import { proposePolicy } from '../../lib/policy/policy-proposals.ts';
import { httpHandler } from '../../lib/runtime/handlers.ts';

export const handler = httpHandler('policy-propose', async ({ services, principal, body }) => {
  const proposal = await proposePolicy(services, principal, body);
  return { status: 202 as const, headers: { location: proposal.link }, body: proposal };
});
