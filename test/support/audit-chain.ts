import type { AnchorStore } from '../../lib/audit/anchor-store.ts';
import { type ChainRun, chainWaitingEntries } from '../../lib/audit/chain-writer.ts';
import type { Table } from '../../lib/store/table.ts';

/**
 * Links the tenant's waiting audit entries into its chain, as the chain writer does after each
 * audited write: for tests that call the use cases on a store directly (startTestStore), with no
 * runtime to wake the writer. Anchors go to `anchors` when given.
 */
export function chainAudit(table: Table, tenantId: string, anchors?: AnchorStore): Promise<ChainRun> {
  return chainWaitingEntries({ table, anchors, retainDays: async () => 1 }, tenantId);
}
