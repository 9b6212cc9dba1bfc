/**
 * The matcher's entry point: `createMatcher(snapshot)` compiles the index once (per cold start);
 * `matcher.screen(subject, types)` screens one subject synchronously and without side effects.
 *
 * Per request: tokenise the subject's name (and alias), select candidate names through the index
 * and score a short list of them per check type (candidates.ts), then let date of birth,
 * nationality and location corroborate or contradict and map each match to a risk level
 * (results.ts, risk.ts).
 */

import { createHash } from 'node:crypto';
import type { CheckType, ListSummary, WatchlistSnapshot } from '../watchlists/types.ts';
import { createCandidateSelector, type Scored } from './candidates.ts';
import { commonnessModel } from './commonness.ts';
import { fullQueryDate } from './corroboration.ts';
import { buildIndex, namesBornOn } from './name-index.ts';
import { buildChecks } from './results.ts';
import type { ScreenChecks, SubjectInput } from './types.ts';

export { MAX_MATCHES } from './results.ts';
export type { ScreenChecks, SubjectInput } from './types.ts';

/**
 * Which snapshot a matcher was built from. `version` names it where it is kept: the snapshot
 * store's version (an S3 object version, a local file name) for a synced snapshot, or
 * `bundled-<hash>` for the snapshot shipped with the code (the hash of its lists' identities).
 */
export interface SnapshotIdentity {
  version: string;
  /** When the snapshot was compiled (ISO 8601 UTC). */
  built_at: string;
}

/** The version of a snapshot that is not in the store: the bundled one, named by its content. */
export function bundledSnapshotVersion(snapshot: Pick<WatchlistSnapshot, 'built_at' | 'lists'>): string {
  const identity = snapshot.lists.map((l) => [
    l.id,
    l.content_hash ?? null,
    l.source_date,
    l.synced_at,
    l.entity_count,
    l.individual_count,
  ]);
  const hash = createHash('sha256')
    .update(JSON.stringify([snapshot.built_at, identity]))
    .digest('hex');
  return `bundled-${hash.slice(0, 16)}`;
}

export interface ScreenOptions {
  /** Matches kept per check, best first (default MAX_MATCHES). */
  maxMatches?: number;
}

export interface Matcher {
  /** The lists loaded, with their source dates (for narratives and /dbstatus). */
  lists: ListSummary[];
  /** The snapshot the matcher was built from (recorded on every screen it makes). */
  snapshot: SnapshotIdentity;
  /**
   * Screens one subject against the requested check types. Synchronous and pure. `maxMatches`
   * (default MAX_MATCHES, what every stored screen keeps) is raised only to read the matches a
   * stored screen's cut left out (GET /screens/{screen_id}/matches).
   */
  screen(subject: SubjectInput, types: readonly CheckType[], options?: ScreenOptions): ScreenChecks;
}

/**
 * Compiles the snapshot into an index and returns the matcher over it. `version` is the snapshot
 * store's name for it; default the bundled snapshot's content version.
 */
export function createMatcher(snapshot: WatchlistSnapshot, version?: string): Matcher {
  const index = buildIndex(snapshot);
  // The population name table is read with the index, not on the first screen.
  commonnessModel();
  const selector = createCandidateSelector(index);
  const listsByCategory = new Map<CheckType, ListSummary[]>();
  for (const l of index.lists)
    listsByCategory.set(l.category, [...(listsByCategory.get(l.category) ?? []), l]);

  function screen(subject: SubjectInput, types: readonly CheckType[], options?: ScreenOptions): ScreenChecks {
    const queries = [selector.queryName(subject.name, 'name')];
    if (subject.alias && subject.alias.trim() !== '')
      queries.push(selector.queryName(subject.alias, 'alias'));
    const requested = new Set(types);
    const best = new Map<number, Scored>();
    // The listed people born on the subject's full date of birth are scored too: a name typed
    // with more typos than the index's spelling lookup bridges is still found by its date.
    const date = fullQueryDate(subject.dob);
    const sameDate = date === undefined ? undefined : namesBornOn(index, date);
    for (const q of queries) if (q) selector.scoreCandidates(q, requested, best, sameDate);
    return buildChecks(index, best.values(), subject, requested, listsByCategory, options?.maxMatches);
  }

  return {
    lists: index.lists,
    snapshot: { version: version ?? bundledSnapshotVersion(snapshot), built_at: snapshot.built_at },
    screen,
  };
}
