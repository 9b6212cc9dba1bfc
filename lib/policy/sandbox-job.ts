import * as v from 'valibot';
import { PROPOSAL_ID_PATTERN } from '../common/ids.ts';

/**
 * The queue message of one step of a proposal's sandbox (kind `policy-sandbox`, on the work queue:
 * lib/jobs/kinds.ts). It names only the tenant, the proposal and the step: the worker reads the
 * policy, the period and where the previous step left off from the proposal item, so the queue
 * carries no personal data and a redelivered step is recognised by its number.
 */
export const PolicySandboxJobSchema = v.object({
  kind: v.literal('policy-sandbox'),
  v: v.literal(1),
  tenant_id: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  proposal_id: v.pipe(v.string(), v.regex(PROPOSAL_ID_PATTERN)),
  step: v.pipe(v.number(), v.integer(), v.minValue(0)),
});
export type PolicySandboxJob = v.InferOutput<typeof PolicySandboxJobSchema>;

export function sandboxJobBody(tenantId: string, proposalId: string, step: number): string {
  const job: PolicySandboxJob = {
    kind: 'policy-sandbox',
    v: 1,
    tenant_id: tenantId,
    proposal_id: proposalId,
    step,
  };
  return JSON.stringify(job);
}
