import type { Table } from '../store/table.ts';
import { type ChainVerdict, ChainVerifier } from './chain.ts';
import { allAuditEntries } from './trail.ts';

/**
 * Reads the tenant's whole trail from the store, a page at a time, and checks its chain
 * (lib/audit/chain.ts): intact with its count and head hash, or the first broken link. Memory stays
 * bounded by one page, however long the trail.
 */
export async function verifyTenantTrail(table: Table, tenantId: string): Promise<ChainVerdict> {
  const verifier = new ChainVerifier();
  for await (const entry of allAuditEntries(table, tenantId)) verifier.push(entry);
  return verifier.finish();
}
