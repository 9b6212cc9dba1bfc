import { InvalidRequestError, NotFoundError } from '../common/errors.ts';
import type { Table } from '../store/table.ts';
import { issueApiKey, newId } from './api-keys.ts';
import { type KeyIssuer, lineageOfNewKey, OPERATIONS_ISSUER } from './key-lineage.ts';
import type { PlanId } from './plans.ts';
import type { Role } from './roles.ts';
import {
  createTenantItem,
  getTenant,
  releaseAnalystSeat,
  reserveAnalystSeat,
  type Tenant,
} from './tenant-table.ts';
import { createUserItem, type User } from './user-table.ts';

// The reads and the plan change are the tenant and user items' own operations (tenant-table.ts,
// user-table.ts), named here too for the features and tools that read them through this module.
export { changePlan, getTenant, listTenants, type Tenant } from './tenant-table.ts';
export { getUser, type User } from './user-table.ts';

export interface NewUser {
  user: Omit<User, 'key_hash'>;
  /** The only time the key is visible. */
  api_key: string;
}

const now = () => new Date().toISOString();

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
  await createTenantItem(table, tenant);
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
    await createUserItem(table, user);
  } catch (error) {
    if (input.role === 'analyst') await releaseAnalystSeat(table, tenantId);
    throw error;
  }
  const { key_hash: _hash, ...visible } = user;
  return { user: visible, api_key: issued.key };
}
