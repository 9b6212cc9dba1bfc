import { audited } from '../audit/trail.ts';
import { ForbiddenError, UnauthorizedError } from '../common/errors.ts';
import type { Table } from '../store/table.ts';
import { hashApiKey, issueApiKey, keyMatchesHash, parseApiKey } from './api-keys.ts';
import type { PlanFeature } from './plans.ts';
import { CHEAPEST_BATCH_PLAN, PLANS, type Plan } from './plans.ts';
import type { Role } from './roles.ts';
import { getUserAndTenant, rotateUserKey } from './user-table.ts';

/** Who is calling: resolved from the X-API-Key on every authenticated request. */
export interface Principal {
  tenantId: string;
  tenantName: string;
  userId: string;
  userName: string;
  role: Role;
  plan: Plan;
  /**
   * The tenant users besides the caller who could hold the key of this request (its lineage:
   * lib/tenancy/key-lineage.ts); the four-eyes rule reads it. Absent where no key was presented.
   */
  keyLineage?: readonly string[];
}

/**
 * Compared against when the key names no user, so that a refusal costs the same hash work
 * whether or not the tenant and user exist.
 */
const NO_USER_HASH = hashApiKey('no user holds this key');

/**
 * Resolves a presented key to its principal. Every failure (malformed, unknown tenant or user,
 * disabled user, rotated or revoked key) is the same UnauthorizedError, and takes the same work:
 * the user and the tenant are read in one BatchGetItem whether or not they exist (no per-process
 * tenant cache, which only real tenants would fill and so would answer them faster), and the
 * presented key is always hash-compared, against a stand-in hash when there is no user. A caller
 * learns nothing about which tenants, users or keys exist, neither from the answer nor from its
 * timing. A plan change or a disabled user takes effect on the next request.
 */
export async function authenticate(table: Table, apiKey: string | undefined): Promise<Principal> {
  const presented = apiKey?.trim();
  const ids = presented ? parseApiKey(presented) : undefined;
  if (!presented || !ids) throw new UnauthorizedError();
  const { user, tenant } = await getUserAndTenant(table, ids.tenantId, ids.userId);
  const keyMatches = keyMatchesHash(presented, user?.key_hash ?? NO_USER_HASH);
  if (!user || !tenant || !keyMatches || user.status === 'disabled') throw new UnauthorizedError();
  return {
    tenantId: tenant.tenant_id,
    tenantName: tenant.name,
    userId: user.user_id,
    userName: user.name,
    role: user.role,
    plan: PLANS[tenant.plan],
    keyLineage: user.key_lineage ?? [],
  };
}

/**
 * POST /me/rotate-key, recorded in the tenant's audit trail (lib/audit/trail.ts, write-ahead):
 * `started`, then `done` with the new key's hint (never the key), or `refused` when the presented
 * key no longer works.
 */
export async function rotateApiKey(
  table: Table,
  principal: Principal,
  presentedKey: string,
): Promise<{ api_key: string; key_hint: string; issued_at: string }> {
  return audited(
    table,
    principal.tenantId,
    {
      action: 'user.rotate-key',
      actor: { user_id: principal.userId, role: principal.role },
      target: { user_id: principal.userId },
      done: (rotated) => ({ details: { key_hint: rotated.key_hint, issued_at: rotated.issued_at } }),
    },
    () => replaceKey(table, principal, presentedKey),
  );
}

/**
 * Replaces the caller's key. One conditional write on the user record: it succeeds only while the
 * stored hash is still the presented key's, so of two concurrent rotations exactly one wins and
 * exactly one key works afterwards; the loser gets 401 like any caller with a dead key.
 *
 * The key's lineage is left as it was: whoever held the old key could have made this rotation and
 * holds the new key (lib/tenancy/key-lineage.ts). `key_issued_by` becomes the caller.
 */
async function replaceKey(
  table: Table,
  principal: Principal,
  presentedKey: string,
): Promise<{ api_key: string; key_hint: string; issued_at: string }> {
  const issued = issueApiKey(principal.tenantId, principal.userId);
  const issuedAt = new Date().toISOString();
  await rotateUserKey(table, principal.tenantId, principal.userId, hashApiKey(presentedKey.trim()), {
    hash: issued.hash,
    hint: issued.hint,
    issuedAt,
    issuedBy: principal.userId,
  });
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
      'plan_feature_required',
    );
  }
}
