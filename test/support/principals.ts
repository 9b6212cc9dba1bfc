import type { Table } from '../../lib/store/table.ts';
import type { Principal } from '../../lib/tenancy/auth.ts';
import { PLANS } from '../../lib/tenancy/plans.ts';
import { createTenant } from '../../lib/tenancy/tenants.ts';

/** A new Growth tenant, and its admin as the principal the use cases take. */
export async function growthAdmin(table: Table, name: string): Promise<Principal> {
  const { tenant, admin } = await createTenant(table, { name, plan: 'growth' });
  return {
    tenantId: tenant.tenant_id,
    tenantName: tenant.name,
    userId: admin.user.user_id,
    userName: admin.user.name,
    role: 'admin',
    plan: PLANS.growth,
  };
}
