import { AddUserRequestSchema } from '../../tenancy/users.ts';
import {
  AccountSchema,
  DisabledUserSchema,
  RotatedKeySchema,
  UserListSchema,
  UserWithKeySchema,
} from '../responses.ts';
import type { RouteId } from '../routes.ts';
import { adminsOnly, created, json, notFound, type Operation, requestExample } from './shared.ts';

/** The contract of the account and user routes (lib/contract/operations.ts). */
export const usersOperations = {
  me: { success: json(AccountSchema, 'The caller, tenant, plan and this month’s usage') },
  'rotate-key': { success: json(RotatedKeySchema, 'The new key, shown this once') },
  'users-list': { success: json(UserListSchema, 'Every user of the tenant'), errors: adminsOnly },
  'user-add': {
    body: AddUserRequestSchema,
    requestExample: requestExample(AddUserRequestSchema, { name: 'Ann Analyst' }),
    success: created(UserWithKeySchema, 'The analyst added, with their key shown this once'),
    errors: { 403: 'The caller is not an admin, or asked for an admin', 409: 'Every analyst seat is in use' },
  },
  'user-disable': {
    success: json(DisabledUserSchema, 'The user, disabled'),
    errors: {
      ...notFound('user'),
      403: 'The caller is not an admin, or disables themselves',
      409: 'The user is already disabled',
    },
  },
  'user-revoke-key': {
    success: json(UserWithKeySchema, 'The user with a new key, shown this once'),
    errors: {
      ...notFound('user'),
      403: 'The caller is not an admin, or the user is an admin (operations resets admins’ keys)',
      409: 'The user is disabled',
    },
  },
} as const satisfies Partial<Record<RouteId, Operation>>;
