import { isoSeconds } from '../common/time.ts';
/**
 * The list sync: download every list from its publisher (or a mirror), parse it with the same
 * parsers as the bundled data, and publish one new snapshot holding every list's latest good data.
 *
 * Each list stands alone. A list whose download or parse fails keeps its last good data in the
 * new snapshot and its status row records the error (so /dbstatus shows it stale with the reason);
 * one that parses but fails the sanity checks (lib/sync/sanity.ts: counts against the list's
 * baseline, names and dates of the same entries) also keeps its last good data, and the parsed
 * file is held for an operator's review (lib/sync/review.ts). The other lists go ahead.
 */

import { logger } from '../common/log.ts';
import { countMetric, METRIC } from '../common/metrics.ts';
import { parseSnapshot, serialiseSnapshot } from '../matcher/snapshot-file.ts';
import { outboxEvent } from '../outbox/outbox.ts';
import type { Table } from '../store/table.ts';
import { linkSnapshot, perListPeople } from '../watchlists/linking.ts';
import { SNAPSHOT_FORMAT_VERSION } from '../watchlists/snapshot.ts';
import { LIST_SOURCES } from '../watchlists/sources.ts';
import type {
  ListedPerson,
  ListId,
  ListSummary,
  ParsedList,
  WatchlistSnapshot,
} from '../watchlists/types.ts';
import { diffList, type ListDiff } from './diff.ts';
import { contentHash, type GetFile, LIST_FEEDS, type ListFeed } from './feeds.ts';
import { type HeldCandidate, holdCandidate } from './held.ts';
import { readSyncStatus, recordSyncFailure, recordSyncSuccess } from './list-status-table.ts';
import { recordListsEvent } from './lists-event-table.ts';
import { checkSanity, MAX_DROP_FROM_BASELINE } from './sanity.ts';
import type { SnapshotStore } from './snapshot-store.ts';

/**
 * The largest cumulative fall below a list's baseline (lib/sync/sanity.ts). A real mass delisting,
 * once an operator has confirmed it on the publisher's site, is accepted with `acceptDrops`
 * (`--accept-drop <list>`) or by accepting the held file (`npm run admin -- sync-accept`).
 */
export const MAX_INDIVIDUAL_DROP = MAX_DROP_FROM_BASELINE;

export interface SyncListsInput {
  store: SnapshotStore;
  table: Table;
  getFile: GetFile;
  /** Where the files come from, recorded in each status row ("official publisher URLs", a mirror). */
  origin: string;
  /** The snapshot bundled with the code: the last good data of any list the store does not hold yet. */
  bundled: () => WatchlistSnapshot;
  /** Lists to sync; default every list with a feed. */
  feeds?: readonly ListFeed[];
  /** The lists the snapshot holds; default every shipped list (tests use a few). */
  shippedLists?: readonly ListId[];
  /** Lists whose fall in individuals an operator has confirmed as real. */
  acceptDrops?: readonly string[];
  now?: Date;
}

export type ListOutcome =
  | {
      listId: ListId;
      status: 'updated';
      individuals: number;
      previousIndividuals: number;
      /** The date the files state; null when they state none. */
      sourceDate: string | null;
    }
  | { listId: ListId; status: 'unchanged'; individuals: number }
  | {
      listId: ListId;
      status: 'failed';
      error: string;
      individuals: number;
      /** The file parsed but failed the sanity checks: it is held for an operator's review. */
      held?: boolean;
    };

export interface SyncReport {
  startedAt: string;
  /** The new snapshot's version; undefined when no list changed (nothing was written). */
  snapshotVersion?: string;
  outcomes: ListOutcome[];
  /** Per updated list, the people added, changed and removed (the input of delta rescreens). */
  diffs: ListDiff[];
  /** The lists of the snapshot in force after the run (the one published, or the one kept). */
  lists: ListSummary[];
}

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}

/** The lists the code ships, in snapshot order. */
export const SHIPPED_LISTS: readonly ListId[] = LIST_SOURCES.map((source) => source.descriptor.id);

/**
 * The snapshot in force: every list the code ships, each with the stored (synced) data when the
 * store has it and the bundled data otherwise, so a list added by a deploy appears before its
 * first sync and a list the code dropped disappears. The stored snapshot itself is returned when
 * it already has exactly those lists (its compiled index is then reused).
 */
export function effectiveSnapshot(
  stored: WatchlistSnapshot | undefined,
  bundled: () => WatchlistSnapshot,
  shipped: readonly ListId[] = SHIPPED_LISTS,
): WatchlistSnapshot {
  if (!stored || stored.format_version !== SNAPSHOT_FORMAT_VERSION) return bundled();
  const storedIds = stored.lists.map((list) => list.id);
  if (storedIds.length === shipped.length && shipped.every((id) => storedIds.includes(id))) return stored;
  const base = bundled();
  const lists: { summary: ListSummary; people: ListedPerson[] }[] = [];
  for (const id of shipped) {
    const from = storedIds.includes(id) ? stored : base;
    const summary = from.lists.find((list) => list.id === id);
    if (summary) lists.push({ summary, people: peopleOf(from, id) });
  }
  return composeSnapshot(lists, stored.built_at);
}

/** A list's people as parsed (a linked person is split back into its listings' own records). */
export function peopleOf(snapshot: WatchlistSnapshot, listId: ListId): ListedPerson[] {
  // Per list as parsed: a linked person is split back into its listings' own records. Unpacking
  // them (gunzip and JSON.parse of every linked listing) is done once per snapshot, not once per
  // list: a sync asks for each of its 14 lists, twice.
  let byList = peopleByList.get(snapshot);
  if (!byList) {
    byList = new Map();
    for (const person of perListPeople(snapshot)) {
      const people = byList.get(person.list_id);
      if (people) people.push(person);
      else byList.set(person.list_id, [person]);
    }
    peopleByList.set(snapshot, byList);
  }
  return [...(byList.get(listId) ?? [])];
}
const peopleByList = new WeakMap<WatchlistSnapshot, Map<ListId, ListedPerson[]>>();

/** One snapshot of the given lists, their listings of one person linked again. */
export function composeSnapshot(
  lists: readonly { summary: ListSummary; people: readonly ListedPerson[] }[],
  builtAt: string,
): WatchlistSnapshot {
  // Listings of one person on several lists are linked again over the new per-list people.
  return linkSnapshot({
    format_version: SNAPSHOT_FORMAT_VERSION,
    built_at: builtAt,
    lists: lists.map((l) => l.summary),
    people: lists.flatMap((l) => l.people),
  });
}

/** Reads the newest stored snapshot; an unreadable one is reported and treated as absent. */
export async function readStoredSnapshot(store: SnapshotStore): Promise<WatchlistSnapshot | undefined> {
  return (await readLatestSnapshot(store))?.snapshot;
}

/** The newest stored snapshot with the store's version of it (the version of the bytes read). */
export async function readLatestSnapshot(
  store: SnapshotStore,
): Promise<{ version: string; snapshot: WatchlistSnapshot } | undefined> {
  const latest = await store.readLatest();
  if (!latest) return undefined;
  try {
    return { version: latest.version, snapshot: parseSnapshot(latest.body) };
  } catch (error) {
    logger.error(
      { version: latest.version, err: error },
      'stored watchlist snapshot unreadable; using the bundled one',
    );
    return undefined;
  }
}

export async function syncLists(input: SyncListsInput): Promise<SyncReport> {
  const now = input.now ?? new Date();
  const at = isoSeconds(now);
  const fetchedOn = at.slice(0, 10);
  const base = effectiveSnapshot(await readStoredSnapshot(input.store), input.bundled, input.shippedLists);
  const feeds = input.feeds ?? LIST_FEEDS;
  const accepted = new Set(input.acceptDrops ?? []);
  const rows = await readSyncStatus(input.table);
  /** The count each list is compared with: its baseline, else (never synced) the count in force. */
  const baselineOf = (listId: ListId, inForce: number) => rows.get(listId)?.baseline_individuals ?? inForce;

  const results = await Promise.all(
    feeds.map(async (feed) => {
      const previous = base.lists.find((list) => list.id === feed.listId);
      const previousPeople = peopleOf(base, feed.listId);
      try {
        const files = await feed.download(input.getFile);
        const hash = contentHash(files);
        if (previous?.content_hash === hash) {
          return {
            feed,
            hash,
            outcome: { listId: feed.listId, status: 'unchanged', individuals: previousPeople.length },
            baseline: { individuals: baselineOf(feed.listId, previousPeople.length) },
          };
        }
        let parsed: ParsedList;
        try {
          parsed = feed.parse(files, { fetchedOn });
        } catch (error) {
          throw new Error(`malformed file: ${errorText(error)}`);
        }
        const baseline = baselineOf(feed.listId, previousPeople.length);
        const verdict = checkSanity({
          baseline,
          previous: previousPeople,
          candidate: parsed.people,
          countAccepted: accepted.has(feed.listId),
        });
        if (!verdict.ok) {
          const candidate: HeldCandidate = {
            list_id: feed.listId,
            held_at: at,
            origin: input.origin,
            content_hash: hash,
            source_date: parsed.sourceDate ?? null,
            fetched_on: fetchedOn,
            entity_count: parsed.entityCount,
            reasons: verdict.reasons,
            summary: verdict.summary,
            people: parsed.people,
          };
          const held = await holdCandidate(input.store, candidate);
          return {
            feed,
            outcome: {
              listId: feed.listId,
              status: 'failed',
              error: `${held ? 'held for review' : 'refused'}: ${verdict.reasons.join('; ')}${
                held ? ` (npm run admin -- sync-review --list ${feed.listId})` : ''
              }`,
              individuals: previousPeople.length,
              held,
            },
          };
        }
        return {
          feed,
          hash,
          parsed,
          previous,
          previousPeople,
          baseline: accepted.has(feed.listId)
            ? { individuals: parsed.people.length, accepted: `--accept-drop at ${at}` }
            : { individuals: baseline },
        };
      } catch (error) {
        const message = errorText(error);
        logger.warn({ list: feed.listId, error: message }, 'list sync failed; keeping the last good data');
        return {
          feed,
          outcome: {
            listId: feed.listId,
            status: 'failed',
            error: message,
            individuals: previousPeople.length,
          },
        };
      }
    }),
  );

  const outcomes: ListOutcome[] = [];
  const diffs: ListDiff[] = [];
  const replaced = new Map<ListId, { summary: ListSummary; people: ListedPerson[] }>();
  for (const result of results) {
    if ('outcome' in result) {
      outcomes.push(result.outcome as ListOutcome);
      continue;
    }
    const { feed, hash, parsed, previous, previousPeople } = result;
    const descriptor =
      previous ?? LIST_SOURCES.find((source) => source.descriptor.id === feed.listId)?.descriptor;
    if (!descriptor) throw new Error(`list ${feed.listId} has a feed but is not a shipped list`);
    // The date of the data as its publisher states it, never the day it was fetched (issue 35).
    const sourceDate = parsed.sourceDate ?? null;
    replaced.set(feed.listId, {
      summary: {
        ...descriptor,
        source_date: sourceDate,
        source_date_basis:
          parsed.sourceDateBasis ??
          (parsed.sourceDate
            ? `Stated in the file downloaded on ${fetchedOn} from ${input.origin}.`
            : `Unknown: the file states no date of its own (downloaded on ${fetchedOn} from ${input.origin}).`),
        entity_count: parsed.entityCount,
        individual_count: parsed.people.length,
        synced_at: at,
        content_hash: hash,
      },
      people: parsed.people,
    });
    diffs.push(diffList(feed.listId, previousPeople, parsed.people));
    outcomes.push({
      listId: feed.listId,
      status: 'updated',
      individuals: parsed.people.length,
      previousIndividuals: previousPeople.length,
      sourceDate,
    });
  }

  let snapshotVersion: string | undefined;
  let lists = base.lists;
  if (replaced.size > 0) {
    const next = composeSnapshot(
      base.lists.map(
        (summary) => replaced.get(summary.id) ?? { summary, people: peopleOf(base, summary.id) },
      ),
      at,
    );
    snapshotVersion = await input.store.write(serialiseSnapshot(next));
    lists = next.lists;
    await recordListsUpdated(input.table, snapshotVersion, diffs, lists, at);
  }

  // Status rows after the snapshot: a row never claims data the store does not hold yet.
  for (const result of results) {
    const outcome = 'outcome' in result ? (result.outcome as ListOutcome) : undefined;
    if (outcome?.status === 'failed') {
      await recordSyncFailure(input.table, outcome.listId, at, outcome.error, { held: outcome.held });
      countMetric(outcome.held ? METRIC.listSyncsHeld : METRIC.listSyncsFailed);
      continue;
    }
    // The counts of the snapshot in force, as /dbstatus shows them: after linking, a historical
    // list counts only the listings it contributes to current designations, not all it parsed.
    const summary = lists.find((l) => l.id === result.feed.listId);
    if (!summary) continue;
    await recordSyncSuccess(input.table, {
      listId: result.feed.listId,
      at,
      sourceDate: summary.source_date,
      entityCount: summary.entity_count,
      individualCount: summary.individual_count,
      contentHash: ('hash' in result && result.hash) || summary.content_hash || '',
      origin: input.origin,
      baseline:
        'baseline' in result && result.baseline
          ? result.baseline
          : { individuals: baselineOf(result.feed.listId, summary.individual_count) },
    });
    // A list published (or confirmed unchanged) needs no review of an older refused file.
    await input.store.held?.remove(result.feed.listId);
  }

  logger.info(
    {
      version: snapshotVersion,
      updated: outcomes.filter((o) => o.status === 'updated').map((o) => o.listId),
      failed: outcomes.filter((o) => o.status === 'failed').map((o) => o.listId),
    },
    'list sync finished',
  );
  return { startedAt: at, snapshotVersion, outcomes, diffs, lists };
}

/**
 * The `lists.updated` webhook event of a published snapshot, on an item of its own in the outbox
 * (no tenant: the drain offers it to every tenant's subscribers). Written right after the snapshot,
 * before the status rows: the snapshot store and the table share no write, so this is the first
 * table write of the publication, and a run that dies before it has published nothing /dbstatus
 * shows either. Counts and list ids only: the listed people are fetched through the API.
 */
async function recordListsUpdated(
  table: Table,
  version: string,
  diffs: readonly ListDiff[],
  lists: readonly { id: string; source_date?: string | null; individual_count: number }[],
  at: string,
): Promise<void> {
  const event = outboxEvent('lists.updated', null, {
    snapshot_version: version,
    lists: diffs.map((diff) => {
      const summary = lists.find((list) => list.id === diff.listId);
      return {
        list_id: diff.listId,
        source_date: summary?.source_date ?? null,
        individuals: summary?.individual_count ?? null,
        added: diff.added.length,
        changed: diff.changed.length,
        removed: diff.removed.length,
      };
    }),
    published_at: at,
  });
  await recordListsEvent(table, version, at, event);
}
