import * as v from 'valibot';
import { AUDIT_ACTOR_ROLES } from '../audit/trail.ts';
import { ConflictError } from '../common/errors.ts';
import { keys } from '../store/schema.ts';
import { parseItem, queryPage, readItem, type Table } from '../store/table.ts';
import type { TableWrite } from '../store/write.ts';
import { type PolicyBody, SERVICE_POLICY } from './policy.ts';

/**
 * The policy-version item (keys.policyVersion): one per version a tenant adopted, never updated
 * or deleted, so a screen's receipt can always name the version it was made under and a replay
 * can read it back. The version in force is the highest; version 0, the service's policy, is not
 * stored (a tenant without versions is under it).
 */
const objectOf = <T>() => v.custom<T>((value) => typeof value === 'object' && value !== null);

export const PolicyVersionItemSchema = v.object({
  pk: v.string(),
  sk: v.string(),
  entity: v.literal('policy-version'),
  tenant_id: v.string(),
  version: v.number(),
  policy: objectOf<PolicyBody>(),
  adopted_at: v.string(),
  adopted_by: v.object({ user_id: v.string(), role: v.picklist(AUDIT_ACTOR_ROLES) }),
  /** The proposal it came from (null: the policy a tenant was created with). */
  proposal_id: v.nullable(v.string()),
  /** SHA-256 of the sandbox report the proposal was applied on (null without one). */
  report_digest: v.nullable(v.string()),
});
export type PolicyVersionItem = v.InferOutput<typeof PolicyVersionItemSchema>;

/** A version as the service reads it: the service's own (0) when the tenant adopted none. */
export type PolicyVersion = Omit<PolicyVersionItem, 'pk' | 'sk' | 'entity' | 'adopted_by'> & {
  adopted_by: PolicyVersionItem['adopted_by'] | null;
};

export const serviceVersion = (tenantId: string): PolicyVersion => ({
  tenant_id: tenantId,
  version: 0,
  policy: SERVICE_POLICY,
  adopted_at: '1970-01-01T00:00:00Z',
  adopted_by: null,
  proposal_id: null,
  report_digest: null,
});

const PREFIX = 'POLICY#';
const parse = (item: Record<string, unknown>): PolicyVersion => {
  const { pk: _pk, sk: _sk, entity: _entity, ...version } = parseItem(PolicyVersionItemSchema, item);
  return version;
};

export const policyWrites = {
  /** Adopts `version`, which must be the next one: two adoptions of one version cannot both land. */
  adopt(item: Omit<PolicyVersionItem, 'pk' | 'sk' | 'entity'>): TableWrite {
    return {
      what: 'policy version',
      Put: {
        Item: { ...keys.policyVersion(item.tenant_id, item.version), entity: 'policy-version', ...item },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
      refused: () =>
        new ConflictError(
          `Policy version ${item.version} was adopted meanwhile; read the policy again (GET /settings/policy)`,
        ),
    };
  },
};

/** The tenant's policy in force: its highest version (a consistent Query, newest first, one item). */
export async function currentPolicy(table: Table, tenantId: string): Promise<PolicyVersion> {
  const { items } = await queryPage(
    table,
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenantId), ':prefix': PREFIX },
      ConsistentRead: true,
    },
    1,
  );
  return items[0] ? parse(items[0]) : serviceVersion(tenantId);
}

/** One version of the tenant's policy, or undefined when it never adopted it (0 is always there). */
export async function policyVersion(
  table: Table,
  tenantId: string,
  version: number,
): Promise<PolicyVersion | undefined> {
  if (version === 0) return serviceVersion(tenantId);
  const item = await readItem(table, keys.policyVersion(tenantId, version));
  return item ? parse(item) : undefined;
}
