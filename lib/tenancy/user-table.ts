import * as v from 'valibot';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from '../common/errors.ts';
import { keys } from '../store/schema.ts';
import { getAll, parseItem, queryAll, readItem, type Table } from '../store/table.ts';
import { sendWrite, type TableWrite, type UpdateWrite } from '../store/write.ts';

import { ROLES } from './roles.ts';
import { parseTenant, type Tenant } from './tenant-table.ts';

export const USER_STATUSES = ['active', 'disabled'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

/**
 * The user item (pk TENANT#<tid>, sk USER#<uid>): a tenant's user and the hash of their current
 * API key. A user is never deleted, only disabled.
 */
const UserItemSchema = v.object({
  tenant_id: v.string(),
  user_id: v.string(),
  name: v.string(),
  role: v.picklist(ROLES),
  /** Absent once the user is disabled: no key of theirs can match. */
  key_hash: v.optional(v.string()),
  key_hint: v.optional(v.string()),
  key_issued_at: v.optional(v.string()),
  /**
   * Who caused the current key: the user themself (a rotation), an admin, or `ops-cli`; and the
   * tenant users besides the holder who could hold it (lib/tenancy/key-lineage.ts). Absent on keys
   * issued before lineages were recorded.
   */
  key_issued_by: v.optional(v.string()),
  key_lineage: v.optional(v.array(v.string())),
  created_at: v.string(),
  /** Absent on users created before users could be disabled: active. */
  status: v.optional(v.picklist(USER_STATUSES)),
  disabled_at: v.optional(v.string()),
  disabled_by: v.optional(v.string()),
});
export type User = v.InferOutput<typeof UserItemSchema>;

/** A user item as stored, parsed (not cast). */
export function parseUser(item: Record<string, unknown>): User {
  return parseItem(UserItemSchema, item);
}

/** A new key's stored attributes: its hash and hint, when and by whom it was issued, its lineage. */
export interface StoredKey {
  hash: string;
  hint: string;
  issuedAt: string;
  issuedBy: string;
  lineage: string[];
}

export const userNotFound = (userId: string) => new NotFoundError(`User ${userId} not found`);

/**
 * One conditional write on an ACTIVE user of the tenant: 404 when there is no such user (the key
 * names the tenant, so another tenant's user id is simply absent), 409 when they are disabled.
 * With `analystsOnly`, the same write also requires the user to be an analyst, and an admin is
 * refused with 403 and that detail.
 */
function activeUserUpdate(
  tenantId: string,
  userId: string,
  update: { expression: string; values: Record<string, unknown>; analystsOnly?: string },
): UpdateWrite {
  const roleCondition = update.analystsOnly ? ' AND #role = :analyst' : '';
  return {
    Update: {
      Key: keys.user(tenantId, userId),
      UpdateExpression: update.expression,
      ConditionExpression: `attribute_exists(pk) AND (attribute_not_exists(#status) OR #status = :active)${roleCondition}`,
      ExpressionAttributeNames: { '#status': 'status', ...(roleCondition ? { '#role': 'role' } : {}) },
      ExpressionAttributeValues: {
        ...update.values,
        ':active': 'active',
        ...(roleCondition ? { ':analyst': 'analyst' } : {}),
      },
    },
    what: 'user',
    refused: (found) => {
      if (!found) return userNotFound(userId);
      const user = parseUser(found);
      if (update.analystsOnly && user.role !== 'analyst' && user.status !== 'disabled') {
        return new ForbiddenError(update.analystsOnly);
      }
      return new ConflictError(
        `User ${userId} is disabled (since ${user.disabled_at ?? 'an earlier change'}, by ${user.disabled_by ?? 'unknown'}); a disabled user cannot be changed`,
      );
    },
  };
}

/** The user item's writes, as values (lib/store/write.ts). */
export const userWrites = {
  /** A new user; refused (409) when the user id is taken. */
  create(user: User): TableWrite {
    return {
      Put: {
        Item: { ...keys.user(user.tenant_id, user.user_id), entity: 'user', ...user },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
      what: 'user',
      refused: () => new ConflictError(`user ${user.user_id} already exists`),
    };
  },

  /**
   * Disables an active user: the key hash goes in the same write that marks them disabled, so
   * their key stops working at once.
   */
  disable(tenantId: string, userId: string, by: string, at: string): UpdateWrite {
    return activeUserUpdate(tenantId, userId, {
      expression:
        'SET #status = :disabled, disabled_at = :at, disabled_by = :by REMOVE key_hash, key_hint, key_issued_at, key_issued_by, key_lineage',
      values: { ':disabled': 'disabled', ':at': at, ':by': by },
    });
  },

  /**
   * Replaces an active user's key with `key` (a revocation by an admin or operations); with
   * `analystsOnly`, only an analyst's (an admin is refused with 403 and that detail).
   */
  replaceKey(tenantId: string, userId: string, key: StoredKey, analystsOnly?: string): UpdateWrite {
    return activeUserUpdate(tenantId, userId, {
      expression:
        'SET key_hash = :hash, key_hint = :hint, key_issued_at = :at, key_issued_by = :by, key_lineage = :lineage',
      values: {
        ':hash': key.hash,
        ':hint': key.hint,
        ':at': key.issuedAt,
        ':by': key.issuedBy,
        ':lineage': key.lineage,
      },
      ...(analystsOnly ? { analystsOnly } : {}),
    });
  },

  /**
   * Replaces the user's key by the holder's own rotation: only while the stored hash is still
   * `presentedHash`'s, so of two concurrent rotations exactly one wins; the loser gets 401 like any
   * caller with a dead key. The lineage is left as it was.
   */
  rotateKey(
    tenantId: string,
    userId: string,
    presentedHash: string,
    key: Omit<StoredKey, 'lineage'>,
  ): UpdateWrite {
    return {
      Update: {
        Key: keys.user(tenantId, userId),
        UpdateExpression: 'SET key_hash = :new, key_hint = :hint, key_issued_at = :at, key_issued_by = :me',
        ConditionExpression: 'key_hash = :old',
        ExpressionAttributeValues: {
          ':me': key.issuedBy,
          ':new': key.hash,
          ':hint': key.hint,
          ':at': key.issuedAt,
          ':old': presentedHash,
        },
      },
      what: 'API key',
      refused: () => new UnauthorizedError(),
    };
  },
};

/** Stores a new user (409 when the user id is taken). */
export async function createUserItem(table: Table, user: User): Promise<void> {
  await sendWrite(table, userWrites.create(user));
}

export async function getUser(table: Table, tenantId: string, userId: string): Promise<User | undefined> {
  const item = await readItem(table, keys.user(tenantId, userId));
  return item ? parseUser(item) : undefined;
}

/** Every user of the tenant, disabled ones included (consistent read, in no particular order). */
export async function listTenantUsers(table: Table, tenantId: string): Promise<User[]> {
  const items = await queryAll(table, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenantId), ':prefix': 'USER#' },
    ConsistentRead: true,
  });
  return items.map(parseUser);
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
  const tenantItem = found.find((item) => item.sk === keys.tenant(tenantId).sk);
  const userItem = found.find((item) => item !== tenantItem);
  return {
    user: userItem ? parseUser(userItem) : undefined,
    tenant: tenantItem ? parseTenant(tenantItem) : undefined,
  };
}

/** Disables an active user ({@link userWrites.disable}): the user as the write left them. */
export async function disableUserItem(
  table: Table,
  tenantId: string,
  userId: string,
  by: string,
  at: string,
): Promise<User> {
  return parseUser((await sendWrite(table, userWrites.disable(tenantId, userId, by, at), 'ALL_NEW'))!);
}

/** Replaces an active user's key ({@link userWrites.replaceKey}): the user as the write left them. */
export async function replaceUserKey(
  table: Table,
  tenantId: string,
  userId: string,
  key: StoredKey,
  analystsOnly?: string,
): Promise<User> {
  return parseUser(
    (await sendWrite(table, userWrites.replaceKey(tenantId, userId, key, analystsOnly), 'ALL_NEW'))!,
  );
}

/** The holder's own rotation of their key ({@link userWrites.rotateKey}; 401 when it no longer works). */
export async function rotateUserKey(
  table: Table,
  tenantId: string,
  userId: string,
  presentedHash: string,
  key: Omit<StoredKey, 'lineage'>,
): Promise<void> {
  await sendWrite(table, userWrites.rotateKey(tenantId, userId, presentedHash, key));
}
