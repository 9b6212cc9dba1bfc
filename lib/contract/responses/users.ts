import * as v from 'valibot';
import { PLAN_IDS } from '../../tenancy/plans.ts';
import { ROLES } from '../../tenancy/roles.ts';
import { USER_STATUSES } from '../../tenancy/user-table.ts';
import { timestamp } from './fields.ts';

/** Responses of the account and user routes: /me, /me/rotate-key, /users. */

export const AccountSchema = v.strictObject({
  user: v.strictObject({ user_id: v.string(), name: v.string(), role: v.picklist(ROLES) }),
  role: v.picklist(ROLES),
  tenant: v.strictObject({ tenant_id: v.string(), name: v.string() }),
  plan: v.strictObject({
    id: v.picklist(PLAN_IDS),
    name: v.string(),
    monthly_screens: v.nullable(v.number()),
    analyst_seats: v.nullable(v.number()),
    batch: v.boolean(),
    requests_per_second: v.pipe(
      v.number(),
      v.description(
        'Fair use: authenticated requests per second; at most ten times this in any 10 seconds, one second’s worth at once.',
      ),
    ),
    open_streams: v.pipe(
      v.number(),
      v.description('Fair use: streamed responses (batch streams, exports) open at once.'),
    ),
  }),
  usage: v.strictObject({
    month: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}$/)),
    screens_used: v.number(),
    screens_allowed: v.nullable(v.number()),
    screens_remaining: v.nullable(v.number()),
  }),
});

export const RotatedKeySchema = v.strictObject({
  api_key: v.string(),
  key_hint: v.string(),
  issued_at: timestamp,
  detail: v.string(),
});

export const UserSchema = v.strictObject({
  user_id: v.string(),
  name: v.string(),
  role: v.picklist(ROLES),
  status: v.picklist(USER_STATUSES),
  key_hint: v.nullable(v.string()),
  key_issued_at: v.nullable(timestamp),
  key_issued_by: v.nullable(v.string()),
  key_lineage: v.array(v.string()),
  created_at: timestamp,
  disabled_at: v.optional(timestamp),
  disabled_by: v.optional(v.string()),
});

export const UserListSchema = v.strictObject({ users: v.array(UserSchema) });

/** A user with a key shown this once (added, or their key revoked). */
export const UserWithKeySchema = v.strictObject({
  user: UserSchema,
  api_key: v.string(),
  detail: v.string(),
});

export const DisabledUserSchema = v.strictObject({ user: UserSchema });
