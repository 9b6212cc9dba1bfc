import { ListQuerySchema } from '../../common/fields.ts';
import { SettingsPatchSchema } from '../../tenancy/retention.ts';
import { AuditPageSchema, SettingsSchema } from '../responses.ts';
import type { RouteId } from '../routes.ts';
import { adminsOnly, json, listQueryErrors, type Operation, requestExample } from './shared.ts';

/** The contract of the audit trail and settings routes (lib/contract/operations.ts). */
export const auditOperations = {
  'audit-list': {
    query: ListQuerySchema,
    success: json(AuditPageSchema, 'A page of the audit trail, newest first'),
    errors: { ...listQueryErrors, ...adminsOnly },
  },
  'settings-get': {
    success: json(SettingsSchema, 'The tenant’s retention settings'),
    errors: adminsOnly,
  },
  'settings-update': {
    body: SettingsPatchSchema,
    requestExample: requestExample(SettingsPatchSchema, { retention_days: 1825 }),
    success: json(SettingsSchema, 'The settings as changed (the change is in the audit trail)'),
    errors: {
      400: 'No setting sent, a value out of range, or the lock without a retention period',
      403: 'The caller is not an admin, or the change would lift the retention lock or shorten its period (operations only)',
      409: 'The settings changed meanwhile; read them again',
    },
  },
} as const satisfies Partial<Record<RouteId, Operation>>;
