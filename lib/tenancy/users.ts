import * as v from 'valibot';
import { type AuditPage, audited, listAudit } from '../audit/trail.ts';
import { ForbiddenError } from '../common/errors.ts';
import { strictBody, trimmed } from '../common/fields.ts';
import type { Table } from '../store/table.ts';
import { isAccountId, issueApiKey, newId } from './api-keys.ts';
import { type Principal, requireRole } from './auth.ts';
import { type KeyIssuer, lineageOfNewKey } from './key-lineage.ts';
import { ROLES, type Role } from './roles.ts';
import { releaseAnalystSeat } from './tenant-table.ts';
import { addUser } from './tenants.ts';
import {
  disableUserItem,
  listTenantUsers,
  replaceUserKey,
  type User,
  type UserStatus,
  userNotFound,
} from './user-table.ts';

/**
 * Account administration: a tenant's admins (through the API) and operations (through the ops
 * CLI, across tenants) list users, add them, disable them and revoke their keys. Every change is
 * audited in the tenant's trail (lib/audit/trail.ts). A user is never deleted: their screens,
 * decisions and notes keep naming them.
 */

/** A user as administrators see them: never the key or its hash. */
export interface UserView {
  user_id: string;
  name: string;
  role: Role;
  status: UserStatus;
  /** The first characters of the current key; null once disabled (no key works). */
  key_hint: string | null;
  key_issued_at: string | null;
  /**
   * Who caused the current key (the user themself, an admin, or `ops-cli`) and the tenant users
   * besides the holder who could hold it (lib/tenancy/key-lineage.ts); null and empty once
   * disabled, or for a key issued before lineages were recorded.
   */
  key_issued_by: string | null;
  key_lineage: string[];
  created_at: string;
  disabled_at?: string;
  disabled_by?: string;
}

export function userView(user: User): UserView {
  return {
    user_id: user.user_id,
    name: user.name,
    role: user.role,
    status: user.status ?? 'active',
    key_hint: user.key_hint ?? null,
    key_issued_at: user.key_issued_at ?? null,
    key_issued_by: user.key_issued_by ?? null,
    key_lineage: user.key_lineage ?? [],
    created_at: user.created_at,
    ...(user.disabled_at ? { disabled_at: user.disabled_at, disabled_by: user.disabled_by } : {}),
  };
}

/** GET /users: every user of the tenant, disabled ones included, oldest first. */
export async function listUsers(table: Table, tenantId: string): Promise<{ users: UserView[] }> {
  const users = (await listTenantUsers(table, tenantId)).map(userView);
  users.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.user_id.localeCompare(b.user_id));
  return { users };
}

/**
 * Adds a user (an analyst takes one of the plan's seats: 409 when all are in use). The key is in
 * the result only, once. Tenant admins add analysts only: an admin who could create admins could
 * create a second admin to approve their own decisions, and four eyes would mean nothing; admins
 * come from operations (the ops CLI).
 */
export async function addTenantUser(
  table: Table,
  actor: KeyIssuer,
  tenantId: string,
  input: { name: string; role: Role },
): Promise<{ user: UserView; api_key: string }> {
  // The id is drawn before the write-ahead entry, so `started` names the user being added: a
  // process that dies after the user is written leaves a record that says which user it was.
  const userId = newId('u');
  return audited(
    table,
    tenantId,
    {
      action: 'user.add',
      actor,
      target: { user_id: userId },
      details: { role: input.role },
    },
    async () => {
      // Whoever adds the user receives the key: its lineage names them (key-lineage.ts).
      const created = await addUser(table, tenantId, { ...input, userId, issuer: actor });
      return { user: userView(created.user), api_key: created.api_key };
    },
  );
}

/**
 * Disables a user: their key stops working at once (the hash is removed in the same write that
 * marks them disabled, and every request reads the user record), an analyst's seat is given back,
 * and everything they did stays. Nobody disables themselves, so a tenant always keeps an admin.
 *
 * Two writes (no transactions): the user first, then the seat. If the second fails, the seat stays
 * counted as used, which only ever errs on the side of the plan's limit.
 */
export async function disableUser(
  table: Table,
  actor: KeyIssuer,
  tenantId: string,
  userId: string,
): Promise<{ user: UserView }> {
  if (!isAccountId(userId)) throw userNotFound(userId);
  if (actor.user_id === userId) {
    throw new ForbiddenError('You cannot disable yourself; another admin or operations must');
  }
  return audited(
    table,
    tenantId,
    { action: 'user.disable', actor, target: { user_id: userId } },
    async () => {
      const user = await disableUserItem(table, tenantId, userId, actor.user_id, new Date().toISOString());
      if (user.role === 'analyst') await releaseAnalystSeat(table, tenantId);
      return { user: userView(user) };
    },
  );
}

/**
 * Revokes a user's key: the old key stops working at once and a new one is issued, shown in this
 * answer only, for the administrator to hand over. Refused (409) for a disabled user.
 *
 * The new key reaches the actor, so its lineage becomes the actor (empty for operations: see
 * key-lineage.ts). A tenant admin resets analysts' keys only: an admin who received another
 * admin's key would hold two admin identities, and could approve their own decisions. Admins'
 * keys are reset by operations (403 naming the ops CLI), in the same conditional write.
 */
export async function revokeUserKey(
  table: Table,
  actor: KeyIssuer,
  tenantId: string,
  userId: string,
): Promise<{ user: UserView; api_key: string; detail: string }> {
  if (!isAccountId(userId)) throw userNotFound(userId);
  return audited(
    table,
    tenantId,
    {
      action: 'user.revoke-key',
      actor,
      target: { user_id: userId },
      done: (revoked) => ({ details: { key_hint: revoked.user.key_hint } }),
    },
    async () => {
      const issued = issueApiKey(tenantId, userId);
      const self = actor.user_id === userId;
      const user = await replaceUserKey(
        table,
        tenantId,
        userId,
        {
          hash: issued.hash,
          hint: issued.hint,
          issuedAt: new Date().toISOString(),
          issuedBy: actor.user_id,
          // Revoked, the old key is dead: whoever held it holds nothing now.
          lineage: lineageOfNewKey(actor, userId),
        },
        actor.role === 'ops'
          ? undefined
          : self
            ? `You are an admin: replace your own key with POST /me/rotate-key; operations resets an admin's key (npm run admin -- revoke-key --tenant ${tenantId} --user ${userId})`
            : `User ${userId} is an admin: an admin's key is reset by operations (npm run admin -- revoke-key --tenant ${tenantId} --user ${userId}), never by another admin, who would then hold two admin identities and could approve their own decisions (four eyes)`,
      );
      return {
        user: userView(user),
        api_key: issued.key,
        detail: `The previous key of ${userId} no longer works. Hand this key to them now: it is not shown again.`,
      };
    },
  );
}

export const USER_NAME_MAX_LENGTH = 100;

/** Body of POST /users: the new user's name; `role` may only be `analyst` (the default). */
export const AddUserRequestSchema = strictBody({
  name: v.pipe(
    trimmed(
      USER_NAME_MAX_LENGTH,
      'the user’s name',
      `The user’s name, 2 to ${USER_NAME_MAX_LENGTH} characters`,
    ),
    v.minLength(2, 'must be at least 2 characters'),
  ),
  role: v.pipe(
    v.nullish(v.picklist(ROLES, `must be one of ${ROLES.join(', ')}`), 'analyst'),
    v.description('Only `analyst` (the default): admins are added by operations'),
  ),
});
export type AddUserRequest = v.InferOutput<typeof AddUserRequestSchema>;

/** The acting admin as the audit trail names them. */
const adminActor = (principal: Principal): KeyIssuer => {
  requireRole(principal, 'admin', 'Managing users');
  return { user_id: principal.userId, role: principal.role };
};

/** POST /users: an admin adds an analyst to their own tenant (admins come from operations). */
export async function addAnalystAsAdmin(
  table: Table,
  principal: Principal,
  request: AddUserRequest,
): Promise<{ user: UserView; api_key: string; detail: string }> {
  const actor = adminActor(principal);
  if (request.role !== 'analyst') {
    throw new ForbiddenError(
      'Admins add analysts only; a new admin is added by operations (four eyes needs admins nobody appointed alone)',
    );
  }
  const created = await addTenantUser(table, actor, principal.tenantId, {
    name: request.name,
    role: 'analyst',
  });
  return { ...created, detail: 'Hand this key to the user now: it is not shown again.' };
}

/** GET /users, POST /users/{user_id}/disable and /revoke-key for the caller's own tenant, admins only. */
export const usersOfCaller = {
  list: (table: Table, principal: Principal) => {
    adminActor(principal);
    return listUsers(table, principal.tenantId);
  },
  disable: (table: Table, principal: Principal, userId: string) =>
    disableUser(table, adminActor(principal), principal.tenantId, userId),
  revokeKey: (table: Table, principal: Principal, userId: string) =>
    revokeUserKey(table, adminActor(principal), principal.tenantId, userId),
};

/** GET /audit: the caller's tenant's audit trail, newest first, admins only. */
export function listAuditAsAdmin(
  table: Table,
  principal: Principal,
  limit?: number,
  cursor?: string,
): Promise<AuditPage> {
  requireRole(principal, 'admin', 'Reading the audit trail');
  return listAudit(table, principal.tenantId, limit, cursor);
}
