import { randomBytes } from 'node:crypto';
import * as v from 'valibot';
import { AUDIT_ACTOR_ROLES } from '../audit/trail.ts';
import { ConflictError } from '../common/errors.ts';
import { isProposalId } from '../common/ids.ts';
import { keys } from '../store/schema.ts';
import { parseItem, queryPage, readItem, type Table } from '../store/table.ts';
import type { TableWrite } from '../store/write.ts';
import type { PolicyBody } from './policy.ts';
import type { SandboxReport } from './sandbox-report.ts';

/**
 * The policy-proposal item (keys.policyProposal): a proposed policy (issue 40, item 2), the
 * sandbox job that replays the tenant's past screens under it (its progress, and between the job's
 * steps where it left off and the report so far), the report once it exists with its SHA-256, and
 * the application (who, when, which version). The report's shape is the sandbox's
 * (lib/screening/policy-sandbox.ts `SandboxReport`); this keeper stores it as it is given.
 *
 * Status: `running` (the sandbox job has not finished), `reported` (the report exists: the
 * proposal may be applied), `applied`, `failed` (the job failed for good). A proposal made on a
 * version that is no longer in force is shown `superseded` (lib/policy/policy-proposals.ts).
 */
const objectOf = <T>() => v.custom<T>((value) => typeof value === 'object' && value !== null);
const actorSchema = v.object({ user_id: v.string(), role: v.picklist(AUDIT_ACTOR_ROLES) });

export const PROPOSAL_STATUSES = ['running', 'reported', 'applied', 'failed'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

export const ProposalItemSchema = v.object({
  pk: v.string(),
  sk: v.string(),
  entity: v.literal('policy-proposal'),
  tenant_id: v.string(),
  proposal_id: v.string(),
  author: actorSchema,
  /** Who besides the author could hold the key it proposed with (lib/tenancy/key-lineage.ts): four eyes. */
  author_key_lineage: v.array(v.string()),
  created_at: v.string(),
  /** The version in force when it was proposed: it is applied as the next one, or not at all. */
  based_on_version: v.number(),
  policy: objectOf<PolicyBody>(),
  /** The past screens replayed: screened from `since` (inclusive) to `until` (exclusive). */
  period: v.object({ since: v.string(), until: v.string() }),
  status: v.picklist(PROPOSAL_STATUSES),
  /** Screens replayed (or skipped) so far, of `total` (null until the job counted them). */
  progress: v.object({ done: v.number(), total: v.nullable(v.number()) }),
  /** The job's step: each queued step carries the number it expects, so a redelivery never counts twice. */
  step: v.number(),
  /** The step whose message was queued last (a step re-sends its successor only when it is not). */
  queued_step: v.number(),
  /** Where the next step reads on (DynamoDB's LastEvaluatedKey of the screens), null at the start. */
  position: v.nullable(objectOf<Record<string, unknown>>()),
  /** While the period's screens are counted (before the replay): those counted, and where it stopped. */
  counting: v.optional(
    v.nullable(v.object({ counted: v.number(), position: objectOf<Record<string, unknown>>() })),
  ),
  /** The report so far, while running. */
  partial: v.nullable(objectOf<SandboxReport>()),
  report: v.nullable(objectOf<SandboxReport>()),
  report_digest: v.nullable(v.string()),
  reported_at: v.nullable(v.string()),
  failure: v.nullable(v.string()),
  applied: v.nullable(v.object({ by: actorSchema, at: v.string(), version: v.number() })),
});
export type ProposalItem = v.InferOutput<typeof ProposalItemSchema>;
export type Proposal = Omit<ProposalItem, 'pk' | 'sk' | 'entity'>;

const PREFIX = 'PROPOSAL#';

/** `PRP-<YYYYMMDDHHMMSSmmm>-<8 hex>`: newest sorts last in the key, so a reversed Query is newest first. */
export function newProposalId(at: Date): string {
  return `PRP-${at.toISOString().replace(/[-:TZ.]/g, '')}-${randomBytes(4).toString('hex')}`;
}

const parse = (item: Record<string, unknown>): Proposal => {
  const { pk: _pk, sk: _sk, entity: _entity, ...proposal } = parseItem(ProposalItemSchema, item);
  return proposal;
};

const key = (tenantId: string, proposalId: string) => keys.policyProposal(tenantId, proposalId);

/**
 * An update of one proposal, every attribute it names aliased (`#step`: several are DynamoDB
 * reserved words); DynamoDB refuses an alias the expressions do not use, so only theirs are given.
 */
function proposalUpdate(
  tenantId: string,
  proposalId: string,
  expressions: { update: string; condition: string },
  values: Record<string, unknown>,
): TableWrite {
  const used = `${expressions.update} ${expressions.condition}`.match(/#\w+/g) ?? [];
  return {
    what: 'policy proposal',
    Update: {
      Key: key(tenantId, proposalId),
      UpdateExpression: expressions.update,
      ConditionExpression: expressions.condition,
      ExpressionAttributeNames: Object.fromEntries(used.map((alias) => [alias, alias.slice(1)])),
      ExpressionAttributeValues: values,
    },
  };
}

/** A step of a running sandbox lands: the next step number, the progress, and `set`; once per step. */
const stepWrite = (
  tenantId: string,
  proposalId: string,
  step: number,
  set: string,
  values: Record<string, unknown>,
) =>
  proposalUpdate(
    tenantId,
    proposalId,
    {
      update: `SET #step = :next, #progress = :progress, ${set}`,
      condition: '#status = :running AND #step = :step',
    },
    { ':next': step + 1, ':step': step, ':running': 'running', ...values },
  );

export const proposalWrites = {
  create(proposal: Proposal): TableWrite {
    return {
      what: 'policy proposal',
      Put: {
        Item: { ...key(proposal.tenant_id, proposal.proposal_id), entity: 'policy-proposal', ...proposal },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  },

  /**
   * One step of the sandbox done: `step` must still be the proposal's (a redelivered step writes
   * nothing), and it must still be running.
   */
  stepDone(
    tenantId: string,
    proposalId: string,
    step: number,
    state: { done: number; total: number | null; position: Record<string, unknown>; partial: SandboxReport },
  ): TableWrite {
    return stepWrite(tenantId, proposalId, step, '#position = :position, #partial = :partial', {
      ':progress': { done: state.done, total: state.total },
      ':position': state.position,
      ':partial': state.partial,
    });
  },

  /** A step that counted part of the period's screens, before any is replayed. */
  counted(
    tenantId: string,
    proposalId: string,
    step: number,
    counting: { counted: number; position: Record<string, unknown> },
  ): TableWrite {
    return stepWrite(tenantId, proposalId, step, '#counting = :counting', {
      ':progress': { done: 0, total: null },
      ':counting': counting,
    });
  },

  /** The last step: the report and its digest kept with the proposal, which may now be applied. */
  reported(
    tenantId: string,
    proposalId: string,
    step: number,
    outcome: { done: number; total: number; report: SandboxReport; digest: string; at: string },
  ): TableWrite {
    return stepWrite(
      tenantId,
      proposalId,
      step,
      '#status = :reported, #position = :none, #partial = :none, #report = :report, #report_digest = :digest, #reported_at = :at',
      {
        ':progress': { done: outcome.done, total: outcome.total },
        ':reported': 'reported',
        ':none': null,
        ':report': outcome.report,
        ':digest': outcome.digest,
        ':at': outcome.at,
      },
    );
  },

  /** The message of `step` was queued (after the step before it landed). */
  queued(tenantId: string, proposalId: string, step: number): TableWrite {
    return proposalUpdate(
      tenantId,
      proposalId,
      { update: 'SET #queued_step = :step', condition: '#step = :step' },
      { ':step': step },
    );
  },

  /** The job failed for good: the proposal can never be applied (propose again). */
  failed(tenantId: string, proposalId: string, failure: string): TableWrite {
    return proposalUpdate(
      tenantId,
      proposalId,
      {
        update: 'SET #status = :failed, #failure = :failure, #partial = :none',
        condition: '#status = :running',
      },
      { ':failed': 'failed', ':running': 'running', ':failure': failure, ':none': null },
    );
  },

  /**
   * Applied, in the transaction that adopts its version: only a reported proposal, once (two
   * admins applying at once: one lands, the other is refused with 409).
   */
  applied(
    tenantId: string,
    proposalId: string,
    applied: { by: { user_id: string; role: ProposalItem['author']['role'] }; at: string; version: number },
  ): TableWrite {
    return {
      ...proposalUpdate(
        tenantId,
        proposalId,
        { update: 'SET #status = :applied, #applied = :record', condition: '#status = :reported' },
        { ':applied': 'applied', ':reported': 'reported', ':record': applied },
      ),
      refused: (found) =>
        new ConflictError(
          `Proposal ${proposalId} is ${String(found?.status ?? 'gone')}: it was applied meanwhile, or cannot be applied`,
        ),
    };
  },
};

/** One proposal of the tenant, or undefined (an id that is not a proposal id reads nothing). */
export async function findProposal(
  table: Table,
  tenantId: string,
  proposalId: string,
): Promise<Proposal | undefined> {
  if (!isProposalId(proposalId)) return undefined;
  const item = await readItem(table, key(tenantId, proposalId));
  return item ? parse(item) : undefined;
}

/** A page of the tenant's proposals, newest first, after the proposal `afterId`. */
export async function proposalPage(
  table: Table,
  tenantId: string,
  afterId: string | undefined,
  limit: number,
): Promise<{ items: Proposal[]; more: boolean }> {
  const { items, more } = await queryPage(
    table,
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenantId), ':prefix': PREFIX },
      ExclusiveStartKey: afterId ? key(tenantId, afterId) : undefined,
    },
    limit,
  );
  return { items: items.map(parse), more };
}
