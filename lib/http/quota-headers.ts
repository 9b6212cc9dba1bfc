import type { Table } from '../store/table.ts';
import type { Principal } from '../tenancy/auth.ts';
import { getMonthlyUsage, type UsageSeen, usageAlreadySeen } from '../tenancy/quota.ts';

/**
 * The monthly screen quota of an authenticated caller's tenant, in the header fields of the IETF
 * draft "RateLimit header fields for HTTP" (draft-ietf-httpapi-ratelimit-headers-10):
 *
 *   RateLimit-Policy: "monthly";q=<screens per month>;w=<seconds in this calendar month>
 *   RateLimit: "monthly";r=<screens remaining>;t=<seconds until the month ends>
 *
 * Quota months are UTC calendar months, so the window is the current month's length (28 to 31
 * days) and the reset is the start of the next one. The draft requires a quota (`q`), which an
 * unlimited plan does not have: those responses carry `Quota-Unlimited: ?1` (a structured-field
 * boolean) instead of the two RateLimit fields.
 *
 * The usage count costs no read when the request already read or wrote the usage item (every
 * charge, refund and 429 returns it); otherwise it is one consistent GetItem of that item.
 */
export async function quotaHeaders(
  table: Table,
  principal: Principal,
  seen: UsageSeen,
  now: Date = new Date(),
): Promise<Record<string, string>> {
  const limit = principal.plan.monthly_screens;
  if (limit === null) return { 'quota-unlimited': '?1' };
  const used =
    usageAlreadySeen(seen, principal.tenantId, now) ??
    (await getMonthlyUsage(table, principal.tenantId, now));
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const monthEnd = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  const window = (monthEnd - monthStart) / 1000;
  const reset = Math.ceil((monthEnd - now.getTime()) / 1000);
  return {
    'ratelimit-policy': `"monthly";q=${limit};w=${window}`,
    ratelimit: `"monthly";r=${Math.max(0, limit - used)};t=${reset}`,
  };
}
