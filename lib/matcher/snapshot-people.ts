/**
 * The listed people of a snapshot read from its file, parsed one at a time as the matcher reaches
 * them. The file (snapshot-file.ts) writes each person's JSON on a line of its own; a cold start
 * keeps those bytes as they are, and a screen parses only the people it reports (a few dozen), so
 * a cold start does not parse 30,000 people it may never show. Reading `snapshot.people` (a list
 * sync, an evaluation) parses every one at once, reusing those already parsed.
 *
 * Read from a file, each person's line is read on its own when first asked for, into one small
 * buffer: a read at an offset is a few microseconds, and the people's part of the file (two
 * thirds of it) is never copied into memory that a screen would have to touch first.
 */

import { restorePerson } from '../watchlists/listed-person.ts';
import type { ListedPerson, ListId, WatchlistSnapshot } from '../watchlists/types.ts';

/** The listed people by position: how many, each one's list, and each one. */
export interface PeopleSource {
  readonly count: number;
  listId(p: number): ListId;
  person(p: number): ListedPerson;
}

/** Where each person's JSON is in the file: what `snapshot-file.ts` stores in its header. */
export interface PeopleLines {
  /** Byte offset of the people's lines in the file. */
  base: number;
  /** Byte offset (from `base`) where person `p`'s JSON starts; one extra entry: the end of the last + 2. */
  starts: Int32Array;
  /** The lists' ids, and the position in it of each person's list. */
  listIds: ListId[];
  personList: Uint16Array;
}

/**
 * The people's lines of a file read only up to them (snapshot-file.ts `readSnapshot`): `line`
 * reads the file's bytes from `start` to `end` on their own, into a view valid until the next
 * call; `fillTo` reads every byte not yet read, up to `end`, into the same place of the bytes the
 * source was given.
 */
export interface PeopleFile {
  line(start: number, end: number): Buffer;
  fillTo(end: number): void;
}

/** People parsed from the file's bytes as they are asked for. */
class LinesSource implements PeopleSource {
  readonly count: number;
  private bytes: Buffer | undefined;
  private readonly parsed: (ListedPerson | undefined)[];

  constructor(
    bytes: Buffer,
    private readonly lines: PeopleLines,
    private file?: PeopleFile,
  ) {
    this.bytes = bytes;
    this.count = lines.personList.length;
    this.parsed = new Array(this.count);
  }

  listId(p: number): ListId {
    return this.lines.listIds[this.lines.personList[p]];
  }

  person(p: number): ListedPerson {
    let person = this.parsed[p];
    if (person === undefined) {
      const { base, starts } = this.lines;
      // Lines end in ",\n" (the last in "]"): the JSON is the line without them.
      const start = base + starts[p];
      const end = base + starts[p + 1] - 2;
      const text =
        this.file === undefined
          ? (this.bytes as Buffer).toString('latin1', start, end)
          : this.file.line(start, end).toString('latin1');
      person = restorePerson(JSON.parse(text) as ListedPerson);
      this.parsed[p] = person;
    }
    return person;
  }

  /** Every person, parsed in one pass (those parsed already are kept); the bytes are let go. */
  all(): ListedPerson[] {
    const bytes = this.bytes;
    if (bytes === undefined) return this.parsed as ListedPerson[];
    const { base, starts } = this.lines;
    this.file?.fillTo(base + starts[this.count]);
    this.file = undefined;
    const people = JSON.parse(
      bytes.toString('latin1', base, base + starts[this.count] - 1),
    ) as ListedPerson[];
    for (let p = 0; p < this.count; p++) this.parsed[p] ??= restorePerson(people[p]);
    this.bytes = undefined;
    return this.parsed as ListedPerson[];
  }
}

const sources = new WeakMap<WatchlistSnapshot, PeopleSource>();

/**
 * Gives `snapshot` the people of a file's bytes: `peopleSource` serves them one by one, and
 * `snapshot.people` parses them all on first read. With `file`, the people's lines are not in
 * `bytes` yet: each is read from the file when first asked for, and all of them into `bytes`
 * when `snapshot.people` is read.
 */
export function attachPeopleLines(
  snapshot: WatchlistSnapshot,
  bytes: Buffer,
  lines: PeopleLines,
  file?: PeopleFile,
): void {
  const source = new LinesSource(bytes, lines, file);
  sources.set(snapshot, source);
  Object.defineProperty(snapshot, 'people', {
    configurable: true,
    enumerable: true,
    get(): ListedPerson[] {
      const people = source.all();
      Object.defineProperty(snapshot, 'people', {
        value: people,
        writable: true,
        enumerable: true,
        configurable: true,
      });
      return people;
    },
    set(value: ListedPerson[]) {
      sources.delete(snapshot);
      Object.defineProperty(snapshot, 'people', {
        value,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    },
  });
}

/** The snapshot's people by position, without parsing those not asked for. */
export function peopleSource(snapshot: WatchlistSnapshot): PeopleSource {
  const source = sources.get(snapshot);
  if (source !== undefined) return source;
  const people = snapshot.people;
  return { count: people.length, listId: (p) => people[p].list_id, person: (p) => people[p] };
}
