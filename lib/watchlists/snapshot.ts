/**
 * The watchlist snapshot: every shipped list parsed once into `ListedPerson` records, so a cold
 * start reads one file instead of parsing XML, XLSX and CSV. Writing and loading the file, which
 * also carries the matcher's compiled name index, is the matcher's side
 * (lib/matcher/snapshot-file.ts): the lists know nothing of how names are matched.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readWatchlistConfig } from '../common/config.ts';
import { isoSeconds } from '../common/time.ts';
import { bundledListFiles, contentHash } from './content-hash.ts';
import { linkSnapshot } from './linking.ts';
import { LIST_SOURCES, type ListSource } from './sources.ts';
import type { ListedPerson, ListSummary, WatchlistSnapshot } from './types.ts';

/**
 * Bumped whenever the snapshot's shape or a parser's reading changes (3: OFAC remark aliases are
 * weak; 4: linked people, listing records and the 2026 lists; 5: every list's content hash, a
 * source date that may be unknown); an older file is rebuilt rather than misread.
 */
export const SNAPSHOT_FORMAT_VERSION = 5;

/** The repository's data/ directory, found from this module so it works from any working directory. */
export function defaultDataDir(): string {
  return fileURLToPath(new URL('../../data/', import.meta.url));
}

/** `WATCHLIST_SNAPSHOT` if set, else data/snapshot/watchlists.json in the repository. */
export function defaultSnapshotPath(): string {
  return readWatchlistConfig().WATCHLIST_SNAPSHOT || join(defaultDataDir(), 'snapshot', 'watchlists.json');
}

export interface BuildOptions {
  /** When the snapshot is built (recorded as each list's `synced_at`); defaults to now. */
  now?: Date;
  /** Lists to build; defaults to every shipped list. */
  sources?: readonly ListSource[];
  /** Called as each list is parsed (`npm start` prints the progress of its first compile). */
  onList?: (list: ListSummary, parsed: number, total: number) => void;
}

/** Parses every shipped list from `dataDir` into one snapshot. */
export function buildSnapshot(
  dataDir: string = defaultDataDir(),
  options: BuildOptions = {},
): WatchlistSnapshot {
  const builtAt = isoSeconds(options.now ?? new Date());
  const lists: ListSummary[] = [];
  const people: ListedPerson[] = [];
  const sources = options.sources ?? LIST_SOURCES;
  for (const source of sources) {
    const parsed = source.read(dataDir);
    const summary: ListSummary = {
      ...source.descriptor,
      source_date: parsed.sourceDate ?? source.descriptor.source_date,
      entity_count: parsed.entityCount,
      individual_count: parsed.people.length,
      synced_at: builtAt,
      content_hash: contentHash(bundledListFiles(dataDir, source.descriptor)),
    };
    lists.push(summary);
    options.onList?.(summary, lists.length, sources.length);
    for (const person of parsed.people) people.push(person);
  }
  // One person, one match: the listings of one person on several lists are linked here, once.
  return linkSnapshot({ format_version: SNAPSHOT_FORMAT_VERSION, built_at: builtAt, lists, people });
}

// Kept with the person helpers (linking compacts the records it sets aside too); re-exported
// for the snapshot file and the list sync.
export { compactPerson, REMARKS_MAX_CHARS } from './listed-person.ts';
