import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { AUDIT_ACTOR_ROLES, type AuditActor } from '../audit/trail.ts';
import { ConflictError, NotFoundError } from '../common/errors.ts';
import { INDEXES, indexKeys, keys } from '../store/schema.ts';
import { parseItem, queryAll, readItem, type Table } from '../store/table.ts';
import { sendWrite, type TableWrite, type UpdateWrite } from '../store/write.ts';
import { PLAN_IDS, PLANS, type PlanId } from './plans.ts';

/**
 * The tenant item (pk TENANT#<tid>, sk TENANT), in the tenants index (TENANTS / <tid>) for the
 * operator paths that list every tenant. It counts the analyst seats taken, and holds the tenant's
 * retention settings (lib/tenancy/retention.ts).
 */
const TenantItemSchema = v.object({
  tenant_id: v.string(),
  name: v.string(),
  plan: v.picklist(PLAN_IDS),
  /** Analysts hold the plan's seats; admins do not. */
  analyst_count: v.optional(v.number(), 0),
  created_at: v.string(),
  /** Absent until set, and once set back to none: screens are kept until deleted. */
  retention_days: v.optional(v.number()),
  retention_lock: v.optional(v.boolean()),
  /** The last change of the retention settings: when and by whom (absent until the first). */
  retention_changed_at: v.optional(v.string()),
  retention_changed_by: v.optional(v.object({ user_id: v.string(), role: v.picklist(AUDIT_ACTOR_ROLES) })),
});

/** The tenant as the service knows it (its retention settings are read on their own). */
const TenantSchema = v.pick(TenantItemSchema, ['tenant_id', 'name', 'plan', 'analyst_count', 'created_at']);
export type Tenant = v.InferOutput<typeof TenantSchema>;

const RetentionFieldsSchema = v.pick(TenantItemSchema, [
  'retention_days',
  'retention_lock',
  'retention_changed_at',
  'retention_changed_by',
]);
/** The retention settings as stored on the tenant item (absent ones never set). */
export type StoredRetention = v.InferOutput<typeof RetentionFieldsSchema>;

/** A tenant item as stored, parsed (not cast). */
export function parseTenant(item: Record<string, unknown>): Tenant {
  return parseItem(TenantSchema, item);
}

/** What the retention change was judged against, and what it sets. */
interface RetentionValues {
  retention_days: number | null;
  retention_lock: boolean;
}

/** The tenant item's writes, as values (lib/store/write.ts). */
export const tenantWrites = {
  /** A new tenant; refused (409) when the tenant id is taken. */
  create(tenant: Tenant): TableWrite {
    return {
      Put: {
        Item: {
          ...keys.tenant(tenant.tenant_id),
          entity: 'tenant',
          ...indexKeys('tenants', keys.tenantsIndex, tenant.tenant_id),
          ...tenant,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
      what: 'tenant',
      refused: () => new ConflictError(`tenant ${tenant.tenant_id} already exists`),
    };
  },

  /**
   * Takes one of the plan's analyst seats: a conditional increment, so concurrent additions can
   * never exceed the plan. Refused (409) when all are in use.
   */
  reserveAnalystSeat(tenant: Tenant): UpdateWrite {
    const seats = PLANS[tenant.plan].analyst_seats;
    return {
      Update: {
        Key: keys.tenant(tenant.tenant_id),
        UpdateExpression: 'ADD analyst_count :one',
        ConditionExpression:
          seats === null
            ? 'attribute_exists(pk)'
            : 'attribute_exists(pk) AND (attribute_not_exists(analyst_count) OR analyst_count < :seats)',
        ExpressionAttributeValues: seats === null ? { ':one': 1 } : { ':one': 1, ':seats': seats },
      },
      what: 'analyst seat',
      refused: () =>
        new ConflictError(
          `the ${PLANS[tenant.plan].name} plan includes ${seats} analyst seat(s), all in use; change the plan to add analysts`,
        ),
    };
  },

  /** Gives back an analyst seat (a refused addition, a disabled analyst). */
  releaseAnalystSeat(tenantId: string): UpdateWrite {
    return {
      Update: {
        Key: keys.tenant(tenantId),
        UpdateExpression: 'ADD analyst_count :minus',
        ExpressionAttributeValues: { ':minus': -1 },
      },
      what: 'analyst seat',
    };
  },

  /**
   * Moves the tenant to `plan`; refused when it has more analysts than the new plan seats (409
   * with the count found), or when there is no such tenant (404).
   */
  changePlan(tenantId: string, plan: PlanId): UpdateWrite {
    const seats = PLANS[plan].analyst_seats;
    return {
      Update: {
        Key: keys.tenant(tenantId),
        UpdateExpression: 'SET #plan = :plan',
        ConditionExpression:
          seats === null
            ? 'attribute_exists(pk)'
            : 'attribute_exists(pk) AND (attribute_not_exists(analyst_count) OR analyst_count <= :seats)',
        ExpressionAttributeNames: { '#plan': 'plan' },
        ExpressionAttributeValues: seats === null ? { ':plan': plan } : { ':plan': plan, ':seats': seats },
      },
      what: 'tenant plan',
      refused: (found) =>
        found
          ? new ConflictError(
              `tenant has ${found.analyst_count} analysts; the ${PLANS[plan].name} plan seats ${seats}`,
            )
          : new NotFoundError(`tenant ${tenantId} not found`),
    };
  },

  /**
   * Sets the retention settings `after`, conditional on them still being `before` (the values the
   * change was judged against): of two concurrent changes judged against the same old state, the
   * loser is refused (409).
   */
  setRetention(
    tenantId: string,
    before: RetentionValues,
    after: RetentionValues,
    changedBy: AuditActor,
    changedAt: string,
  ): UpdateWrite {
    return {
      Update: {
        Key: keys.tenant(tenantId),
        UpdateExpression:
          'SET retention_lock = :lock, retention_changed_at = :at, retention_changed_by = :by' +
          (after.retention_days === null ? ' REMOVE retention_days' : ', retention_days = :days'),
        ConditionExpression: `attribute_exists(pk) AND ${
          before.retention_days === null
            ? 'attribute_not_exists(retention_days)'
            : 'retention_days = :oldDays'
        } AND ${before.retention_lock ? 'retention_lock = :true' : '(attribute_not_exists(retention_lock) OR retention_lock = :false)'}`,
        ExpressionAttributeValues: {
          ':lock': after.retention_lock,
          ':at': changedAt,
          ':by': changedBy,
          ...(after.retention_days === null ? {} : { ':days': after.retention_days }),
          ...(before.retention_days === null ? {} : { ':oldDays': before.retention_days }),
          ...(before.retention_lock ? { ':true': true } : { ':false': false }),
        },
      },
      what: 'retention settings',
      refused: () =>
        new ConflictError('The retention settings changed meanwhile; read them again and resend'),
    };
  },
};

/** Stores a new tenant (409 when its id is taken). */
export async function createTenantItem(table: Table, tenant: Tenant): Promise<void> {
  await sendWrite(table, tenantWrites.create(tenant));
}

export async function getTenant(table: Table, tenantId: string): Promise<Tenant | undefined> {
  const item = await readItem(table, keys.tenant(tenantId), false);
  return item ? parseTenant(item) : undefined;
}

export async function listTenants(table: Table): Promise<Tenant[]> {
  const items = await queryAll(table, {
    IndexName: INDEXES.tenants.name,
    KeyConditionExpression: `${INDEXES.tenants.partitionKey} = :pk`,
    ExpressionAttributeValues: { ':pk': keys.tenantsIndex },
  });
  return items.map(parseTenant);
}

/** Takes one of the plan's analyst seats ({@link tenantWrites.reserveAnalystSeat}). */
export async function reserveAnalystSeat(table: Table, tenant: Tenant): Promise<void> {
  await sendWrite(table, tenantWrites.reserveAnalystSeat(tenant));
}

/** Gives back an analyst seat (a refused addition, a disabled analyst). */
export async function releaseAnalystSeat(table: Table, tenantId: string): Promise<void> {
  await sendWrite(table, tenantWrites.releaseAnalystSeat(tenantId));
}

/** Moves a tenant to another plan; refused when it has more analysts than the new plan seats. */
export async function changePlan(table: Table, tenantId: string, plan: PlanId): Promise<Tenant> {
  return parseTenant((await sendWrite(table, tenantWrites.changePlan(tenantId, plan), 'ALL_NEW'))!);
}

/**
 * The tenant's retention settings as stored (consistent read); undefined when there is no tenant
 * item.
 */
export async function getStoredRetention(
  table: Table,
  tenantId: string,
): Promise<StoredRetention | undefined> {
  const { Item } = await table.doc.send(
    new GetCommand({
      TableName: table.name,
      Key: keys.tenant(tenantId),
      ProjectionExpression: 'pk, retention_days, retention_lock, retention_changed_at, retention_changed_by',
      ConsistentRead: true,
    }),
  );
  return Item ? parseItem(RetentionFieldsSchema, Item) : undefined;
}

/** Sets the retention settings ({@link tenantWrites.setRetention}; 409 when they changed meanwhile). */
export async function setStoredRetention(
  table: Table,
  tenantId: string,
  before: RetentionValues,
  after: RetentionValues,
  changedBy: AuditActor,
  changedAt: string,
): Promise<void> {
  await sendWrite(table, tenantWrites.setRetention(tenantId, before, after, changedBy, changedAt));
}
