/**
 * Lists held for review: a file the sync parsed but refused (lib/sync/sanity.ts) is kept beside
 * the snapshots with what was compared, and an operator decides (`npm run admin -- sync-review |
 * sync-accept | sync-reject --list <id>`). Accepting publishes the held list and makes its count
 * the new baseline; rejecting discards it. Both are audited, write-ahead (`audited()`), in the
 * operations trail: the lists serve every tenant, so the decision belongs to no one tenant.
 */
import { audited, OPS_ACTOR } from '../audit/trail.ts';
import { NotFoundError } from '../common/errors.ts';
import { isoSeconds } from '../common/time.ts';
import { serialiseSnapshot } from '../matcher/snapshot-file.ts';
import type { Table } from '../store/table.ts';
import { LIST_SOURCES } from '../watchlists/sources.ts';
import type { WatchlistSnapshot } from '../watchlists/types.ts';
import { diffList, type ListDiff } from './diff.ts';
import { type HeldCandidate, readHeld } from './held.ts';
import { clearHeld, recordSyncSuccess } from './list-status-table.ts';
import type { SnapshotStore } from './snapshot-store.ts';
import {
  composeSnapshot,
  effectiveSnapshot,
  peopleOf,
  readStoredSnapshot,
  type SyncReport,
} from './sync-lists.ts';

/**
 * The audit trail operations' list decisions are recorded in: a partition of its own, read with
 * `npm run admin -- audit --tenant operations` (no tenant id is ever this word: theirs are `t_…`).
 */
export const OPERATIONS_TRAIL = 'operations';

async function requireHeld(store: SnapshotStore, listId: string): Promise<HeldCandidate> {
  const held = await readHeld(store, listId);
  if (!held) throw new NotFoundError(`no file of ${listId} is held for review`);
  return held;
}

export interface ReviewInput {
  store: SnapshotStore;
  table: Table;
  /** The snapshot bundled with the code (the last good data of a list never synced). */
  bundled: () => WatchlistSnapshot;
  listId: string;
}

/** What `sync-review` shows: why the file was refused, and how it differs from the list in force. */
export async function reviewHeld(input: ReviewInput) {
  const held = await requireHeld(input.store, input.listId);
  const base = effectiveSnapshot(await readStoredSnapshot(input.store), input.bundled);
  const diff = diffList(held.list_id, peopleOf(base, held.list_id), held.people);
  return {
    list: held.list_id,
    held_at: held.held_at,
    origin: held.origin,
    source_date: held.source_date,
    refused_because: held.reasons,
    compared: held.summary,
    against_list_in_force: {
      added: diff.added.length,
      changed: diff.changed.length,
      removed: diff.removed.length,
      added_sample: diff.added
        .slice(0, 10)
        .map((p) => ({ entity_id: p.entity_id, primary_name: p.primary_name })),
      removed_sample: diff.removed.slice(0, 10),
    },
    decide: [
      `npm run admin -- sync-accept --list ${held.list_id} --reason "<what you checked on the publisher's site>"`,
      `npm run admin -- sync-reject --list ${held.list_id} --reason "<why>"`,
    ],
  };
}

export interface DecisionInput extends ReviewInput {
  /** Why: what the operator checked (recorded in the audit trail and as the baseline's basis). */
  reason: string;
  now?: Date;
}

export interface AcceptedHeld {
  report: SyncReport;
  diff: ListDiff;
}

/**
 * Publishes the held list in a new snapshot (the other lists as they are in force), records the
 * list's success with its count as the new baseline, and removes the held file. Audited.
 */
export async function acceptHeld(input: DecisionInput): Promise<AcceptedHeld> {
  const { store, table, listId } = input;
  const held = await requireHeld(store, listId);
  return audited(
    table,
    OPERATIONS_TRAIL,
    {
      action: 'lists.accept-held',
      actor: OPS_ACTOR,
      details: {
        list_id: listId,
        reason: input.reason,
        held_at: held.held_at,
        individuals: held.people.length,
        baseline: held.summary.baseline,
      },
      done: ({ report, diff }) => ({
        details: {
          snapshot_version: report.snapshotVersion ?? null,
          added: diff.added.length,
          changed: diff.changed.length,
          removed: diff.removed.length,
        },
      }),
    },
    async () => {
      const at = isoSeconds(input.now ?? new Date());
      const base = effectiveSnapshot(await readStoredSnapshot(store), input.bundled);
      const descriptor =
        base.lists.find((list) => list.id === held.list_id) ??
        LIST_SOURCES.find((source) => source.descriptor.id === held.list_id)?.descriptor;
      if (!descriptor) throw new NotFoundError(`${held.list_id} is not a shipped list`);
      const previousPeople = peopleOf(base, held.list_id);
      // The date the file states, or unknown (null): never the day it was fetched.
      const sourceDate = held.source_date;
      const summary = {
        ...descriptor,
        source_date: sourceDate,
        source_date_basis: held.source_date
          ? `Stated in the file downloaded on ${held.fetched_on} from ${held.origin}; accepted by an operator on ${at.slice(0, 10)}.`
          : `Unknown: the file states no date of its own (downloaded on ${held.fetched_on} from ${held.origin}); accepted by an operator on ${at.slice(0, 10)}.`,
        entity_count: held.entity_count,
        individual_count: held.people.length,
        synced_at: at,
        content_hash: held.content_hash,
      };
      const next = composeSnapshot(
        base.lists.map((list) =>
          list.id === held.list_id
            ? { summary, people: held.people }
            : { summary: list, people: peopleOf(base, list.id) },
        ),
        at,
      );
      const snapshotVersion = await store.write(serialiseSnapshot(next));
      const published = next.lists.find((list) => list.id === held.list_id) ?? summary;
      await recordSyncSuccess(table, {
        listId: held.list_id,
        at,
        sourceDate: published.source_date,
        entityCount: published.entity_count,
        individualCount: published.individual_count,
        contentHash: held.content_hash,
        origin: `${held.origin} (held, accepted by an operator)`,
        baseline: { individuals: held.people.length, accepted: `operator: ${input.reason}` },
      });
      await store.held?.remove(held.list_id);
      const diff = diffList(held.list_id, previousPeople, held.people);
      const report: SyncReport = {
        startedAt: at,
        snapshotVersion,
        outcomes: [
          {
            listId: held.list_id,
            status: 'updated',
            individuals: held.people.length,
            previousIndividuals: previousPeople.length,
            sourceDate,
          },
        ],
        diffs: [diff],
        lists: next.lists,
      };
      return { report, diff };
    },
  );
}

/** Discards the held file; the list keeps the data in force. Audited. */
export async function rejectHeld(input: DecisionInput): Promise<{ list: string; rejected: string }> {
  const held = await requireHeld(input.store, input.listId);
  return audited(
    input.table,
    OPERATIONS_TRAIL,
    {
      action: 'lists.reject-held',
      actor: OPS_ACTOR,
      details: {
        list_id: input.listId,
        reason: input.reason,
        held_at: held.held_at,
        individuals: held.people.length,
        baseline: held.summary.baseline,
      },
    },
    async () => {
      await input.store.held?.remove(held.list_id);
      await clearHeld(input.table, held.list_id);
      return { list: held.list_id, rejected: held.held_at };
    },
  );
}
