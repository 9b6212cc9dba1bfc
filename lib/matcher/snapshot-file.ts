/**
 * The snapshot file: the watchlist snapshot (lib/watchlists/snapshot.ts) written as one JSON file
 * together with the matcher's compiled name index (compiled-index.ts), so a cold start neither
 * parses the lists nor tokenises their names. An index compiled by other matcher code is
 * recompiled on load, never served.
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
import type { ListedPerson, WatchlistSnapshot } from '../watchlists/types.ts';
import {
  attachCompiledIndex,
  attachedCompiledIndex,
  type CompiledIndexData,
  currentCompiledIndexData,
  isCurrent,
} from './compiled-index.ts';

const NON_ASCII_RE = /[\u007f-\uffff]/g;
const escapeChar = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** The snapshot file's layout: the snapshot plus the compiled name index. */
interface SnapshotFile extends WatchlistSnapshot {
  index?: CompiledIndexData;
}

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
  const file: SnapshotFile = {
    ...snapshot,
    people: snapshot.people.map(compactPerson) as ListedPerson[],
    index: currentCompiledIndexData(snapshot),
  };
  // Non-ASCII characters are written as JSON escapes: an all-ASCII file is read as latin1, several
  // times faster at cold start than decoding UTF-8, and parses into compact one-byte strings.
  return JSON.stringify(file).replace(NON_ASCII_RE, escapeChar);
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
  if (stored && isCurrent(stored, snapshot.people)) return;
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
        { path, people: snapshot.people.length, ms: Date.now() - started },
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
    { path, lists: snapshot.lists.length, people: snapshot.people.length, ms: Date.now() - started },
    'watchlist snapshot built',
  );
  return snapshot;
}
