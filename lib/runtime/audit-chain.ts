import { type AnchorStore, anchorStoreOf } from '../audit/anchor-store.ts';
import type { ChainWriterDeps } from '../audit/chain-writer.ts';
import type { Config } from '../common/config.ts';
import type { Table } from '../store/table.ts';
import { getStoredRetention } from '../tenancy/tenant-table.ts';
import { getServices } from './services.ts';

/**
 * The audit chain writer's adapters (lib/audit/chain-writer.ts): the table, the anchor store the
 * configuration names (the Object Lock bucket on AWS, a directory locally), and each tenant's
 * anchor retention: its own retention period when that is longer than the stack's floor.
 */
export function chainWriterDepsOf(config: Config, table: Table): ChainWriterDeps {
  const anchors: AnchorStore | undefined = anchorStoreOf(config);
  const floor = config.AUDIT_ANCHOR_RETENTION_DAYS;
  return {
    table,
    anchors,
    retainDays: async (tenantId) => {
      const retention = await getStoredRetention(table, tenantId);
      return Math.max(floor, retention?.retention_days ?? 0);
    },
  };
}

let built: { for: unknown; deps: ChainWriterDeps } | undefined;

/** The chain writer's adapters over this process's services, rebuilt when they are. */
export function getChainWriterDeps(): ChainWriterDeps {
  const services = getServices();
  if (built?.for !== services)
    built = { for: services, deps: chainWriterDepsOf(services.config, services.table) };
  return built.deps;
}
