import type { Table } from '../store/table.ts';
import type { AnchorStore, AuditAnchor } from './anchor-store.ts';
import { countPendingEntries } from './audit-table.ts';
import { type BrokenLink, type ChainVerdict, ChainVerifier } from './chain.ts';
import { allAuditEntries } from './trail.ts';

/** A head an examiner kept (from an export's end record, or an earlier verification). */
export interface ExpectedHead {
  /** The seq of the entry the head names (the trail's count when it was kept). */
  count: number;
  /** That entry's hash. */
  hash?: string;
}

export type TrailVerdict = ChainVerdict & {
  /** The newest anchor published outside the table, when there is an anchor store. */
  anchor: AuditAnchor | null;
  /** Entries written by their actions and not yet chained (the chain writer lags by seconds). */
  waiting: number;
};

/**
 * Reads the tenant's whole trail from the store, a page at a time, and checks it: first its
 * chain (lib/audit/chain.ts: every hash recomputes, every seq follows, every entry names the one
 * before), then against heads kept outside the table, which is what a chain alone cannot prove:
 * - the newest anchor (./anchor-store.ts): the trail must reach its seq (else its newest entries
 *   were removed: `cut`) and the entry there must still have its hash (else the chain was
 *   rewritten from there or earlier: `rewritten`);
 * - a head an examiner kept (`expect`), the same way.
 * Memory stays bounded by one page, however long the trail.
 */
export async function verifyTenantTrail(
  table: Table,
  tenantId: string,
  options: { anchors?: AnchorStore; expect?: ExpectedHead } = {},
): Promise<TrailVerdict> {
  // The anchor first: one published while the trail is read names an entry the read reaches.
  const anchor = (await options.anchors?.latest(tenantId)) ?? null;
  const heads = [
    ...(anchor
      ? [{ seq: anchor.seq, hash: anchor.hash, what: `the anchor published at ${anchor.anchored_at}` }]
      : []),
    ...(options.expect
      ? [{ seq: options.expect.count, hash: options.expect.hash, what: 'the head you expected' }]
      : []),
  ];
  const hashAt = new Map<number, string>();
  const verifier = new ChainVerifier();
  for await (const entry of allAuditEntries(table, tenantId)) {
    if (verifier.push(entry) && heads.some((head) => head.seq === entry.seq))
      hashAt.set(entry.seq, entry.hash);
  }
  const chain = verifier.finish();
  const waiting = await countPendingEntries(table, tenantId);
  if (!chain.ok) return { ...chain, anchor, waiting };
  for (const head of heads) {
    const broken = (problem: BrokenLink['problem'], detail: string): TrailVerdict => ({
      ok: false,
      seq: head.seq,
      problem,
      detail,
      verified: chain.count,
      anchor,
      waiting,
    });
    if (head.seq > chain.head_seq)
      return broken(
        'cut',
        `the trail ends at entry ${chain.head_seq}, but ${head.what} names entry ${head.seq}: entries ${chain.head_seq + 1} to ${head.seq} were removed`,
      );
    if (head.hash !== undefined && hashAt.get(head.seq) !== head.hash)
      return broken(
        'rewritten',
        `entry ${head.seq} does not have the hash ${head.what} names: the trail was rewritten at or before entry ${head.seq}`,
      );
  }
  return { ...chain, anchor, waiting };
}
