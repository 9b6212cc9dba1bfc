import { logger } from '../common/log.ts';
import type { Table } from '../store/table.ts';
import { TransactionConflictError, transact } from '../store/write.ts';
import type { AnchorStore, AuditAnchor } from './anchor-store.ts';
import {
  type AuditEntry,
  AuditEntryChainedError,
  AuditSeqTakenError,
  chainEntriesAfter,
  chainEntryWrites,
  readChainHead,
  readPendingEntries,
} from './audit-table.ts';
import { GENESIS_HASH, sealEntry } from './chain.ts';

/**
 * The chain writer: the one writer of each tenant's hash chain. An audited action writes its
 * entry in its own transaction with no place in the chain (`audit-pending`, a fresh key, so
 * concurrent actions never contend); the chain writer then takes the tenant's waiting entries in
 * the order they were written, gives each the next seq and the previous entry's hash, and in ONE
 * transaction per 50 entries puts the chained entries and deletes the waiting ones. Then it
 * publishes the new head outside the table (./anchor-store.ts).
 *
 * On AWS it runs on the table's DynamoDB Stream (functions/table-stream/audit-chain.ts), woken by
 * each new waiting entry; locally the runtime wakes it in-process after each audited write
 * (`entriesWaiting`) and sweeps every tenant on a timer. Two writers of one tenant at once (a
 * Lambda retry, the sweep beside a wake-up) are safe, not just unlikely: a seq already taken or an
 * entry already chained refuses the whole transaction, and the loser reads the head again. If no
 * writer runs, nothing is lost: the entries wait in the table, and the next run chains them.
 */

/** Entries linked per transaction: two writes each, within TransactWriteItems' 100. */
const ENTRIES_PER_TRANSACTION = 50;

/** How often a run starts over after another writer moved the head; each time one of them progressed. */
const RACE_ATTEMPTS = 20;

export interface ChainWriterDeps {
  table: Table;
  /** Where heads are published; none: the chain is written but not anchored (logged once a run). */
  anchors: AnchorStore | undefined;
  /** How long the tenant's anchors must be kept, days (its retention, at least the stack's floor). */
  retainDays: (tenantId: string) => Promise<number>;
}

export interface ChainRun {
  /** Entries this run linked. */
  chained: number;
  /**
   * Why the run linked nothing though entries wait: the chain in the table no longer reaches the
   * newest anchor (its newest entries were removed, or it was rewritten). The writer never links
   * onto such a chain, which would reuse the freed seqs and hide the cut; the entries keep waiting
   * and `verify-audit` names the damage.
   */
  refused?: string;
  /** The chain's head after the run (undefined: the trail is empty). */
  head: { seq: number; hash: string } | undefined;
  /** The anchor published, when the run linked anything and there is a store. */
  anchor?: AuditAnchor;
}

const lostRace = (error: unknown) =>
  error instanceof AuditSeqTakenError ||
  error instanceof AuditEntryChainedError ||
  error instanceof TransactionConflictError;

/** Links every entry of the tenant waiting to be chained, then anchors the new head. */
export async function chainWaitingEntries(deps: ChainWriterDeps, tenantId: string): Promise<ChainRun> {
  const { table } = deps;
  let head: Pick<AuditEntry, 'seq' | 'hash'> | undefined = await readChainHead(table, tenantId);
  let chained = 0;
  let races = 0;
  let checked = false;
  for (;;) {
    const waiting = await readPendingEntries(table, tenantId, ENTRIES_PER_TRANSACTION);
    if (waiting.length === 0) break;
    if (!checked && deps.anchors) {
      const refused = await departureFromAnchor(table, tenantId, head, await deps.anchors.latest(tenantId));
      if (refused) {
        logger.error(
          { tenant: tenantId, refused },
          'audit chain writer stopped: the chain does not reach its anchor',
        );
        return { chained: 0, head, refused };
      }
      checked = true;
    }
    let previous = head;
    const sealed = waiting.map((pending) => {
      const entry = sealEntry(
        { ...pending.entry, seq: (previous?.seq ?? 0) + 1 },
        previous?.hash ?? GENESIS_HASH,
      ) as AuditEntry;
      previous = entry;
      return entry;
    });
    try {
      await transact(
        table,
        waiting.flatMap((pending, i) => chainEntryWrites(pending, sealed[i])),
      );
    } catch (error) {
      if (!lostRace(error) || ++races >= RACE_ATTEMPTS) throw error;
      head = await readChainHead(table, tenantId);
      continue;
    }
    chained += sealed.length;
    head = sealed[sealed.length - 1];
  }
  const run: ChainRun = { chained, head: head ? { seq: head.seq, hash: head.hash } : undefined };
  if (chained > 0 && head) {
    if (!deps.anchors) {
      logger.warn({ tenant: tenantId }, 'audit chain head not anchored: no anchor store is configured');
      return run;
    }
    const anchor: AuditAnchor = {
      tenant_id: tenantId,
      seq: head.seq,
      hash: head.hash,
      anchored_at: new Date().toISOString(),
    };
    await deps.anchors.publish(anchor, await deps.retainDays(tenantId));
    run.anchor = anchor;
  }
  return run;
}

/**
 * Whether the chain as read (its head) still reaches the newest anchor unchanged; if not, why.
 * An anchor the head has passed is checked against the entry it names (one read).
 */
async function departureFromAnchor(
  table: Table,
  tenantId: string,
  head: Pick<AuditEntry, 'seq' | 'hash'> | undefined,
  anchor: AuditAnchor | undefined,
): Promise<string | undefined> {
  if (!anchor) return undefined;
  const headSeq = head?.seq ?? 0;
  if (headSeq < anchor.seq)
    return `the chain ends at entry ${headSeq}, but the anchor published at ${anchor.anchored_at} names entry ${anchor.seq}: entries were removed`;
  const anchored =
    headSeq === anchor.seq ? head : (await chainEntriesAfter(table, tenantId, anchor.seq - 1, 1)).entries[0];
  if (anchored?.seq !== anchor.seq || anchored.hash !== anchor.hash)
    return `entry ${anchor.seq} no longer has the hash the anchor published at ${anchor.anchored_at} names: the chain was rewritten`;
  return undefined;
}

/** Told that a tenant has entries waiting (the local runtime's wake-up); on AWS the stream is. */
type WaitingListener = (table: Table, tenantId: string) => void;
let waitingListener: WaitingListener | undefined;

/** The local runtime listens for audited writes here; the listener must not throw. */
export function onEntriesWaiting(listener: WaitingListener | undefined): void {
  waitingListener = listener;
}

/** Called after an audited write commits: wakes the in-process chain writer, when there is one. */
export function entriesWaiting(table: Table, tenantId: string): void {
  waitingListener?.(table, tenantId);
}

/**
 * One chain writer per tenant in this process: a wake-up while the tenant's run is going asks for
 * one more run after it, so wake-ups coalesce and a tenant never has two runs here at once.
 */
export class ChainWriter {
  private readonly runs = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();

  constructor(private readonly deps: ChainWriterDeps) {}

  wake(tenantId: string): void {
    if (this.runs.has(tenantId)) {
      this.again.add(tenantId);
      return;
    }
    const run = (async () => {
      do {
        this.again.delete(tenantId);
        try {
          await chainWaitingEntries(this.deps, tenantId);
        } catch (error) {
          // The entries stay waiting; the next wake-up or sweep chains them.
          logger.error({ err: error, tenant: tenantId }, 'audit chain writer run failed');
        }
      } while (this.again.has(tenantId));
    })().finally(() => this.runs.delete(tenantId));
    this.runs.set(tenantId, run);
  }

  /** Settles once no run is going or asked for (tests, a clean shutdown). */
  async idle(): Promise<void> {
    while (this.runs.size > 0) await Promise.allSettled([...this.runs.values()]);
  }
}

/** The part of a DynamoDB Stream record the chain writer reads: the item's keys. */
export interface StreamRecordKeys {
  dynamodb?: { Keys?: Record<string, { S?: string } | undefined> };
}

/**
 * The tenants whose entries a batch of stream records announces (each record is the INSERT of a
 * waiting entry, `TENANT#<tid>` / `AUDITQ#…`), once each, in the order first seen.
 */
export function tenantsAnnounced(records: readonly StreamRecordKeys[]): string[] {
  const tenants = new Set<string>();
  for (const record of records) {
    const pk = record.dynamodb?.Keys?.pk?.S;
    const sk = record.dynamodb?.Keys?.sk?.S;
    if (pk?.startsWith('TENANT#') && sk?.startsWith('AUDITQ#')) tenants.add(pk.slice('TENANT#'.length));
  }
  return [...tenants];
}

/**
 * The stream consumer's work: a run of the chain writer for each tenant the batch announces. A
 * run that fails (the table or the anchor store unavailable) fails the batch, so Lambda retries
 * it; a run refused because the chain no longer reaches its anchor does not (retrying cannot mend
 * it): it is logged, the entries wait, and verify-audit names the damage.
 */
export async function chainAnnouncedTenants(
  deps: ChainWriterDeps,
  records: readonly StreamRecordKeys[],
): Promise<ChainRun[]> {
  const runs: ChainRun[] = [];
  for (const tenantId of tenantsAnnounced(records)) runs.push(await chainWaitingEntries(deps, tenantId));
  return runs;
}
