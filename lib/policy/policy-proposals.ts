import * as v from 'valibot';
import { type AuditActor, auditedCommit } from '../audit/trail.ts';
import { ConflictError, ForbiddenError, InvalidRequestError, NotFoundError } from '../common/errors.ts';
import { EXPORT_MAX_SPAN_DAYS, moment, parseMoment } from '../common/export-query.ts';
import type { ListQuery } from '../common/fields.ts';
import { strictBody } from '../common/fields.ts';
import { DAY_MS, isoSeconds } from '../common/time.ts';
import type { BatchQueue } from '../queue/batch-queue.ts';
import { decodeCursor, encodeCursor } from '../store/cursor.ts';
import type { Table } from '../store/table.ts';
import { sendWrite } from '../store/write.ts';
import { type Principal, requireRole } from '../tenancy/auth.ts';
import { sharedCredential } from '../tenancy/key-lineage.ts';
import { PolicyObjectSchema } from './policy.ts';
import { adoptPolicy, checkBounds, type PolicyView, readPolicy } from './policy-settings.ts';
import { currentPolicy } from './policy-table.ts';
import {
  findProposal,
  newProposalId,
  type Proposal,
  type ProposalStatus,
  proposalPage,
  proposalWrites,
} from './proposal-table.ts';
import { sandboxJobBody } from './sandbox-job.ts';
import { orderedReport, type SandboxReport } from './sandbox-report.ts';

/**
 * Policy proposals (issue 40, items 2 and 3; docs/policies.md): an admin proposes a policy, the
 * sandbox job replays the tenant's past screens of a period under it (lib/screening/
 * policy-sandbox-job.ts) and keeps the report with the proposal, and another admin applies it once
 * the report exists: its version is adopted in one transaction with the `policy.adopt` audit entry
 * naming the report's SHA-256.
 */

/** The past screens a proposal replays when it names no period: the 90 days before now. */
export const PROPOSAL_DEFAULT_DAYS = 90;

/** POST /settings/policy/proposals. */
export const ProposalRequestSchema = strictBody({
  policy: v.pipe(
    PolicyObjectSchema,
    v.description(
      'The proposed policy, whole (GET /settings/policy shows the one in force); within the service’s bounds',
    ),
  ),
  since: moment(
    `Start of the period of past screens to replay, inclusive: a date (UTC) or an ISO 8601 time with offset. Default: ${PROPOSAL_DEFAULT_DAYS} days before \`until\``,
  ),
  until: moment(
    'End of the period, exclusive: a date (the period then includes that whole day, UTC) or an ISO 8601 time with offset. Default: now',
  ),
});
export type ProposalRequest = v.InferOutput<typeof ProposalRequestSchema>;

/** A proposal as the API shows it: the job's own state (where it left off, the partial report) is not. */
export interface ProposalView {
  proposal_id: string;
  status: ProposalStatus | 'superseded';
  author: AuditActor;
  created_at: string;
  based_on_version: number;
  policy: Proposal['policy'];
  period: Proposal['period'];
  progress: Proposal['progress'];
  report: SandboxReport | null;
  report_digest: string | null;
  reported_at: string | null;
  failure: string | null;
  applied: Proposal['applied'];
  link: string;
}

function viewOf(proposal: Proposal, versionInForce: number): ProposalView {
  const open = proposal.status === 'running' || proposal.status === 'reported';
  return {
    proposal_id: proposal.proposal_id,
    // A version adopted since it was proposed: it can no longer be applied.
    status: open && proposal.based_on_version !== versionInForce ? 'superseded' : proposal.status,
    author: proposal.author,
    created_at: proposal.created_at,
    based_on_version: proposal.based_on_version,
    policy: proposal.policy,
    period: proposal.period,
    progress: proposal.progress,
    report: proposal.report ? orderedReport(proposal.report) : null,
    report_digest: proposal.report_digest,
    reported_at: proposal.reported_at,
    failure: proposal.failure,
    applied: proposal.applied,
    link: `/settings/policy/proposals/${proposal.proposal_id}`,
  };
}

/** The period a request names, or the default; 400 naming the field otherwise. */
export function proposalPeriod(request: Pick<ProposalRequest, 'since' | 'until'>, now: Date) {
  const until = request.until ? parseMoment(request.until.trim()) : undefined;
  // Now, to the next whole second: a screen made this very second is in the period.
  const untilAt = until
    ? new Date(until.at.getTime() + (until.wholeDay ? DAY_MS : 0))
    : new Date(Math.floor(now.getTime() / 1000) * 1000 + 1000);
  const since = request.since ? parseMoment(request.since.trim()) : undefined;
  const sinceAt = since ? since.at : new Date(untilAt.getTime() - PROPOSAL_DEFAULT_DAYS * DAY_MS);
  if (sinceAt.getTime() >= untilAt.getTime()) {
    throw new InvalidRequestError('since: must be before until', undefined, [
      { field: 'since', code: 'check', message: 'must be before until' },
    ]);
  }
  if (untilAt.getTime() - sinceAt.getTime() > EXPORT_MAX_SPAN_DAYS * DAY_MS) {
    const message = `the period spans at most ${EXPORT_MAX_SPAN_DAYS} days`;
    throw new InvalidRequestError(`since: ${message}`, undefined, [
      { field: 'since', code: 'check', message },
    ]);
  }
  // Stored as every timestamp is (whole seconds, UTC), so it compares with `screened_at` as text.
  return { since: isoSeconds(sinceAt), until: isoSeconds(untilAt) };
}

/**
 * Stores the proposal (audited: `policy.propose`) and queues its sandbox job. Admins only; a
 * policy outside the service's bounds is a 400 naming every broken bound.
 */
export async function proposePolicy(
  services: { table: Table; batchQueue(): BatchQueue },
  caller: Principal,
  request: ProposalRequest,
  now: Date = new Date(),
): Promise<ProposalView> {
  requireRole(caller, 'admin', 'Proposing a screening policy');
  checkBounds(request.policy, 'policy');
  const period = proposalPeriod(request, now);
  const { table } = services;
  const inForce = await currentPolicy(table, caller.tenantId);
  const proposal: Proposal = {
    tenant_id: caller.tenantId,
    proposal_id: newProposalId(now),
    author: { user_id: caller.userId, role: caller.role },
    author_key_lineage: [...(caller.keyLineage ?? [])],
    created_at: isoSeconds(now),
    based_on_version: inForce.version,
    policy: request.policy,
    period,
    status: 'running',
    progress: { done: 0, total: null },
    step: 0,
    queued_step: 0,
    counting: null,
    position: null,
    partial: null,
    report: null,
    report_digest: null,
    reported_at: null,
    failure: null,
    applied: null,
  };
  await auditedCommit(
    table,
    caller.tenantId,
    {
      action: 'policy.propose',
      actor: proposal.author,
      details: {
        proposal_id: proposal.proposal_id,
        based_on_version: proposal.based_on_version,
        since: period.since,
        until: period.until,
      },
    },
    (commit) => commit([proposalWrites.create(proposal)]),
  );
  const { failed } = await services
    .batchQueue()
    .sendAll([sandboxJobBody(caller.tenantId, proposal.proposal_id, 0)]);
  if (failed.length > 0) {
    const failure = 'The sandbox job could not be queued; propose the policy again';
    await sendWrite(table, proposalWrites.failed(caller.tenantId, proposal.proposal_id, failure));
    return viewOf({ ...proposal, status: 'failed', failure }, inForce.version);
  }
  return viewOf(proposal, inForce.version);
}

async function proposalOf(table: Table, caller: Principal, proposalId: string) {
  const proposal = await findProposal(table, caller.tenantId, proposalId);
  // Another tenant's proposal is as missing as one that never was.
  if (!proposal) throw new NotFoundError(`No policy proposal ${proposalId.slice(0, 60)} in this tenant`);
  return proposal;
}

/** GET /settings/policy/proposals/{id}: status, progress and (once it exists) the report. Admins. */
export async function readProposal(
  table: Table,
  caller: Principal,
  proposalId: string,
): Promise<ProposalView> {
  requireRole(caller, 'admin', 'Reading policy proposals');
  const proposal = await proposalOf(table, caller, proposalId);
  return viewOf(proposal, (await currentPolicy(table, caller.tenantId)).version);
}

/** GET /settings/policy/proposals: newest first, without their reports (each has its link). Admins. */
export async function listProposals(
  table: Table,
  caller: Principal,
  query: ListQuery,
): Promise<{ proposals: (ProposalView & { report: null })[]; next_cursor: string | null }> {
  requireRole(caller, 'admin', 'Reading policy proposals');
  const after = query.cursor ? decodeCursor(query.cursor, 'proposals', caller.tenantId) : undefined;
  const [{ items, more }, inForce] = await Promise.all([
    proposalPage(table, caller.tenantId, after, query.limit),
    currentPolicy(table, caller.tenantId),
  ]);
  const last = items.at(-1);
  return {
    proposals: items.map((proposal) => ({ ...viewOf(proposal, inForce.version), report: null })),
    next_cursor: more && last ? encodeCursor('proposals', caller.tenantId, last.proposal_id) : null,
  };
}

/**
 * POST /settings/policy/proposals/{id}/apply: four eyes. An admin other than its author (and who
 * never held the author's key) applies a proposal whose report exists; its policy is adopted as
 * the next version in one transaction with the proposal marked applied and the `policy.adopt`
 * entry naming the report's SHA-256. 403 for the author, 409 before the report exists, once
 * applied, or when another version was adopted since it was proposed (two admins at once: one
 * lands, the other is 409).
 */
export async function applyProposal(
  table: Table,
  caller: Principal,
  proposalId: string,
  now: Date = new Date(),
): Promise<PolicyView> {
  requireRole(caller, 'admin', 'Applying a policy proposal');
  const proposal = await proposalOf(table, caller, proposalId);
  if (proposal.author.user_id === caller.userId) {
    throw new ForbiddenError(
      `Proposal ${proposalId}: you proposed it yourself; another admin must apply it (four-eyes principle)`,
      'four_eyes_required',
    );
  }
  const shared = sharedCredential(
    { user_id: proposal.author.user_id, lineages: [proposal.author_key_lineage] },
    { user_id: caller.userId, lineages: [caller.keyLineage] },
  );
  if (shared)
    throw new ForbiddenError(`Proposal ${proposalId}: four-eyes principle: ${shared}`, 'four_eyes_required');
  if (proposal.status === 'running') {
    throw new ConflictError(
      `Proposal ${proposalId}: its sandbox report does not exist yet (${proposal.progress.done} of ${proposal.progress.total ?? 'an uncounted number of'} screens replayed); apply it once the report exists`,
    );
  }
  if (proposal.status !== 'reported' || !proposal.report_digest) {
    throw new ConflictError(`Proposal ${proposalId} is ${proposal.status}: it cannot be applied`);
  }
  const actor = { user_id: caller.userId, role: caller.role };
  await adoptPolicy(
    table,
    caller.tenantId,
    actor,
    proposal.policy,
    { proposalId, reportDigest: proposal.report_digest, basedOn: proposal.based_on_version },
    [
      proposalWrites.applied(caller.tenantId, proposalId, {
        by: actor,
        at: isoSeconds(now),
        version: proposal.based_on_version + 1,
      }),
    ],
    now,
  );
  return readPolicy(table, caller);
}
