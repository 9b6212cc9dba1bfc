import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ForbiddenError, UnauthorizedError } from '../errors.ts';
import type { PlanFeature } from '../routes.ts';
import { isConditionalCheckFailed, keys, type Table } from '../store/table.ts';
import { hashApiKey, issueApiKey, keyMatchesHash, parseApiKey } from './api-keys.ts';
import { CHEAPEST_BATCH_PLAN, PLANS, type Plan } from './plans.ts';
import { getTenant, getUser, type Role, type Tenant } from './tenants.ts';

/** Who is calling: resolved from the X-API-Key on every authenticated request. */
export interface Principal {
  tenantId: string;
  tenantName: string;
  userId: string;
  userName: string;
  role: Role;
  plan: Plan;
}

/**
 * Tenant records (name, plan) change rarely, so each process keeps them for a few seconds: one
 * read fewer per request. The user record, which holds the key hash, is read every time, so a
 * rotated key is refused at once; a plan change reaches every instance within this many ms.
 */
export const TENANT_CACHE_MS = 5_000;
const tenantCache = new Map<string, { tenant: Tenant; until: number }>();

async function getTenantCached(table: Table, tenantId: string): Promise<Tenant | undefined> {
  const cacheKey = `${table.name}/${tenantId}`;
  const cached = tenantCache.get(cacheKey);
  if (cached && cached.until > Date.now()) return cached.tenant;
  const tenant = await getTenant(table, tenantId);
  if (tenant) tenantCache.set(cacheKey, { tenant, until: Date.now() + TENANT_CACHE_MS });
  return tenant;
}

/**
 * Resolves a presented key to its principal. Every failure (malformed, unknown tenant or user,
 * rotated key) is the same UnauthorizedError, so a caller learns nothing about which keys exist.
 */
export async function authenticate(table: Table, apiKey: string | undefined): Promise<Principal> {
  const ids = apiKey ? parseApiKey(apiKey.trim()) : undefined;
  if (!apiKey || !ids) throw new UnauthorizedError();
  const [user, tenant] = await Promise.all([
    getUser(table, ids.tenantId, ids.userId),
    getTenantCached(table, ids.tenantId),
  ]);
  if (!user || !tenant || !keyMatchesHash(apiKey.trim(), user.key_hash)) throw new UnauthorizedError();
  return {
    tenantId: tenant.tenant_id,
    tenantName: tenant.name,
    userId: user.user_id,
    userName: user.name,
    role: user.role,
    plan: PLANS[tenant.plan],
  };
}

/**
 * Replaces the caller's key. One conditional write on the user record: it succeeds only while the
 * stored hash is still the presented key's, so of two concurrent rotations exactly one wins and
 * exactly one key works afterwards; the loser gets 401 like any caller with a dead key.
 */
export async function rotateApiKey(
  table: Table,
  principal: Principal,
  presentedKey: string,
): Promise<{ api_key: string; key_hint: string; issued_at: string }> {
  const issued = issueApiKey(principal.tenantId, principal.userId);
  const issuedAt = new Date().toISOString();
  try {
    await table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: keys.user(principal.tenantId, principal.userId),
        UpdateExpression: 'SET key_hash = :new, key_hint = :hint, key_issued_at = :at',
        ConditionExpression: 'key_hash = :old',
        ExpressionAttributeValues: {
          ':new': issued.hash,
          ':hint': issued.hint,
          ':at': issuedAt,
          ':old': hashApiKey(presentedKey.trim()),
        },
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new UnauthorizedError();
    throw error;
  }
  return { api_key: issued.key, key_hint: issued.hint, issued_at: issuedAt };
}

export function requireRole(principal: Principal, role: Role, action: string): void {
  if (principal.role !== role) {
    throw new ForbiddenError(`${action} requires the ${role} role; your role is ${principal.role}`);
  }
}

/**
 * A route's plan feature (batch screening: Growth or higher). The 403 names the cheapest plan
 * that has it, so the tenant knows what to buy.
 */
export function requirePlanFeature(principal: Principal, feature: PlanFeature): void {
  if (feature === 'batch' && !principal.plan.batch) {
    throw new ForbiddenError(
      `Batch screening requires the ${CHEAPEST_BATCH_PLAN.name} plan or higher; your tenant is on the ${principal.plan.name} plan`,
    );
  }
}
