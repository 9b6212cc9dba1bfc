/**
 * The watchlist snapshot: every shipped list parsed once into `ListedPerson` records, so a cold
 * start reads one file instead of parsing XML, XLSX and CSV. Writing and loading the file, which
 * also carries the matcher's compiled name index, is the matcher's side
 * (lib/matcher/snapshot-file.ts): the lists know nothing of how names are matched.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readWatchlistConfig } from '../runtime/config.ts';
import { LIST_SOURCES, type ListSource } from './sources.ts';
import type { ListedPerson, ListSummary, WatchlistSnapshot } from './types.ts';

/**
 * Bumped whenever the snapshot's shape or a parser's reading changes (3: OFAC remark aliases are
 * weak); an older file is rebuilt rather than misread.
 */
export const SNAPSHOT_FORMAT_VERSION = 3;

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
}

function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Parses every shipped list from `dataDir` into one snapshot. */
export function buildSnapshot(
  dataDir: string = defaultDataDir(),
  options: BuildOptions = {},
): WatchlistSnapshot {
  const builtAt = isoSeconds(options.now ?? new Date());
  const lists: ListSummary[] = [];
  const people: ListedPerson[] = [];
  for (const source of options.sources ?? LIST_SOURCES) {
    const parsed = source.read(dataDir);
    lists.push({
      ...source.descriptor,
      source_date: parsed.sourceDate ?? source.descriptor.source_date,
      entity_count: parsed.entityCount,
      individual_count: parsed.people.length,
      synced_at: builtAt,
    });
    for (const person of parsed.people) people.push(person);
  }
  return { format_version: SNAPSHOT_FORMAT_VERSION, built_at: builtAt, lists, people };
}

/**
 * Remarks longer than this are cut in the snapshot. They are context for an analyst (the OFSI
 * statement of reasons runs to pages); the full text stays in the source file, and a third of the
 * snapshot's size would otherwise be prose read on every cold start.
 */
export const REMARKS_MAX_CHARS = 600;

/** Drops empty arrays and absent fields (about a third of the people have no DOB or place). */
export function compactPerson(person: ListedPerson): Partial<ListedPerson> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(person)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value) && value.length === 0) continue;
    out[key] = value;
  }
  if (person.remarks && person.remarks.length > REMARKS_MAX_CHARS) {
    out.remarks = `${person.remarks.slice(0, REMARKS_MAX_CHARS - 1).trimEnd()}…`;
  }
  return out as Partial<ListedPerson>;
}
