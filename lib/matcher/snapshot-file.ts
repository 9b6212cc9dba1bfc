/**
 * The snapshot file: the watchlist snapshot (lib/watchlists/snapshot.ts) written together with the
 * matcher's compiled name index (compiled-index.ts), so a cold start neither parses the lists nor
 * tokenises their names. An index compiled by other matcher code is recompiled on load, never
 * served.
 *
 * Layout: a first line of JSON holding everything but the people (lists, index, where each
 * person's line is and which list each is on), then the people as one JSON array, one person a
 * line. A cold start parses the first line only and keeps the people's bytes: the matcher parses
 * a person when it reports them (snapshot-people.ts). Every byte is ASCII (other characters are
 * JSON escapes). A file of the earlier layout (one JSON object, no line break) is still read.
 */

import { isAscii } from 'node:buffer';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { logger } from '../common/log.ts';
import { restorePerson } from '../watchlists/listed-person.ts';
import {
  buildSnapshot,
  compactPerson,
  defaultDataDir,
  defaultSnapshotPath,
  SNAPSHOT_FORMAT_VERSION,
} from '../watchlists/snapshot.ts';
import type { ListSource } from '../watchlists/sources.ts';
import type { ListId, WatchlistSnapshot } from '../watchlists/types.ts';
import {
  attachCompiledIndex,
  attachedCompiledIndex,
  type CompiledIndexData,
  currentCompiledIndexData,
  fromBase64,
  isCurrent,
  toBase64,
} from './compiled-index.ts';
import { attachPeopleLines, type PeopleLines, peopleSource } from './snapshot-people.ts';

const NON_ASCII_RE = /[\u007f-\uffff]/g;
const escapeChar = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** The earlier layout: the snapshot plus the compiled name index, as one JSON object. */
interface SnapshotFile extends WatchlistSnapshot {
  index?: CompiledIndexData;
}

/** The first line: the snapshot without its people, the compiled name index, the people's lines. */
interface SnapshotHeader extends Omit<WatchlistSnapshot, 'people'> {
  index: CompiledIndexData;
  people_lines: {
    /** Int32 per person, and one more: where its line starts after the header line (see `PeopleLines`). */
    starts: string;
    list_ids: ListId[];
    /** Uint16 per person: its list's position in `list_ids`. */
    person_list: string;
  };
}

const ascii = (json: string): string => json.replace(NON_ASCII_RE, escapeChar);

/**
 * Writes the snapshot compactly (atomically, through a temporary file), with the matcher's name
 * index compiled by the code running now.
 */
export function writeSnapshot(snapshot: WatchlistSnapshot, path: string = defaultSnapshotPath()): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, serialiseSnapshot(snapshot));
  renameSync(temporary, path);
}

/** The snapshot file's text (what `writeSnapshot` writes and a sync uploads). */
export function serialiseSnapshot(snapshot: WatchlistSnapshot): string {
  const { people, ...rest } = snapshot;
  // Non-ASCII characters are written as JSON escapes: an all-ASCII file is read as latin1, several
  // times faster at cold start than decoding UTF-8, parses into compact one-byte strings, and its
  // byte offsets are its character offsets.
  const lines = people.map((person) => ascii(JSON.stringify(compactPerson(person))));
  const starts = new Int32Array(lines.length + 1);
  let at = 1; // after "["
  for (let p = 0; p < lines.length; p++) {
    starts[p] = at;
    at += lines[p].length + 2; // ",\n", or "]" and the file's last line break
  }
  starts[lines.length] = lines.length === 0 ? 3 : at;
  const listIds = [...new Set(people.map((person) => person.list_id))];
  const header: SnapshotHeader = {
    ...rest,
    index: currentCompiledIndexData(snapshot),
    people_lines: {
      starts: toBase64(starts),
      list_ids: listIds,
      person_list: toBase64(Uint16Array.from(people, (person) => listIds.indexOf(person.list_id))),
    },
  };
  return `${ascii(JSON.stringify(header))}\n[${lines.join(',\n')}]\n`;
}

/**
 * Parses a snapshot file, restoring the arrays `writeSnapshot` left out. The stored name index is
 * kept beside the returned snapshot (see `createMatcher`), not on it.
 */
export function readSnapshot(path: string): WatchlistSnapshot {
  return parseSnapshot(readFileSync(path));
}

/** Parses a snapshot file's bytes (from disk or from the snapshot store). */
export function parseSnapshot(bytes: Buffer): WatchlistSnapshot {
  const headerEnd = bytes.indexOf(10);
  return headerEnd < 0 ? parseSingleObject(bytes) : parseLines(bytes, headerEnd);
}

/** The current layout: the header line parsed, the people left as bytes until asked for. */
function parseLines(bytes: Buffer, headerEnd: number): WatchlistSnapshot {
  const { index, people_lines, ...rest } = JSON.parse(
    bytes.toString('latin1', 0, headerEnd),
  ) as SnapshotHeader;
  const { format_version, built_at, lists, ...more } = rest;
  const snapshot: WatchlistSnapshot = { format_version, built_at, lists, people: [], ...more };
  const lines: PeopleLines = {
    base: headerEnd + 1,
    starts: new Int32Array(fromBase64(people_lines.starts).buffer),
    listIds: people_lines.list_ids,
    personList: new Uint16Array(fromBase64(people_lines.person_list).buffer),
  };
  attachPeopleLines(snapshot, bytes, lines);
  attachCompiledIndex(snapshot, index);
  return snapshot;
}

/** The earlier layout, one JSON object. */
function parseSingleObject(bytes: Buffer): WatchlistSnapshot {
  const text = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const { index, ...snapshot } = JSON.parse(text) as SnapshotFile;
  for (const person of snapshot.people) {
    restorePerson(person);
  }
  if (index) attachCompiledIndex(snapshot, index);
  return snapshot;
}

export interface LoadOptions {
  /** Where the list files are when the snapshot has to be built; defaults to the repository's data/. */
  dataDir?: string;
  /** Lists to build when the snapshot has to be built; defaults to every shipped list. */
  sources?: readonly ListSource[];
}

/**
 * Recompiles the stored name index when the matcher code changed since the snapshot was written
 * (normaliser, transliteration, weighting...), and rewrites the file so later cold starts are fast.
 */
function refreshIndex(snapshot: WatchlistSnapshot, path: string): void {
  const stored = attachedCompiledIndex(snapshot);
  if (stored && isCurrent(stored, peopleSource(snapshot))) return;
  logger.info({ path, stored: stored !== undefined }, 'watchlist name index outdated; recompiling');
  try {
    writeSnapshot(snapshot, path);
  } catch (error) {
    // Read-only filesystem: the matcher compiles the index in memory instead.
    logger.warn({ path, err: error }, 'watchlist snapshot could not be rewritten; compiling in memory');
  }
}

function isMissingFile(error: unknown): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * Loads the snapshot. When the file is missing (a fresh checkout: data/snapshot/ is not committed)
 * or was written in an older format, it is built from the files under `dataDir` and written first,
 * so a developer never has to run the build by hand.
 */
export function loadSnapshot(
  path: string = defaultSnapshotPath(),
  options: LoadOptions = {},
): WatchlistSnapshot {
  const started = Date.now();
  try {
    const snapshot = readSnapshot(path);
    if (snapshot.format_version === SNAPSHOT_FORMAT_VERSION) {
      refreshIndex(snapshot, path);
      logger.debug(
        { path, people: peopleSource(snapshot).count, ms: Date.now() - started },
        'watchlist snapshot loaded',
      );
      return snapshot;
    }
    logger.info(
      { path, found: snapshot.format_version, expected: SNAPSHOT_FORMAT_VERSION },
      'watchlist snapshot outdated; rebuilding',
    );
  } catch (error) {
    if (!isMissingFile(error)) throw error;
    logger.info({ path }, 'watchlist snapshot missing; building it from data/');
  }
  const snapshot = buildSnapshot(options.dataDir ?? defaultDataDir(), { sources: options.sources });
  try {
    writeSnapshot(snapshot, path);
  } catch (error) {
    // A read-only filesystem (e.g. a Lambda package) still gets a working in-memory snapshot.
    logger.warn({ path, err: error }, 'watchlist snapshot could not be written; using it in memory');
  }
  logger.info(
    { path, lists: snapshot.lists.length, people: peopleSource(snapshot).count, ms: Date.now() - started },
    'watchlist snapshot built',
  );
  return snapshot;
}
