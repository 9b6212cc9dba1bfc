import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.ts';
import { strictBody, trimmed } from '../screening/request.ts';
import {
  isConditionalCheckFailed,
  itemOfConditionFailure,
  keys,
  queryAll,
  type Table,
} from '../store/table.ts';
import { isAccountId, issueApiKey } from './api-keys.ts';
import { type AuditActor, audited } from './audit.ts';
import { type Principal, requireRole } from './auth.ts';
import {
  addUser,
  parseUser,
  ROLES,
  type Role,
  releaseAnalystSeat,
  type User,
  type UserStatus,
} from './tenants.ts';

/**
 * Account administration: a tenant's admins (through the API) and operations (through the ops
 * CLI, across tenants) list users, add them, disable them and revoke their keys. Every change is
 * audited in the tenant's trail (lib/tenancy/audit.ts). A user is never deleted: their screens,
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
    created_at: user.created_at,
    ...(user.disabled_at ? { disabled_at: user.disabled_at, disabled_by: user.disabled_by } : {}),
  };
}

/** GET /users: every user of the tenant, disabled ones included, oldest first. */
export async function listUsers(table: Table, tenantId: string): Promise<{ users: UserView[] }> {
  const items = await queryAll(table, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenantId), ':prefix': 'USER#' },
    ConsistentRead: true,
  });
  const users = items.map((item) => userView(parseUser(item)));
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
  actor: AuditActor,
  tenantId: string,
  input: { name: string; role: Role },
): Promise<{ user: UserView; api_key: string }> {
  return audited(table, tenantId, { action: 'user.add', actor, details: { role: input.role } }, async () => {
    const created = await addUser(table, tenantId, input);
    return { user: userView(created.user), api_key: created.api_key };
  });
}

const notFound = (userId: string) => new NotFoundError(`User ${userId} not found`);

/**
 * One conditional write on an ACTIVE user of the tenant: 404 when there is no such user (the key
 * names the tenant, so another tenant's user id is simply absent), 409 when they are disabled.
 */
async function updateActiveUser(
  table: Table,
  tenantId: string,
  userId: string,
  update: { expression: string; values: Record<string, unknown> },
): Promise<User> {
  const key = keys.user(tenantId, userId);
  try {
    const { Attributes } = await table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: update.expression,
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#status) OR #status = :active)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ...update.values, ':active': 'active' },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return parseUser(Attributes!);
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
    const found = await itemOfConditionFailure(table, error, key);
    if (!found) throw notFound(userId);
    const user = parseUser(found);
    throw new ConflictError(
      `User ${userId} is disabled (since ${user.disabled_at ?? 'an earlier change'}, by ${user.disabled_by ?? 'unknown'}); a disabled user cannot be changed`,
    );
  }
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
  actor: AuditActor,
  tenantId: string,
  userId: string,
): Promise<{ user: UserView }> {
  if (!isAccountId(userId)) throw notFound(userId);
  if (actor.user_id === userId) {
    throw new ForbiddenError('You cannot disable yourself; another admin or operations must');
  }
  return audited(table, tenantId, { action: 'user.disable', actor, target_user_id: userId }, async () => {
    const user = await updateActiveUser(table, tenantId, userId, {
      expression:
        'SET #status = :disabled, disabled_at = :at, disabled_by = :by REMOVE key_hash, key_hint, key_issued_at',
      values: { ':disabled': 'disabled', ':at': new Date().toISOString(), ':by': actor.user_id },
    });
    if (user.role === 'analyst') await releaseAnalystSeat(table, tenantId);
    return { user: userView(user) };
  });
}

/**
 * Revokes a user's key: the old key stops working at once and a new one is issued, shown in this
 * answer only, for the administrator to hand over. Refused (409) for a disabled user.
 */
export async function revokeUserKey(
  table: Table,
  actor: AuditActor,
  tenantId: string,
  userId: string,
): Promise<{ user: UserView; api_key: string; detail: string }> {
  if (!isAccountId(userId)) throw notFound(userId);
  return audited(table, tenantId, { action: 'user.revoke-key', actor, target_user_id: userId }, async () => {
    const issued = issueApiKey(tenantId, userId);
    const user = await updateActiveUser(table, tenantId, userId, {
      expression: 'SET key_hash = :hash, key_hint = :hint, key_issued_at = :at',
      values: { ':hash': issued.hash, ':hint': issued.hint, ':at': new Date().toISOString() },
    });
    return {
      user: userView(user),
      api_key: issued.key,
      detail: `The previous key of ${userId} no longer works. Hand this key to them now: it is not shown again.`,
    };
  });
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
const adminActor = (principal: Principal): AuditActor => {
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
