/**
 * What a sync changed in a list: the listed people added, changed and removed, by entry id and a
 * hash of each entry's content. Delta rescreens start from the added and changed people: only
 * customers whose names resemble those people can newly match, so the work follows the size of
 * the change, not the size of the list or the number of customers.
 */
import { createHash } from 'node:crypto';
import { compactPerson } from '../watchlists/snapshot.ts';
import type { ListedPerson, ListId } from '../watchlists/types.ts';

export interface ListDiff {
  listId: ListId;
  /** People whose entry id was not in the list before. */
  added: ListedPerson[];
  /** People whose entry id was there with different content (names, dates, programmes...). */
  changed: ListedPerson[];
  /** Entry ids no longer in the list (delisted). */
  removed: string[];
}

/**
 * SHA-1 of an entry as the snapshot stores it (so a person read back from a stored snapshot and
 * the same person freshly parsed hash alike). Keys are sorted so that the hash does not depend on
 * the order a parser set them in; arrays keep their order (a new primary name is a change).
 */
export function personHash(person: ListedPerson): string {
  const stored = compactPerson(person);
  // The date a PEP's tier was judged on moves with every download; the tier itself is content.
  if (stored.pep?.as_of) stored.pep = { ...stored.pep, as_of: undefined };
  return createHash('sha1').update(stableJson(stored)).digest('hex');
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The difference between a list's people before and after a sync. */
export function diffList(
  listId: ListId,
  before: readonly ListedPerson[],
  after: readonly ListedPerson[],
): ListDiff {
  const previous = new Map<string, string>();
  for (const person of before) previous.set(person.entity_id, personHash(person));
  const added: ListedPerson[] = [];
  const changed: ListedPerson[] = [];
  const seen = new Set<string>();
  for (const person of after) {
    seen.add(person.entity_id);
    const hash = previous.get(person.entity_id);
    if (hash === undefined) added.push(person);
    else if (hash !== personHash(person)) changed.push(person);
  }
  const removed = [...previous.keys()].filter((id) => !seen.has(id));
  return { listId, added, changed, removed };
}

/** True when the diff holds nothing. */
export function isEmptyDiff(diff: ListDiff): boolean {
  return diff.added.length === 0 && diff.changed.length === 0 && diff.removed.length === 0;
}
