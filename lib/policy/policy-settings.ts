import { type AuditActor, auditedCommit } from '../audit/trail.ts';
import { InvalidRequestError } from '../common/errors.ts';
import { isoSeconds } from '../common/time.ts';
import type { Table } from '../store/table.ts';
import type { TableWrite } from '../store/write.ts';
import type { Principal } from '../tenancy/auth.ts';
import { boundsProblems, type PolicyBody } from './policy.ts';
import { currentPolicy, type PolicyVersion, policyWrites } from './policy-table.ts';

/**
 * GET /settings/policy, and the adoption of a new version (by applying a proposal:
 * ./policy-proposals.ts; by operations for a tenant it creates). A policy is never changed in
 * place: each adoption is the next version, one conditional put (two adoptions of one version
 * cannot both land) in one transaction with its `policy.adopt` audit entry.
 */

/** The rules the service holds every policy to, in words (docs/policies.md). */
export const POLICY_BOUNDS = [
  'Sanctions lists are always screened, and sanctions is always among the default check types.',
  'A match is banded at most one level below the level the matcher gives it; a HIGH or CRITICAL sanctions match is never banded lower.',
  'Bands keep the matcher’s order: a weaker match is never banded above a stronger one of the same check.',
];

export type PolicyView = PolicyVersion & { bounds: string[] };

/** The tenant's policy in force (any user of the tenant: analysts work under it). */
export async function readPolicy(table: Table, caller: Principal): Promise<PolicyView> {
  return { ...(await currentPolicy(table, caller.tenantId)), bounds: POLICY_BOUNDS };
}

/** 400 naming every bound the policy breaks. */
export function checkBounds(policy: PolicyBody): void {
  const problems = boundsProblems(policy);
  if (problems.length > 0) {
    throw new InvalidRequestError(`The policy is outside what the service allows: ${problems.join('; ')}`);
  }
}

/**
 * Adopts `policy` as the tenant's next version, audited; `alongside` are writes made in the same
 * transaction (the proposal marked applied).
 */
export async function adoptPolicy(
  table: Table,
  tenantId: string,
  actor: AuditActor,
  policy: PolicyBody,
  source: { proposalId: string | null; reportDigest: string | null; basedOn?: number },
  alongside: TableWrite[] = [],
  at: Date = new Date(),
): Promise<PolicyVersion> {
  checkBounds(policy);
  const current = await currentPolicy(table, tenantId);
  const version = current.version + 1;
  return auditedCommit(
    table,
    tenantId,
    {
      action: 'policy.adopt',
      actor,
      details: {
        version,
        replaces_version: current.version,
        proposal_id: source.proposalId,
        report_sha256: source.reportDigest,
      },
    },
    async (commit) => {
      const adopted = {
        tenant_id: tenantId,
        version,
        policy,
        adopted_at: isoSeconds(at),
        adopted_by: actor,
        proposal_id: source.proposalId,
        report_digest: source.reportDigest,
      };
      await commit([policyWrites.adopt(adopted), ...alongside]);
      return adopted;
    },
  );
}
