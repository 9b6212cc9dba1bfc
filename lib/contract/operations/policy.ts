import { ListQuerySchema } from '../../common/fields.ts';
import { FalsePositiveRevokedSchema, PolicySchema, RememberedFalsePositivePageSchema } from '../responses.ts';
import type { RouteId } from '../routes.ts';
import { adminsOnly, json, listQueryErrors, notFound, type Operation } from './shared.ts';

/** The contract of the tenant tuning routes (docs/policies.md; lib/contract/operations.ts). */
export const policyOperations = {
  'policy-get': {
    success: json(PolicySchema, 'The policy in force: version 0 is the service’s own, which changes nothing'),
  },
  'false-positives-list': {
    query: ListQuerySchema,
    success: json(RememberedFalsePositivePageSchema, 'A page of the remembered false positives'),
    errors: { ...listQueryErrors, ...adminsOnly },
  },
  'false-positive-revoke': {
    success: json(
      FalsePositiveRevokedSchema,
      'Forgotten: the next ad-hoc screen shows the match at its own level',
    ),
    errors: { ...adminsOnly, ...notFound('remembered false positive') },
  },
} as const satisfies Partial<Record<RouteId, Operation>>;
