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
import { closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, writeFileSync } from 'node:fs';
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
  bytesOf,
  type CompiledIndexData,
  currentCompiledIndexData,
  int32sOf,
  isCurrent,
  type StoredArray,
  storedArray,
  storedNearTokens,
  uint16sOf,
} from './compiled-index.ts';
import { buildIndex } from './name-index.ts';
import { compileNearTokens } from './near-tokens.ts';
import { attachPeopleLines, type PeopleFile, type PeopleLines, peopleSource } from './snapshot-people.ts';

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
    /** Int32 per person, and one more: where its line starts after the arrays (see `PeopleLines`). */
    starts: StoredArray;
    list_ids: ListId[];
    /** Uint16 per person: its list's position in `list_ids`. */
    person_list: StoredArray;
  };
  /**
   * The typed arrays written as raw bytes after the header line: per field (a dotted path), its
   * byte offset and length from the end of the header line. Absent in files of the earlier
   * layout, whose arrays are base64 text inside the header.
   */
  arrays?: Record<string, [number, number]>;
  /** Bytes of the arrays section, padding included. */
  array_bytes?: number;
}

/** The header's typed arrays, written as raw bytes after it rather than as JSON. */
const ARRAY_FIELDS = [
  'index.df',
  'index.names',
  'index.deletions',
  'index.nameWeights',
  'index.bearerWeights',
  'index.namesByDate.dates',
  'index.namesByDate.start',
  'index.namesByDate.nameIds',
  'index.near.start',
  'index.near.ids',
  'index.near.sims',
  'people_lines.starts',
  'people_lines.person_list',
] as const;

/** The object holding a dotted path's last field, and that field's name. */
function fieldOf(header: object, path: string): [Record<string, unknown>, string] {
  const keys = path.split('.');
  let owner = header as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) owner = owner[key] as Record<string, unknown>;
  return [owner, keys[keys.length - 1]];
}

/** Arrays start on 8-byte boundaries (of the file), where a Float64Array can view them in place. */
const ALIGN = 8;
const padding = (length: number): number => (ALIGN - (length % ALIGN)) % ALIGN;

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

/** The snapshot file's bytes (what `writeSnapshot` writes and a sync uploads). */
export function serialiseSnapshot(snapshot: WatchlistSnapshot): Buffer {
  const { people, ...rest } = snapshot;
  // Non-ASCII characters are written as JSON escapes: the header and the people's lines are ASCII,
  // read as latin1, several times faster at cold start than decoding UTF-8, they parse into compact
  // one-byte strings, and the byte offsets of the people's lines are their character offsets.
  const lines = people.map((person) => ascii(JSON.stringify(compactPerson(person))));
  const starts = new Int32Array(lines.length + 1);
  let at = 1; // after "["
  for (let p = 0; p < lines.length; p++) {
    starts[p] = at;
    at += lines[p].length + 2; // ",\n", or "]" and the file's last line break
  }
  starts[lines.length] = lines.length === 0 ? 3 : at;
  const listIds = [...new Set(people.map((person) => person.list_id))];
  const index = currentCompiledIndexData(snapshot);
  // Worked out on the index this compilation makes (attached to the snapshot, so not compiled again).
  index.near ??= storedNearTokens(compileNearTokens(buildIndex(snapshot)));
  const header: SnapshotHeader = {
    ...rest,
    // Copies: the arrays' fields are emptied below, and the compilation stays attached.
    index: { ...index, namesByDate: { ...index.namesByDate }, near: { ...index.near } },
    people_lines: {
      starts: storedArray(starts),
      list_ids: listIds,
      person_list: storedArray(Uint16Array.from(people, (person) => listIds.indexOf(person.list_id))),
    },
  };
  const arrays: Uint8Array[] = [];
  const placed: Record<string, [number, number]> = {};
  let offset = 0;
  for (const path of ARRAY_FIELDS) {
    const [owner, key] = fieldOf(header, path);
    const bytes = bytesOf(owner[key] as StoredArray);
    const pad = padding(offset);
    if (pad > 0) arrays.push(new Uint8Array(pad));
    offset += pad;
    placed[path] = [offset, bytes.byteLength];
    arrays.push(bytes);
    offset += bytes.byteLength;
    owner[key] = '';
  }
  const tail = padding(offset);
  if (tail > 0) arrays.push(new Uint8Array(tail));
  header.arrays = placed;
  header.array_bytes = offset + tail;
  const json = ascii(JSON.stringify(header));
  // Spaces after the JSON (which JSON.parse allows) put the arrays on an 8-byte boundary.
  const headerLine = `${json}${' '.repeat(padding(json.length + 1))}\n`;
  return Buffer.concat([
    Buffer.from(headerLine, 'latin1'),
    ...arrays,
    Buffer.from(`[${lines.join(',\n')}]\n`, 'latin1'),
  ]);
}

/** How much of the file a cold start reads at a time while looking for the header line's end. */
const READ_CHUNK = 4 << 20;

/** The buffer a person's line is first read into; a longer line gets a larger one. */
const LINE_BUFFER = 16 << 10;

/** Open snapshot files whose people are read as asked for, closed when their reader is collected. */
const openFiles = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
});

/**
 * Reads a snapshot file, restoring the arrays `writeSnapshot` left out. The stored name index is
 * kept beside the returned snapshot (see `createMatcher`), not on it. A cold start reads the header
 * line and the arrays only (a third of the file); each person's line is read when the matcher
 * first reports them, or all at once when `snapshot.people` is read. The file stays open for that
 * (a snapshot rewritten meanwhile is renamed over it: the open file is still the one read).
 * `readChunk`: how much is read at a time while looking for the header line's end.
 */
export function readSnapshot(path: string, readChunk: number = READ_CHUNK): WatchlistSnapshot {
  const fd = openSync(path, 'r');
  let keepOpen = false;
  try {
    const size = fstatSync(fd).size;
    // Not zeroed: the people's part stays untouched, and so not resident, until read.
    const bytes = Buffer.allocUnsafeSlow(size);
    /** Reads the file's bytes from `from` to `to` into `target`, from its offset `at` on. */
    const readInto = (target: Buffer, at: number, from: number, to: number): void => {
      for (let done = 0; from + done < to; ) {
        const n = readSync(fd, target, at + done, to - from - done, from + done);
        if (n === 0) throw new Error(`snapshot file ${path} ended at byte ${from + done} of ${size}`);
        done += n;
      }
    };
    // Bytes read from the start of the file.
    let filled = 0;
    const readTo = (end: number): void => {
      if (end <= filled) return;
      readInto(bytes, filled, filled, end);
      filled = end;
    };
    let headerEnd = -1;
    while (headerEnd < 0 && filled < size) {
      const from = filled;
      readTo(Math.min(size, filled + readChunk));
      headerEnd = bytes.subarray(0, filled).indexOf(10, from);
    }
    if (headerEnd < 0) return parseSingleObject(bytes);
    // Each person's line is read on its own, into one reused buffer, when first reported.
    let lineBuffer = Buffer.allocUnsafe(LINE_BUFFER);
    const file: PeopleFile = {
      line(start, end) {
        if (end - start > lineBuffer.length) lineBuffer = Buffer.allocUnsafe(2 * (end - start));
        readInto(lineBuffer, 0, start, end);
        return lineBuffer.subarray(0, end - start);
      },
      fillTo: readTo,
    };
    const snapshot = parseLines(bytes, headerEnd, readTo, file);
    // Closed when `file` is collected: the people's source holds it as long as a matcher built on
    // the snapshot may ask for someone, which outlives the snapshot object itself.
    openFiles.register(file, fd);
    keepOpen = true;
    return snapshot;
  } finally {
    if (!keepOpen) closeSync(fd);
  }
}

/** Parses a snapshot file's bytes (from the snapshot store). */
export function parseSnapshot(bytes: Buffer): WatchlistSnapshot {
  const headerEnd = bytes.indexOf(10);
  return headerEnd < 0 ? parseSingleObject(bytes) : parseLines(bytes, headerEnd);
}

/** The current layout: the header line parsed, the people left as bytes until asked for. */
function parseLines(
  bytes: Buffer,
  headerEnd: number,
  readTo?: (end: number) => void,
  file?: PeopleFile,
): WatchlistSnapshot {
  const header = JSON.parse(bytes.toString('latin1', 0, headerEnd)) as SnapshotHeader;
  let base = headerEnd + 1;
  readTo?.(base + (header.array_bytes ?? 0));
  if (header.arrays !== undefined) {
    // The arrays are views of the file's bytes, in place (bytesOf copies one only if unaligned).
    for (const [path, [offset, length]] of Object.entries(header.arrays)) {
      const [owner, key] = fieldOf(header, path);
      owner[key] = bytes.subarray(base + offset, base + offset + length);
    }
    base += header.array_bytes ?? 0;
  }
  const { index, people_lines, arrays: _arrays, array_bytes: _arrayBytes, ...rest } = header;
  const { format_version, built_at, lists, ...more } = rest;
  const snapshot: WatchlistSnapshot = { format_version, built_at, lists, people: [], ...more };
  const lines: PeopleLines = {
    base,
    starts: int32sOf(people_lines.starts),
    listIds: people_lines.list_ids,
    personList: uint16sOf(people_lines.person_list),
  };
  attachPeopleLines(snapshot, bytes, lines, file);
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
