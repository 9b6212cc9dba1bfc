/**
 * One person, one match: links the listings of the same person on several sanctions lists (UN,
 * EU, UK, OFAC, Canada, Australia, New Zealand) into one `ListedPerson` that carries all of them
 * in `listings`, so an analyst reviews the person once, with every programme and listing in view.
 *
 * It runs once, when the snapshot is compiled, so screening pays nothing for it (and the index
 * holds fewer records). The rule, also in the README:
 *
 * 1. **Shared publisher identifiers**: a UN reference number quoted by the EU, the UK or
 *    Australia (`un:`), the OFSI Group ID the FCDO list carries (`ofsi:`), OFAC's entity number
 *    in either OFAC format (`ofac:`). The publishers themselves say it is the same listing, so the
 *    names need not agree; but a link between listings that share no name part at all, or whose
 *    dates of birth conflict, is refused as a mistyped reference. The OFSI Group ID links first
 *    (the UK's own id for its own designation), then OFAC's, then UN references; and a name-only
 *    link (rule 2) never joins two listings whose publishers gave them different ids of one kind.
 * 2. **Strong full-name agreement**: two listings whose full names have exactly the same parts
 *    (every part, patronymic included, in any order, ignoring case, accents and punctuation), with
 *    dates of birth that agree (some date of one falls within some date of the other: a year-only
 *    date agrees with any date in that year) or are absent on one side, never conflicting:
 *    - both sides state a date of birth and they agree: any primary or strong name of 3+ parts, or
 *      of 2 parts when both state the same complete date;
 *    - one side states none: the primary names of both, 3+ parts (a two-part name shared by two
 *      people is too common to link on the name alone);
 *    - neither states one: never linked on the name.
 * 3. **Full-name agreement under transliteration** (lib/watchlists/transliterated-names.ts:
 *    ILINYKH / ILYNIKH, Alexey / Aleksey, Dmitriy / Dmitrii, Mohammed / Muhammad, a patronymic
 *    one list leaves out): two listings on different lists, both with dates of birth that agree
 *    (the same complete date for a two-part name), and no conflicting nationality or gender.
 * 4. A link that would put two listings with conflicting dates of birth into one person (through a
 *    third listing without one) is refused: every dated listing of a linked person agrees with
 *    every other.
 * 5. Lists marked `historical` (the retired OFSI list) are kept only as additions to a linked
 *    current listing (dates of birth, nationalities, places the current copy lacks); alone they
 *    are dropped, never screened.
 *
 * Only sanctions lists are linked: PEP tiers and criminal notices are per listing, and the checks
 * are reported separately anyway.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { dobKey } from './listed-dates.ts';
import { compactPerson, restorePerson } from './listed-person.ts';
import { conflictingFacts, transliterationKeys } from './transliterated-names.ts';
import type {
  CheckType,
  ListDescriptor,
  ListedDob,
  ListedName,
  ListedPerson,
  ListId,
  Listing,
  PersonLink,
  WatchlistSnapshot,
} from './types.ts';

/** Shared-id kinds in the order they link (see `findLinks`). */
const ID_PRIORITY = ['ofsi', 'ofac', 'un'];
const idNamespace = (id: string) => id.slice(0, id.indexOf(':'));

const STRENGTH_RANK: Record<ListedName['strength'], number> = { primary: 0, strong: 1, weak: 2 };

/** Lowercase, accents, apostrophes and punctuation removed; parts split on spaces and hyphens. */
export function nameParts(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['’`ʼ‘]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The parts of a name as one order-insensitive key ("putin vladimir vladimirovich"). */
export function fullNameKey(name: string): { key: string; parts: number } {
  const parts = nameParts(name).sort();
  return { key: parts.join(' '), parts: parts.length };
}

/** The span of days a listed date of birth covers (an approximate year widened by one year each side). */
function dobSpan(dob: ListedDob): [string, string] {
  const pad = (n: number) => String(n).padStart(4, '0');
  switch (dob.kind) {
    case 'date':
      return [dob.date, dob.date];
    case 'month': {
      const m = String(dob.month).padStart(2, '0');
      return [`${pad(dob.year)}-${m}-01`, `${pad(dob.year)}-${m}-31`];
    }
    case 'year': {
      const slack = dob.approximate ? 1 : 0;
      return [`${pad(dob.year - slack)}-01-01`, `${pad(dob.year + slack)}-12-31`];
    }
    case 'range':
      return [`${pad(dob.from)}-01-01`, `${pad(dob.to)}-12-31`];
  }
}

/** Dates of birth agree when some date of one side falls within some date of the other. */
export function dobsAgree(a: readonly ListedDob[], b: readonly ListedDob[]): boolean {
  for (const x of a) {
    const [xFrom, xTo] = dobSpan(x);
    for (const y of b) {
      const [yFrom, yTo] = dobSpan(y);
      if (xFrom <= yTo && yFrom <= xTo) return true;
    }
  }
  return false;
}

/** Both state the same complete date of birth (what a two-part name needs to be linked). */
function sameFullDate(a: ListedPerson, b: ListedPerson): boolean {
  return a.dobs.some((x) => x.kind === 'date' && b.dobs.some((y) => y.kind === 'date' && y.date === x.date));
}

export interface LinkOptions {
  /** Each list's descriptor (category, historical flag); lists absent here are not linked. */
  descriptors: ReadonlyMap<ListId, Pick<ListDescriptor, 'category' | 'historical'>>;
  /** Check types whose lists are linked; sanctions by default. */
  categories?: readonly CheckType[];
}

/** Union-find over listing indexes; each root remembers its members. */
class Clusters {
  private readonly parent: number[];
  readonly members: number[][];
  constructor(size: number) {
    this.parent = Array.from({ length: size }, (_, i) => i);
    this.members = Array.from({ length: size }, (_, i) => [i]);
  }
  find(i: number): number {
    let root = i;
    while (this.parent[root] !== root) root = this.parent[root];
    while (this.parent[i] !== root) [i, this.parent[i]] = [this.parent[i], root];
    return root;
  }
  union(a: number, b: number): void {
    const [ra, rb] = [this.find(a), this.find(b)];
    if (ra === rb) return;
    const [big, small] = this.members[ra].length >= this.members[rb].length ? [ra, rb] : [rb, ra];
    this.parent[small] = big;
    this.members[big].push(...this.members[small]);
    this.members[small] = [];
  }
}

function listingOf(person: ListedPerson, linkedBy: string): Listing {
  const listing: Listing = {
    list_id: person.list_id,
    entity_id: person.entity_id,
    primary_name: person.primary_name,
    programmes: person.programmes,
    linked_by: linkedBy,
  };
  if (person.reference) listing.reference = person.reference;
  if (person.listed_on) listing.listed_on = person.listed_on;
  if (person.url) listing.url = person.url;
  return listing;
}

/** Merges a linked person's listings (in list order) into one person carrying all of them. */
function merge(linked: { person: ListedPerson; linkedBy: string }[]): ListedPerson {
  const members = linked.map((m) => m.person);
  const [first] = members;
  // Keyed unions (this runs on every cold start for a few thousand people: no linear scans).
  const names = new Map<string, ListedName>();
  for (const member of members) {
    for (const name of member.names) {
      // Another list's primary name is one more strong name of the same person.
      const strength = member === first || name.strength === 'weak' ? name.strength : 'strong';
      const key = name.name.toLowerCase();
      const existing = names.get(key);
      if (!existing) names.set(key, { name: name.name, strength });
      else if (STRENGTH_RANK[strength] < STRENGTH_RANK[existing.strength]) existing.strength = strength;
    }
  }
  const union = (pick: (p: ListedPerson) => readonly string[] | undefined): string[] => {
    const out = new Map<string, string>();
    for (const member of members)
      for (const v of pick(member) ?? []) if (!out.has(v.toLowerCase())) out.set(v.toLowerCase(), v);
    return [...out.values()];
  };
  const dobs = new Map<string, ListedDob>();
  for (const member of members)
    for (const dob of member.dobs) if (!dobs.has(dobKey(dob))) dobs.set(dobKey(dob), dob);
  const person: ListedPerson = {
    ...first,
    names: [...names.values()],
    dobs: [...dobs.values()],
    nationalities: union((p) => p.nationalities),
    locations: union((p) => p.locations),
    programmes: union((p) => p.programmes),
    listings: linked.map((m) => listingOf(m.person, m.linkedBy)),
  };
  const gender = members.find((m) => m.gender)?.gender;
  if (gender) person.gender = gender;
  const shared = union((p) => p.shared_ids);
  if (shared.length) person.shared_ids = shared;
  return person;
}

/**
 * Finds the listings of `people` (in list order) that are one person. Returns one `PersonLink`
 * per person with two or more listings; everyone else stays as parsed.
 */
export function findLinks(people: readonly ListedPerson[], options: LinkOptions): PersonLink[] {
  const categories = new Set(options.categories ?? ['sanctions']);
  const linkable = people.map((p) => {
    const descriptor = options.descriptors.get(p.list_id);
    return descriptor !== undefined && categories.has(descriptor.category);
  });
  const clusters = new Clusters(people.length);
  const reasons = new Map<number, string>();
  const dated = (i: number) => people[i].dobs.length > 0;

  /** Every dated listing of one cluster agrees with every dated listing of the other. */
  const compatible = (a: number, b: number): boolean => {
    const left = clusters.members[clusters.find(a)].filter(dated);
    const right = clusters.members[clusters.find(b)].filter(dated);
    return left.every((l) => right.every((r) => dobsAgree(people[l].dobs, people[r].dobs)));
  };
  const link = (a: number, b: number, reason: string): void => {
    if (clusters.find(a) === clusters.find(b) || !compatible(a, b)) return;
    clusters.union(a, b);
    const later = Math.max(a, b);
    if (!reasons.has(later)) reasons.set(later, reason);
  };

  // 1. Shared publisher identifiers, unless the two listings share no name part at all (a
  // mistyped reference: the UK transcription gives one person another's UN number).
  const partsOf = new Map<number, Set<string>>();
  const nameSet = (i: number) => {
    let set = partsOf.get(i);
    if (!set) {
      set = new Set(people[i].names.flatMap((n) => nameParts(n.name)).filter((part) => part.length >= 3));
      partsOf.set(i, set);
    }
    return set;
  };
  const shareNamePart = (a: number, b: number) => [...nameSet(a)].some((part) => nameSet(b).has(part));
  // The UK's own Group ID first (FCDO and OFSI rows of one UK designation), then OFAC's entity
  // number, then a UN reference quoted by another publisher: when two of them disagree on dates of
  // birth, the nearer publisher's link is the one kept.
  const byId = new Map<string, number>();
  const idLinks: { id: string; i: number }[] = [];
  people.forEach((person, i) => {
    if (linkable[i]) for (const id of person.shared_ids ?? []) idLinks.push({ id, i });
  });
  idLinks.sort((a, b) => ID_PRIORITY.indexOf(idNamespace(a.id)) - ID_PRIORITY.indexOf(idNamespace(b.id)));
  for (const { id, i } of idLinks) {
    const seen = byId.get(id);
    if (seen === undefined) byId.set(id, i);
    else if (shareNamePart(seen, i)) link(seen, i, id);
  }

  /**
   * Publisher ids two clusters hold that say they are different listings: both carry an id of the
   * same kind (two OFSI Group IDs, two OFAC numbers) and none in common. A name-only merge never
   * overrides that.
   */
  const idsOf = (i: number) => clusters.members[clusters.find(i)].flatMap((m) => people[m].shared_ids ?? []);
  const publishersDisagree = (a: number, b: number): boolean => {
    const [left, right] = [idsOf(a), idsOf(b)];
    if (!left.length || !right.length) return false;
    if (left.some((id) => right.includes(id))) return false;
    const kinds = new Set(left.map(idNamespace));
    return right.some((id) => kinds.has(idNamespace(id)));
  };
  const linkByName = (a: number, b: number, reason: string): void => {
    if (!publishersDisagree(a, b)) link(a, b, reason);
  };

  // 2. Strong full-name agreement, with agreeing or one-sided dates of birth.
  const byName = new Map<string, number[]>();
  people.forEach((person, i) => {
    if (!linkable[i]) return;
    const keys = new Map<string, boolean>();
    for (const name of person.names) {
      if (name.strength === 'weak') continue;
      const { key, parts } = fullNameKey(name.name);
      if (parts >= 2) keys.set(key, keys.get(key) === true || name.strength === 'primary');
    }
    for (const [key, primary] of keys) {
      const entry = i * 2 + (primary ? 1 : 0);
      const list = byName.get(key);
      if (list) list.push(entry);
      else byName.set(key, [entry]);
    }
  });
  for (const [key, entries] of byName) {
    if (entries.length < 2) continue;
    const parts = key.split(' ').length;
    for (let x = 0; x < entries.length; x++) {
      for (let y = x + 1; y < entries.length; y++) {
        const [a, aPrimary] = [entries[x] >> 1, (entries[x] & 1) === 1];
        const [b, bPrimary] = [entries[y] >> 1, (entries[y] & 1) === 1];
        if (dated(a) && dated(b)) {
          const agree =
            parts >= 3 ? dobsAgree(people[a].dobs, people[b].dobs) : sameFullDate(people[a], people[b]);
          if (agree) linkByName(a, b, 'name and date of birth');
        } else if ((dated(a) || dated(b)) && aPrimary && bPrimary && parts >= 3) {
          linkByName(a, b, 'full name (no date of birth on one side)');
        }
      }
    }
  }

  // 3. Full-name agreement under transliteration (ILINYKH / ILYNIKH, Alexey / Aleksey), with a
  // patronymic one list leaves out: only with dates of birth on both sides that agree (the same
  // complete date for a two-part name), and never across a conflicting nationality or gender.
  const byTransliteration = new Map<string, number[]>();
  people.forEach((person, i) => {
    if (!linkable[i] || !dated(i)) return;
    const keys = new Set<string>();
    for (const name of person.names) {
      if (name.strength === 'weak') continue;
      for (const key of transliterationKeys(nameParts(name.name))) if (key.includes(' ')) keys.add(key);
    }
    for (const key of keys) {
      const list = byTransliteration.get(key);
      if (list) list.push(i);
      else byTransliteration.set(key, [i]);
    }
  });
  for (const [key, entries] of byTransliteration) {
    const parts = key.split(' ').length;
    for (let x = 0; x < entries.length; x++) {
      for (let y = x + 1; y < entries.length; y++) {
        const [a, b] = [entries[x], entries[y]];
        if (people[a].list_id === people[b].list_id || conflictingFacts(people[a], people[b])) continue;
        const agree =
          parts >= 3 ? dobsAgree(people[a].dobs, people[b].dobs) : sameFullDate(people[a], people[b]);
        if (agree) linkByName(a, b, 'name under transliteration and date of birth');
      }
    }
  }

  const links: PersonLink[] = [];
  people.forEach((_, i) => {
    const members = clusters.members[clusters.find(i)];
    if (members.length < 2 || Math.min(...members) !== i) return;
    const sorted = [...members].sort((a, b) => a - b);
    links.push({
      people: sorted,
      linked_by: sorted.map((m, n) => (n === 0 ? 'primary' : (reasons.get(m) ?? 'primary'))),
    });
  });
  return links;
}

export interface LinkedView {
  /** The people to index: each linked person merged, historical listings alone left out. */
  people: ListedPerson[];
  /** Individuals screened per list, alone or as part of a linked person. */
  kept: Map<ListId, number>;
  /** Listings screened as part of a person whose first listing is on another list (or an earlier entry of the same list). */
  linked: Map<ListId, number>;
}

/**
 * The people a matcher indexes, from the per-list people and their links: a linked person's
 * listings become one person (see `merge`), a historical list's listing alone is dropped.
 */
export function applyLinks(
  people: readonly ListedPerson[],
  links: readonly PersonLink[],
  descriptors: ReadonlyMap<ListId, Pick<ListDescriptor, 'historical'>>,
): LinkedView {
  const linkOf = new Map<number, PersonLink>();
  for (const link of links) for (const i of link.people) linkOf.set(i, link);
  const out: ListedPerson[] = [];
  const kept = new Map<ListId, number>();
  const linked = new Map<ListId, number>();
  const count = (map: Map<ListId, number>, id: ListId) => map.set(id, (map.get(id) ?? 0) + 1);
  const historical = (person: ListedPerson) => descriptors.get(person.list_id)?.historical === true;
  people.forEach((person, i) => {
    const link = linkOf.get(i);
    if (!link) {
      if (historical(person)) return; // a historical listing alone is not screened
      count(kept, person.list_id);
      out.push(person);
      return;
    }
    if (link.people[0] !== i) return; // emitted with its first listing
    const members = link.people.map((m, n) => ({ person: people[m], linkedBy: link.linked_by[n] }));
    // A current listing leads: a historical one never gives the person its list.
    const ordered = [
      ...members.filter((m) => !historical(m.person)),
      ...members.filter((m) => historical(m.person)),
    ];
    if (historical(ordered[0].person)) return;
    ordered[0] = { ...ordered[0], linkedBy: 'primary' };
    for (const m of ordered) count(kept, m.person.list_id);
    for (const m of ordered.slice(1)) count(linked, m.person.list_id);
    out.push(merge(ordered));
  });
  return { people: out, kept, linked };
}

function descriptorsOf(snapshot: WatchlistSnapshot): Map<ListId, Omit<ListDescriptor, 'source_date'>> {
  return new Map(snapshot.lists.map((list) => [list.id, list]));
}

/**
 * Links a snapshot's listings (what compiling a snapshot does, from the bundled files or from a
 * sync). Takes every list's people as parsed (`perListPeople` of a snapshot gives them back) and
 * returns the snapshot to store: `people` one per person (linked listings merged, historical
 * listings alone left out), the per-list records not in `people` as themselves kept as gzipped
 * JSON in `listing_records` (read only by a sync: a cold start pays one short string), and each
 * list's `individual_count` and `linked_count`.
 */
export function linkSnapshot(snapshot: WatchlistSnapshot): WatchlistSnapshot {
  const raw = snapshot.people;
  const descriptors = descriptorsOf(snapshot);
  const links = findLinks(raw, { descriptors });
  const { people, kept, linked } = applyLinks(raw, links, descriptors);
  const screened = new Set(people);
  const records = raw.filter((person) => !screened.has(person)).map(compactPerson);
  return {
    ...snapshot,
    lists: snapshot.lists.map((list) => ({
      ...list,
      individual_count: kept.get(list.id) ?? 0,
      linked_count: linked.get(list.id) ?? 0,
    })),
    people,
    listing_records: gzipSync(JSON.stringify(records)).toString('base64'),
  };
}

/** Every list's people as parsed, from a snapshot made by `linkSnapshot` (or one never linked). */
export function perListPeople(snapshot: WatchlistSnapshot): ListedPerson[] {
  const records = snapshot.listing_records
    ? (JSON.parse(
        gunzipSync(Buffer.from(snapshot.listing_records, 'base64')).toString('utf8'),
      ) as ListedPerson[])
    : [];
  return [...snapshot.people.filter((person) => !person.listings), ...records.map(restorePerson)];
}
