/**
 * A list file the sync refused (lib/sync/sanity.ts), as held beside the snapshots for an
 * operator's review (lib/sync/review.ts).
 */
import type { ListedPerson, ListId } from '../watchlists/types.ts';
import type { SanitySummary } from './sanity.ts';
import type { SnapshotStore } from './snapshot-store.ts';

/** A refused list as held: the parsed people (public list data) and why it was refused. */
export interface HeldCandidate {
  list_id: ListId;
  held_at: string;
  origin: string;
  content_hash: string;
  source_date: string | null;
  fetched_on: string;
  entity_count: number;
  reasons: string[];
  summary: SanitySummary;
  people: ListedPerson[];
}

/** Holds a refused list; false when the store cannot hold files (the list is then only refused). */
export async function holdCandidate(store: SnapshotStore, candidate: HeldCandidate): Promise<boolean> {
  if (!store.held) return false;
  await store.held.put(candidate.list_id, JSON.stringify(candidate));
  return true;
}

export async function readHeld(store: SnapshotStore, listId: string): Promise<HeldCandidate | undefined> {
  const body = await store.held?.get(listId);
  return body ? (JSON.parse(body.toString('utf8')) as HeldCandidate) : undefined;
}
