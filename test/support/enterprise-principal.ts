import type { Principal } from '../../lib/tenancy/auth.ts';
import { PLANS } from '../../lib/tenancy/plans.ts';

/** A user of an Enterprise tenant as the use cases take one (no stored tenant or user needed). */
export function enterprisePrincipal(tenantId: string, userId: string, role: 'admin' | 'analyst'): Principal {
  return {
    tenantId,
    tenantName: tenantId,
    userId,
    userName: userId,
    role,
    plan: PLANS.enterprise,
    keyLineage: [],
  };
}
