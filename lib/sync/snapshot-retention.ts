/**
 * How long a watchlist snapshot version is kept: SNAPSHOT_RETENTION_DAYS after a newer one replaced
 * it, so every screen younger than that can be replayed on the lists it was matched against. The
 * S3 bucket's lifecycle rule (infra/cdk/constructs/list-sync.ts) and the local store's pruning
 * (lib/sync/snapshot-store.ts) both apply it; a replay of an older screen names it.
 */

/** The rule in words, for a `detail` that tells a caller why a version is gone. */
export function retentionRule(days: number): string {
  return `a snapshot version is kept for ${days} day${days === 1 ? '' : 's'} after a newer one replaced it`;
}
