import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { ConflictError, InvalidRequestError, NotFoundError } from '../common/errors.ts';
import { INDEXES, indexKeys, keys } from '../store/schema.ts';
import {
  getAll,
  isConditionalCheckFailed,
  itemOfConditionFailure,
  parseItem,
  queryAll,
  type Table,
} from '../store/table.ts';
import { issueApiKey, newId } from './api-keys.ts';
import { type KeyIssuer, lineageOfNewKey, OPERATIONS_ISSUER } from './key-lineage.ts';
import { PLANS, type PlanId } from './plans.ts';
import { ROLES, type Role } from './roles.ts';

export interface Tenant {
  tenant_id: string;
  name: string;
  plan: PlanId;
  /** Analysts hold the plan's seats; admins do not. */
  analyst_count: number;
  created_at: string;
}

export const USER_STATUSES = ['active', 'disabled'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export interface User {
  tenant_id: string;
  user_id: string;
  name: string;
  role: Role;
  /** Absent once the user is disabled: no key of theirs can match. */
  key_hash?: string;
  key_hint?: string;
  key_issued_at?: string;
  /**
   * Who caused the current key: the user themself (a rotation), an admin, or `ops-cli`; and the
   * tenant users besides the holder who could hold it (lib/tenancy/key-lineage.ts). Absent on keys
   * issued before lineages were recorded.
   */
  key_issued_by?: string;
  key_lineage?: string[];
  created_at: string;
  /** Absent on users created before users could be disabled: active. */
  status?: UserStatus;
  disabled_at?: string;
  disabled_by?: string;
}

const UserSchema = v.object({
  tenant_id: v.string(),
  user_id: v.string(),
  name: v.string(),
  role: v.picklist(ROLES),
  key_hash: v.optional(v.string()),
  key_hint: v.optional(v.string()),
  key_issued_at: v.optional(v.string()),
  key_issued_by: v.optional(v.string()),
  key_lineage: v.optional(v.array(v.string())),
  created_at: v.string(),
  status: v.optional(v.picklist(USER_STATUSES)),
  disabled_at: v.optional(v.string()),
  disabled_by: v.optional(v.string()),
});

/** A user item as stored, parsed (not cast). */
export function parseUser(item: Record<string, unknown>): User {
  return parseItem(UserSchema, item);
}

export interface NewUser {
  user: Omit<User, 'key_hash'>;
  /** The only time the key is visible. */
  api_key: string;
}

const now = () => new Date().toISOString();

function tenantFromItem(item: Record<string, unknown>): Tenant {
  return {
    tenant_id: item.tenant_id as string,
    name: item.name as string,
    plan: item.plan as PlanId,
    analyst_count: (item.analyst_count as number) ?? 0,
    created_at: item.created_at as string,
  };
}

export async function getTenant(table: Table, tenantId: string): Promise<Tenant | undefined> {
  const { Item } = await table.doc.send(
    new GetCommand({ TableName: table.name, Key: keys.tenant(tenantId) }),
  );
  return Item ? tenantFromItem(Item) : undefined;
}

export async function listTenants(table: Table): Promise<Tenant[]> {
  const items = await queryAll(table, {
    IndexName: INDEXES.tenants.name,
    KeyConditionExpression: `${INDEXES.tenants.partitionKey} = :pk`,
    ExpressionAttributeValues: { ':pk': keys.tenantsIndex },
  });
  return items.map(tenantFromItem);
}

/** Creates a tenant on a plan together with its first admin, whose key is returned once. */
export async function createTenant(
  table: Table,
  input: { name: string; plan: PlanId; adminName?: string; tenantId?: string; adminUserId?: string },
): Promise<{ tenant: Tenant; admin: NewUser }> {
  const name = input.name.trim();
  if (name.length < 2) throw new InvalidRequestError('name: must be at least 2 characters');
  const tenant: Tenant = {
    tenant_id: input.tenantId ?? newId('t'),
    name,
    plan: input.plan,
    analyst_count: 0,
    created_at: now(),
  };
  try {
    await table.doc.send(
      new PutCommand({
        TableName: table.name,
        Item: {
          ...keys.tenant(tenant.tenant_id),
          entity: 'tenant',
          ...indexKeys('tenants', keys.tenantsIndex, tenant.tenant_id),
          ...tenant,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new ConflictError(`tenant ${tenant.tenant_id} already exists`);
    throw error;
  }
  // Only operations creates tenants: the first admin's key reaches nobody else in the tenant.
  const admin = await addUser(table, tenant.tenant_id, {
    name: input.adminName ?? 'Administrator',
    userId: input.adminUserId,
    role: 'admin',
    issuer: OPERATIONS_ISSUER,
  });
  return { tenant, admin };
}

/**
 * Adds a user. An analyst takes one of the plan's seats: the seat is reserved by a conditional
 * increment on the tenant item first, so concurrent additions can never exceed the plan.
 * `issuer` is who receives the key (an admin through POST /users, or operations): it becomes the
 * key's lineage, which the four-eyes rule reads (lib/tenancy/key-lineage.ts).
 */
export async function addUser(
  table: Table,
  tenantId: string,
  input: { name: string; role: Role; userId?: string; issuer: KeyIssuer },
): Promise<NewUser> {
  const tenant = await getTenant(table, tenantId);
  if (!tenant) throw new NotFoundError(`tenant ${tenantId} not found`);
  if (input.role === 'analyst') await reserveAnalystSeat(table, tenant);
  const userId = input.userId ?? newId('u');
  const issued = issueApiKey(tenantId, userId);
  const user: User = {
    tenant_id: tenantId,
    user_id: userId,
    name: input.name.trim() || input.role,
    role: input.role,
    key_hash: issued.hash,
    key_hint: issued.hint,
    key_issued_at: now(),
    key_issued_by: input.issuer.user_id,
    key_lineage: lineageOfNewKey(input.issuer, userId),
    created_at: now(),
  };
  try {
    await table.doc.send(
      new PutCommand({
        TableName: table.name,
        Item: { ...keys.user(tenantId, userId), entity: 'user', ...user },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (input.role === 'analyst') await releaseAnalystSeat(table, tenantId);
    if (isConditionalCheckFailed(error)) throw new ConflictError(`user ${userId} already exists`);
    throw error;
  }
  const { key_hash: _hash, ...visible } = user;
  return { user: visible, api_key: issued.key };
}

async function reserveAnalystSeat(table: Table, tenant: Tenant): Promise<void> {
  const seats = PLANS[tenant.plan].analyst_seats;
  try {
    await table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: keys.tenant(tenant.tenant_id),
        UpdateExpression: 'ADD analyst_count :one',
        ConditionExpression:
          seats === null
            ? 'attribute_exists(pk)'
            : 'attribute_exists(pk) AND (attribute_not_exists(analyst_count) OR analyst_count < :seats)',
        ExpressionAttributeValues: seats === null ? { ':one': 1 } : { ':one': 1, ':seats': seats },
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error)) {
      throw new ConflictError(
        `the ${PLANS[tenant.plan].name} plan includes ${seats} analyst seat(s), all in use; change the plan to add analysts`,
      );
    }
    throw error;
  }
}

/** Gives back an analyst seat (a refused addition, a disabled analyst). */
export async function releaseAnalystSeat(table: Table, tenantId: string): Promise<void> {
  await table.doc.send(
    new UpdateCommand({
      TableName: table.name,
      Key: keys.tenant(tenantId),
      UpdateExpression: 'ADD analyst_count :minus',
      ExpressionAttributeValues: { ':minus': -1 },
    }),
  );
}

/** Moves a tenant to another plan; refused when it has more analysts than the new plan seats. */
export async function changePlan(table: Table, tenantId: string, plan: PlanId): Promise<Tenant> {
  const seats = PLANS[plan].analyst_seats;
  try {
    const { Attributes } = await table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: keys.tenant(tenantId),
        UpdateExpression: 'SET #plan = :plan',
        ConditionExpression:
          seats === null
            ? 'attribute_exists(pk)'
            : 'attribute_exists(pk) AND (attribute_not_exists(analyst_count) OR analyst_count <= :seats)',
        ExpressionAttributeNames: { '#plan': 'plan' },
        ExpressionAttributeValues: seats === null ? { ':plan': plan } : { ':plan': plan, ':seats': seats },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return tenantFromItem(Attributes!);
  } catch (error) {
    if (isConditionalCheckFailed(error)) {
      const found = await itemOfConditionFailure(table, error, keys.tenant(tenantId));
      if (!found) throw new NotFoundError(`tenant ${tenantId} not found`);
      throw new ConflictError(
        `tenant has ${found.analyst_count} analysts; the ${PLANS[plan].name} plan seats ${seats}`,
      );
    }
    throw error;
  }
}

/**
 * The user and their tenant in one consistent BatchGetItem: one round trip, the same request
 * whether or not either exists (authentication relies on that). Keys DynamoDB leaves unprocessed
 * (throttling) are asked again, a few times.
 */
export async function getUserAndTenant(
  table: Table,
  tenantId: string,
  userId: string,
): Promise<{ user?: User; tenant?: Tenant }> {
  const found = await getAll(table, [keys.user(tenantId, userId), keys.tenant(tenantId)]);
  const tenantItem = found.find((item) => item.sk === 'TENANT');
  const userItem = found.find((item) => item !== tenantItem);
  return {
    user: userItem ? parseUser(userItem) : undefined,
    tenant: tenantItem ? tenantFromItem(tenantItem) : undefined,
  };
}

export async function getUser(table: Table, tenantId: string, userId: string): Promise<User | undefined> {
  const { Item } = await table.doc.send(
    new GetCommand({ TableName: table.name, Key: keys.user(tenantId, userId), ConsistentRead: true }),
  );
  return Item ? parseUser(Item) : undefined;
}
