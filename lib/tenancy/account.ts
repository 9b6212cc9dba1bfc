import type { Table } from '../store/table.ts';
import type { Principal } from './auth.ts';
import { getMonthlyUsage } from './quota.ts';
import { usageMonth } from './usage-table.ts';

/** GET /me: the caller, their tenant, the plan with its limits and this month's usage. */
export async function describeAccount(table: Table, principal: Principal, at: Date = new Date()) {
  const used = await getMonthlyUsage(table, principal.tenantId, at);
  const allowed = principal.plan.monthly_screens;
  return {
    user: { user_id: principal.userId, name: principal.userName, role: principal.role },
    role: principal.role,
    tenant: { tenant_id: principal.tenantId, name: principal.tenantName },
    plan: {
      id: principal.plan.id,
      name: principal.plan.name,
      monthly_screens: allowed,
      analyst_seats: principal.plan.analyst_seats,
      batch: principal.plan.batch,
      requests_per_second: principal.plan.requests_per_second,
      open_streams: principal.plan.open_streams,
    },
    usage: {
      month: usageMonth(at),
      screens_used: used,
      screens_allowed: allowed,
      screens_remaining: allowed === null ? null : Math.max(0, allowed - used),
    },
  };
}
