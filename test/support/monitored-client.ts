import { type ClientItem, clientIndexKeys } from '../../lib/monitoring/client-table.ts';
import { keys } from '../../lib/store/schema.ts';
import { putRequests, type Table, writeAll } from '../../lib/store/table.ts';

/**
 * A monitored client item as registration leaves it (profile, by-risk and due index keys), last
 * screened CLEAR on `screenedAt` and due at `dueAt`: tests and benches write clients straight into
 * the table when what they measure is not the registration.
 */
export function monitoredClientItem(
  tenantId: string,
  clientId: string,
  subject: ClientItem['subject'],
  dueAt: string,
  screenedAt = '2026-01-01T00:00:00Z',
): ClientItem & Record<string, unknown> {
  return {
    ...keys.client(tenantId, clientId),
    ...clientIndexKeys(tenantId, clientId, 'CLEAR', dueAt),
    entity: 'client',
    tenant_id: tenantId,
    client_id: clientId,
    reference: null,
    subject,
    types: ['sanctions', 'pep', 'criminal'],
    status: 'active',
    created_at: screenedAt,
    created_by: { user_id: 'bench', role: 'admin' },
    last_screen_id: 'SCR-20260101-000000',
    last_screened_at: screenedAt,
    risk_level: 'CLEAR',
    rescreen_interval_days: null,
    next_due_at: dueAt,
  };
}

/** Writes items straight into the table: BatchWriteItem of 25, 8 calls at once, unprocessed ones again. */
export async function putItems(table: Table, items: readonly Record<string, unknown>[]): Promise<void> {
  await writeAll(table, putRequests(items), { what: 'test items', concurrency: 8 });
}
