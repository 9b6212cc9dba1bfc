import { ChainWriter, onEntriesWaiting } from '../../lib/audit/chain-writer.ts';
import { logger } from '../../lib/common/log.ts';
import { getChainWriterDeps } from '../../lib/runtime/audit-chain.ts';
import { OPERATIONS_TRAIL } from '../../lib/sync/review.ts';
import { listTenants } from '../../lib/tenancy/tenants.ts';

export interface LocalAuditChain {
  /** Settles once every wake-up so far has been chained (an audited request has woken it before it answers). */
  idle(): Promise<void>;
  /** Wakes the writer for every tenant (entries written by another process, the ops CLI), then settles. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `npm start`'s stand-in for the DynamoDB Stream that runs the chain writer on AWS: the same
 * writer (lib/audit/chain-writer.ts), woken in-process by each audited write of this process, and
 * a sweep of every tenant every `sweepSeconds` for entries another process wrote (the ops CLI) or
 * a run that failed left waiting.
 */
export function startLocalAuditChain(sweepSeconds = 5): LocalAuditChain {
  const deps = getChainWriterDeps();
  const writer = new ChainWriter(deps);
  onEntriesWaiting((table, tenantId) => {
    if (table.name === deps.table.name) writer.wake(tenantId);
  });
  const sweep = async () => {
    const tenants = await listTenants(deps.table);
    for (const tenantId of [...tenants.map((tenant) => tenant.tenant_id), OPERATIONS_TRAIL])
      writer.wake(tenantId);
    await writer.idle();
  };
  let sweeping: Promise<void> | undefined;
  const timer = setInterval(() => {
    sweeping ??= sweep()
      .catch((error) => logger.error({ err: error }, 'audit chain sweep failed'))
      .finally(() => {
        sweeping = undefined;
      });
  }, sweepSeconds * 1000);
  timer.unref();
  return {
    idle: () => writer.idle(),
    settle: sweep,
    stop: async () => {
      clearInterval(timer);
      onEntriesWaiting(undefined);
      await sweeping;
      await writer.idle();
    },
  };
}
