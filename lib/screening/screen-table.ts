import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { ConflictError } from '../common/errors.ts';
import {
  type CriminalResult,
  type PepResult,
  RISK_ORDER,
  type RiskLevel,
  type SanctionsResult,
} from '../matcher/types.ts';
import { type OutboxEvent, outboxUpdate } from '../outbox/outbox.ts';
import type { ListName } from '../store/cursor.ts';
import { INDEXES, indexAttributes, indexKeys, keys } from '../store/schema.ts';
import { parseItem, queryAll, queryIndexPage, readItem, type Table } from '../store/table.ts';
import type { Refusal, TableWrite } from '../store/write.ts';
import { sendWrite, sendWriteIf, trySendWrite } from '../store/write.ts';
import { ROLES } from '../tenancy/roles.ts';
import { CHECK_TYPES } from '../watchlists/types.ts';
import { RememberedFalsePositiveSchema } from './false-positive-record.ts';
import { ScreenReceiptSchema } from './receipt.ts';
import { DISPOSITIONS, NOTE_MAX_LENGTH } from './request.ts';
import {
  earliestScreenDay,
  FILTERED_READ_LIMIT,
  filterCondition,
  isFiltered,
  type ScreenFilters,
} from './screen-filters.ts';
import { RESCREEN_TRIGGERS, SCREEN_ORIGINS } from './screen-origin.ts';
import { SubjectSchema } from './subject.ts';

/**
 * The screen item (keys.screen): its stored shape, declared once as a schema, its keys and sparse
 * index entries (pending-screens, subject-screens, client-screens), and every read and write of it
 * as a named operation carrying its rule. History and notes live inside the item, so every
 * disposition rule is one conditional write and deleting the item removes the notes for good.
 * Writes are built as values (lib/store/write.ts) so that a use case can join them with other
 * records' writes; each also has a sender here.
 */

/**
 * What a history entry records: a decision (the dispositions of POST /screens/{id}/dispose), or
 * `not_carried`, written by the system on a re-screen of a client: the decision of an earlier
 * screen was NOT carried forward to this one, and the note says why (it awaits approval, or a
 * listing or the client's data changed in a way that bears on it). A `not_carried` entry is no
 * decision: the screen stays pending.
 */
export const HISTORY_VALUES = [...DISPOSITIONS, 'not_carried'] as const;
export type HistoryValue = (typeof HISTORY_VALUES)[number];

/**
 * Who did something: the user's id and the role they acted in. The service itself acts as
 * `system` (re-screens of registered clients, `not_carried` notes, and as the carrier, never the
 * author, of a decision carried forward from an earlier screen: `carried_by`).
 */
export const ActorSchema = v.object({ user_id: v.string(), role: v.picklist([...ROLES, 'system']) });
export type Actor = v.InferOutput<typeof ActorSchema>;

/** The role of the service itself: the carrier of carried decisions, and re-screens' screener. */
export const SYSTEM_ROLE = 'system';

/**
 * Where a decision the system carried to this screen was made by a person: the screen, the
 * decision's version there and when it was made. A decision carried on again keeps the first
 * screen's. `decision_version` and `decided_at` are null on a decision carried on from one the
 * system carried before carriers were recorded (its author was then recorded as `system`).
 */
export const CarriedFromSchema = v.object({
  screen_id: v.string(),
  decision_version: v.nullable(v.number()),
  decided_at: v.nullable(v.string()),
});
export type CarriedFrom = v.InferOutput<typeof CarriedFromSchema>;

/**
 * One entry of a screen's disposition history, as stored (append-only, oldest first). An entry's
 * version is its position in the history, from 1. An `approved` entry is an admin's sign-off on
 * the decision of version `approves_version` (older entries without it signed off the decision
 * recorded just before them).
 */
export const HistoryEntrySchema = v.object({
  disposition: v.picklist(HISTORY_VALUES),
  note: v.nullable(v.string()),
  author: ActorSchema,
  /**
   * The tenant users besides the author who could hold the API key the entry was made with (its
   * lineage: lib/tenancy/key-lineage.ts), recorded when it was made; the four-eyes rule reads it.
   * Absent on entries of the system and on entries made before lineages were recorded.
   */
  author_key_lineage: v.optional(v.array(v.string())),
  /** `YYYY-MM-DDThh:mm:ssZ`. */
  at: v.string(),
  override: v.boolean(),
  approval_requested: v.boolean(),
  approves_version: v.optional(v.number()),
  /**
   * On a decision the system carried forward from an earlier screen (lib/monitoring/
   * rescreen-review.ts): the system, which wrote it here. The decision's `author` and
   * `author_key_lineage` stay those of the person who made it, so the four-eyes rule judges a
   * sign-off of it by them, wherever it was carried.
   */
  carried_by: v.optional(ActorSchema),
  /** With `carried_by`: where the person made the decision. */
  carried_from: v.optional(CarriedFromSchema),
});
export type HistoryEntry = v.InferOutput<typeof HistoryEntrySchema>;

/** The analyst decision in force (never `approved`: sign-off is stored beside it as `approval`). */
export const DecisionRecordSchema = v.object({
  ...HistoryEntrySchema.entries,
  disposition: v.picklist(DISPOSITIONS),
});
export type DecisionRecord = v.InferOutput<typeof DecisionRecordSchema>;

export const ApprovalRecordSchema = v.object({
  author: ActorSchema,
  /** As on a history entry: who besides the approving admin could hold the key they approved with. */
  author_key_lineage: v.optional(v.array(v.string())),
  at: v.string(),
  note: v.nullable(v.string()),
  /** The history version of the decision signed off: an approval binds to what the admin saw. */
  approves_version: v.optional(v.number()),
});
export type ApprovalRecord = v.InferOutput<typeof ApprovalRecordSchema>;

/** A listed entry a match points at: list and the publisher's entry id. */
export interface MatchRef {
  list_id: string;
  entity_id: string;
  primary_name: string;
  risk_level: RiskLevel;
}

/**
 * An alert on a client: what a re-screen found different, in a way that needs an analyst, from
 * the client's last settled state (`baseline_screen_id`). It stays open, carried from screen to
 * screen, until somebody records a settled decision on a screen that carries it.
 */
export interface ScreenAlert {
  /** The client's screen just before this one. */
  previous_screen_id: string | null;
  /** The last settled state compared with (the registration screen while nothing was settled). */
  baseline_screen_id?: string | null;
  /** When the alert was first raised, and by which screen (an earlier one when carried forward). */
  since?: string | null;
  raised_by_screen_id?: string | null;
  /** Risk of the baseline and of this screen. */
  risk_before: RiskLevel | null;
  risk_after: RiskLevel;
  matches_added: MatchRef[];
  matches_removed: MatchRef[];
  /** Matches on entries whose identifying data (names, dates of birth, nationalities) changed. */
  matches_changed: MatchRef[];
  /** Why the alert is open, in words: each change that bears on the decision, or why none was carried. */
  reasons?: string[];
}

const objectOf = <T>() => v.custom<T>((value) => typeof value === 'object' && value !== null);

/** The fields a screen row shows (the lists read only these). */
const screenSummaryEntries = {
  screen_id: v.string(),
  risk_level: v.picklist(RISK_ORDER),
  subject: SubjectSchema,
  screened_at: v.string(),
  types: v.array(v.picklist(CHECK_TYPES)),
  created_by: ActorSchema,
  disposition: v.optional(DecisionRecordSchema),
  /** History version of `disposition` (its position in `history`, from 1). */
  decision_version: v.optional(v.number()),
  approval: v.optional(ApprovalRecordSchema),
  /** `alert.since`, kept beside it so the screen lists can show it without reading the alert. */
  alert_since: v.optional(v.string()),
  /** How the screen came about. Screens stored before origins were recorded came through POST /screen or a batch. */
  origin: v.optional(v.picklist(SCREEN_ORIGINS), 'api'),
  /** The registered client it belongs to (registration and re-screens). */
  client_id: v.optional(v.string()),
};

/**
 * The screen item in the table (keys.screen), parsed on the way out of the table, never cast.
 * `disposition` and `approval` are absent (not null) while there is none, so conditions can use
 * attribute_not_exists. The index entries are not part of the parsed item: the pending-screens
 * keys exist only while the screen is pending, the subject-screens keys index it under its
 * subject hash for the rescreen window, the client-screens keys under its client.
 */
export const ScreenItemSchema = v.object({
  pk: v.string(),
  sk: v.string(),
  entity: v.literal('screen'),
  tenant_id: v.string(),
  subject_hash: v.string(),
  sanctions_result: v.nullish(objectOf<SanctionsResult>(), null),
  pep_result: v.nullish(objectOf<PepResult>(), null),
  criminal_result: v.nullish(objectOf<CriminalResult>(), null),
  history: v.array(HistoryEntrySchema),
  /** Entries in `history`: the next entry's version is this plus one. */
  history_count: v.optional(v.number()),
  /** UTF-8 size of the entries in `history`, held under HISTORY_BYTES_LIMIT. */
  history_bytes: v.optional(v.number()),
  /** On a re-screen with an open alert: what changed since the client's last settled state. */
  alert: v.optional(objectOf<ScreenAlert>()),
  /**
   * On a re-screen: the client's last settled state it was compared with (lib/monitoring/
   * rescreen-review.ts). The next run starts from it while this screen stays undecided, so an
   * undecided change is never folded into "nothing changed".
   */
  baseline_screen_id: v.optional(v.string()),
  /**
   * On a decision carried forward by the system: the screen where a person made it. A later settled decision on that screen (an approval or an
   * override) replaces the carried one.
   */
  decision_source_screen_id: v.optional(v.string()),
  /** A newer screen of the same client took this one's place in the pending queue. */
  superseded_by: v.optional(v.string()),
  /** The queued job the screen was made for (screenSubject's `jobRef`); absent for direct screens. */
  job_ref: v.optional(v.string()),
  /** On a re-screen: what started its run (`list_change`: a list sync), for the `origin` filter. */
  rescreen_trigger: v.optional(v.picklist(RESCREEN_TRIGGERS)),
  /**
   * Every list a match of the screen is listed on (a linked listing's too), for the `list` filter
   * of the screen lists; absent on screens stored before it was recorded.
   */
  matched_lists: v.optional(v.array(v.string())),
  /** The snapshot and matcher the screen was made with; absent on screens stored before receipts. */
  receipt: v.optional(ScreenReceiptSchema),
  /**
   * On an ad-hoc screen: the decided false positives of the tenant's memory that bore on its
   * matches (lib/screening/remembered-false-positives.ts), as they stood, so a replay or the
   * rescreen window applies exactly them; absent when none did.
   */
  remembered_false_positives: v.optional(v.array(RememberedFalsePositiveSchema)),
  ...screenSummaryEntries,
});
export type ScreenItem = v.InferOutput<typeof ScreenItemSchema>;

/** A row of the screen lists as read (the summary attributes only). */
export const ScreenSummaryItemSchema = v.object(screenSummaryEntries);
export type ScreenSummaryItem = v.InferOutput<typeof ScreenSummaryItemSchema>;

export function parseScreenItem(item: Record<string, unknown>): ScreenItem {
  return parseItem(ScreenItemSchema, item);
}

/**
 * The most a screen's history may hold, in UTF-8 bytes of its entries. DynamoDB refuses items
 * over 400 KB; a screen's own data (subject, up to 30 matches with narratives) stays well under
 * 100 KB, so this keeps every screen item writable for good. About 1,000 decisions with short
 * notes fit, and at least 18 with 4,000-character notes in any script.
 */
export const HISTORY_BYTES_LIMIT = 256 * 1024;

/**
 * Room kept for one sign-off: a decision is accepted only while an approval of it would still
 * fit, so a full history never leaves a decision that cannot be approved. A JSON-escaped
 * character takes at most 6 bytes.
 */
const APPROVAL_RESERVE_BYTES = 6 * NOTE_MAX_LENGTH + 1024;

/** The size an entry counts against HISTORY_BYTES_LIMIT: its JSON, an upper bound of DynamoDB's. */
export function historyEntryBytes(entry: HistoryEntry): number {
  return Buffer.byteLength(JSON.stringify(entry), 'utf8');
}

/**
 * A fresh screen as stored: its key, and its index entries. Pending (the sparse pending index:
 * these two attributes leave the item with its first disposition), under its subject hash (the
 * rescreen window finds the subject's latest screen through this entry) and, with a client,
 * under the client (client-screens).
 */
export function newScreenItem(screen: Omit<ScreenItem, 'pk' | 'sk' | 'entity'>): ScreenItem {
  const { tenant_id: tenantId, screen_id: screenId } = screen;
  return {
    ...keys.screen(tenantId, screenId),
    ...indexKeys('pendingScreens', keys.pendingIndex(tenantId), screenId),
    ...indexKeys('subjectScreens', keys.subjectIndex(tenantId, screen.subject_hash), screenId),
    ...(screen.client_id
      ? indexKeys('clientScreens', keys.clientScreensIndex(tenantId, screen.client_id), screenId)
      : {}),
    entity: 'screen',
    ...screen,
  };
}

/** The keys of the pending-screens index, REMOVEd when a screen leaves the pending queue. */
const LEAVE_PENDING = indexAttributes('pendingScreens').join(', ');

/**
 * The part of a disposition's write that appends `entry` to the history: list_append in the same
 * write, and the version counters. `history_count` is the entries so far (SET expressions read the
 * item as it was, so the new entry's version is the old count plus one), `history_bytes` their size.
 */
function appendToHistory(entry: HistoryEntry) {
  return {
    set:
      'history = list_append(if_not_exists(history, :empty), :entry), ' +
      'history_count = if_not_exists(history_count, :zero) + :one, ' +
      'history_bytes = if_not_exists(history_bytes, :zero) + :bytes',
    values: { ':entry': [entry], ':empty': [], ':zero': 0, ':one': 1, ':bytes': historyEntryBytes(entry) },
  };
}

/** The history leaves room for `entry` (and, for a decision, for a sign-off of it): HISTORY_BYTES_LIMIT. */
function historyFits(entry: HistoryEntry, keepApprovalRoom: boolean) {
  const room =
    HISTORY_BYTES_LIMIT - historyEntryBytes(entry) - (keepApprovalRoom ? APPROVAL_RESERVE_BYTES : 0);
  return {
    condition: '(attribute_not_exists(history_bytes) OR history_bytes <= :room)',
    values: { ':room': room },
  };
}

/**
 * The history as a decision read it: `history_count` still what was read (absent on screens
 * stored before it was counted). Every decision, sign-off and carried decision moves it, so a
 * write under this condition lands on exactly the decision state that was read, and the audit
 * entry written with it (lib/screening/dispose.ts) can state what the write did.
 */
function historyAsRead(historyCount: number | undefined) {
  return historyCount === undefined
    ? { condition: 'attribute_not_exists(history_count)', values: {} }
    : { condition: 'history_count = :countRead', values: { ':countRead': historyCount } };
}

/** The outbox part of a write (lib/outbox/outbox.ts): the events it carries, when there are any. */
function outboxPart(key: { pk: string; sk: string }, events: readonly OutboxEvent[]) {
  return events.length > 0 ? outboxUpdate(key, events) : { set: '', values: {} };
}

/**
 * Why a screen may be deleted, checked in the delete's own condition (lib/screening/delete.ts:
 * one conditional write, so a decision recorded meanwhile is never deleted under a rule that no
 * longer holds):
 *
 * - `request`: DELETE /screens/{id}. Analysts only their own screens (`ownerOnly`); under the
 *   tenant's retention lock, a decided screen only once its last decision is at or before
 *   `decidedBefore` (now minus the retention period).
 * - `purge`: the daily retention purge (lib/jobs/retention-purge.ts): screened and last decided
 *   at or before `before`, and decided, or CLEAR (an undecided screen with a match is an
 *   unreviewed hit: it stays in the pending queue until someone decides it).
 */
export type DeletionRule =
  | { kind: 'request'; ownerOnly?: string; decidedBefore?: string }
  | { kind: 'purge'; before: string };

/** Decided no later than `:cutoff` (or not decided at all). */
const DECIDED_BY_CUTOFF =
  '(attribute_not_exists(disposition) OR (disposition.#at <= :cutoff AND (attribute_not_exists(approval) OR approval.#at <= :cutoff)))';

function deletionCondition(rule: DeletionRule) {
  const clauses = ['attribute_exists(pk)'];
  const values: Record<string, unknown> = {};
  let usesAt = false;
  if (rule.kind === 'request') {
    if (rule.ownerOnly !== undefined) {
      clauses.push('created_by.user_id = :me');
      values[':me'] = rule.ownerOnly;
    }
    if (rule.decidedBefore !== undefined) {
      clauses.push(DECIDED_BY_CUTOFF);
      values[':cutoff'] = rule.decidedBefore;
      usesAt = true;
    }
  } else {
    clauses.push(
      'screened_at <= :cutoff',
      DECIDED_BY_CUTOFF,
      '(attribute_exists(disposition) OR risk_level = :clear)',
    );
    values[':cutoff'] = rule.before;
    values[':clear'] = 'CLEAR';
    usesAt = true;
  }
  return {
    ConditionExpression: clauses.join(' AND '),
    ...(usesAt ? { ExpressionAttributeNames: { '#at': 'at' } } : {}),
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
  };
}

/**
 * The screen is still as `stored` (read whole, unparsed): every attribute a write of a stored
 * screen changes is as read. Decisions, sign-offs and carried decisions move `history_count`
 * (and with it the decision, the sign-off, the pending index entries and events they carry);
 * `superseded_by` and `client_id` change alone (supersede, adoptForClient); the outbox drain
 * takes events off `webhook_events` (its size and first event, as the drain itself checks them).
 */
function unchangedSince(stored: Record<string, unknown>) {
  const history = historyAsRead(typeof stored.history_count === 'number' ? stored.history_count : undefined);
  const clauses = [history.condition];
  const values: Record<string, unknown> = { ...history.values };
  const names: Record<string, string> = {};
  for (const [attribute, placeholder] of [
    ['superseded_by', ':supersededRead'],
    ['client_id', ':clientRead'],
  ] as const) {
    if (typeof stored[attribute] === 'string') {
      clauses.push(`${attribute} = ${placeholder}`);
      values[placeholder] = stored[attribute];
    } else clauses.push(`attribute_not_exists(${attribute})`);
  }
  const events = Array.isArray(stored.webhook_events)
    ? (stored.webhook_events as { event_id?: unknown }[])
    : [];
  if (events.length > 0) {
    clauses.push('size(webhook_events) = :eventsRead AND webhook_events[0].#eventId = :firstEventRead');
    values[':eventsRead'] = events.length;
    values[':firstEventRead'] = events[0]?.event_id;
    names['#eventId'] = 'event_id';
  } else clauses.push('attribute_not_exists(webhook_events)');
  return { condition: clauses.join(' AND '), values, names };
}

/** The screen's writes, as values (lib/store/write.ts). */
export const screenWrites = {
  /** Stores a fresh screen (newScreenItem), never over a screen already stored under its id. */
  put(item: ScreenItem): TableWrite {
    return {
      Put: { Item: item, ConditionExpression: 'attribute_not_exists(pk)' },
      what: 'screen',
      refused: () => new ConflictError(`Screen ${item.screen_id} is already stored`),
    };
  },

  /**
   * Records a decision (any disposition but `approved`): on a pending screen only, or with
   * `override` on any screen, replacing the decision in force and any sign-off of it. The same
   * write appends the entry to the history, sets `decision_version` (the entry's version), keeps
   * room for a sign-off under HISTORY_BYTES_LIMIT, carries `events` to the outbox and leaves the
   * sparse pending index (which keeps the pending list exact). Only on the history as read
   * (`historyCount`, see historyAsRead). `refused`: the domain error for the screen found (none:
   * the screen is gone).
   */
  recordDecision(
    tenantId: string,
    screenId: string,
    entry: DecisionRecord,
    options: {
      override: boolean;
      historyCount: number | undefined;
      events: readonly OutboxEvent[];
      refused: Refusal;
    },
  ): TableWrite {
    const key = keys.screen(tenantId, screenId);
    const history = appendToHistory(entry);
    const fits = historyFits(entry, true);
    const asRead = historyAsRead(options.historyCount);
    const outbox = outboxPart(key, options.events);
    return {
      Update: {
        Key: key,
        UpdateExpression: `SET disposition = :decision, decision_version = if_not_exists(history_count, :zero) + :one, ${history.set}${outbox.set ? `, ${outbox.set}` : ''} REMOVE ${LEAVE_PENDING}${options.override ? ', approval' : ''}`,
        ConditionExpression: options.override
          ? `attribute_exists(pk) AND ${fits.condition} AND ${asRead.condition}`
          : `attribute_exists(pk) AND attribute_not_exists(disposition) AND ${fits.condition} AND ${asRead.condition}`,
        ExpressionAttributeValues: {
          ...history.values,
          ...fits.values,
          ...asRead.values,
          ...outbox.values,
          ':decision': entry,
        },
      },
      what: 'screen decision',
      refused: options.refused,
    };
  },

  /**
   * An admin's sign-off of decision `version`, with its `approved` history entry. Four eyes: the
   * admin who signs off must not be the author of the decision signed off (the person who made it,
   * also where the system carried it here; a decision whose author was recorded as the system
   * itself is never signed off), nor have been able to hold the key it was made with, and signs
   * off exactly the decision they reviewed (the decision in force is still `version`, not yet
   * approved). The entry must fit under HISTORY_BYTES_LIMIT.
   * Only on the history as read (`historyCount`, see historyAsRead).
   */
  approve(
    tenantId: string,
    screenId: string,
    approval: ApprovalRecord,
    entry: HistoryEntry,
    options: {
      approver: string;
      version: number;
      historyCount: number | undefined;
      events: readonly OutboxEvent[];
      refused: Refusal;
    },
  ): TableWrite {
    const key = keys.screen(tenantId, screenId);
    const history = appendToHistory(entry);
    const fits = historyFits(entry, false);
    const asRead = historyAsRead(options.historyCount);
    const outbox = outboxPart(key, options.events);
    return {
      Update: {
        Key: key,
        UpdateExpression: `SET approval = :approval, ${history.set}${outbox.set ? `, ${outbox.set}` : ''}`,
        ConditionExpression: `attribute_exists(disposition) AND attribute_not_exists(approval) AND disposition.author.user_id <> :me AND disposition.author.#role <> :system AND NOT contains(disposition.author_key_lineage, :me) AND decision_version = :version AND ${fits.condition} AND ${asRead.condition}`,
        ExpressionAttributeNames: { '#role': 'role' },
        ExpressionAttributeValues: {
          ':system': SYSTEM_ROLE,
          ...history.values,
          ...fits.values,
          ...asRead.values,
          ...outbox.values,
          ':approval': approval,
          ':me': options.approver,
          ':version': options.version,
        },
      },
      what: 'screen approval',
      refused: options.refused,
    };
  },

  /**
   * The system carries a settled decision of screen `sourceScreenId` to a client's current screen
   * (lib/monitoring/settled-decisions.ts), as a decision with its history entry (`carried_by`,
   * `carried_from`), leaving the pending queue and any sign-off. Only while the screen is still as
   * read (`history_count`, see historyAsRead): undecided, or (with `replacingCarried`) still
   * holding the decision the system carried from that same screen (one carried before carriers
   * were recorded has the system as its author).
   */
  carryDecision(
    current: Pick<ScreenItem, 'tenant_id' | 'screen_id' | 'history_count'>,
    entry: HistoryEntry,
    options: { sourceScreenId: string; replacingCarried: boolean; refused?: Refusal },
  ): TableWrite {
    const history = appendToHistory(entry);
    const asRead = historyAsRead(current.history_count);
    return {
      Update: {
        Key: keys.screen(current.tenant_id, current.screen_id),
        UpdateExpression: `SET disposition = :decision, decision_version = if_not_exists(history_count, :zero) + :one, ${history.set}, decision_source_screen_id = :source REMOVE ${LEAVE_PENDING}, approval`,
        ConditionExpression: options.replacingCarried
          ? `(attribute_exists(disposition.carried_by) OR disposition.author.#role = :system) AND decision_source_screen_id = :source AND ${asRead.condition}`
          : `attribute_exists(pk) AND attribute_not_exists(disposition) AND ${asRead.condition}`,
        ...(options.replacingCarried ? { ExpressionAttributeNames: { '#role': 'role' } } : {}),
        ExpressionAttributeValues: {
          ...history.values,
          ...asRead.values,
          ':decision': entry,
          ':source': options.sourceScreenId,
          ...(options.replacingCarried ? { ':system': SYSTEM_ROLE } : {}),
        },
      },
      what: 'carried decision',
      ...(options.refused ? { refused: options.refused } : {}),
    };
  },

  /**
   * A newer screen of the same client takes the older one's place in the pending queue: the older
   * one leaves the pending list (keeping its history) and names the newer, if nobody decided it
   * meanwhile.
   */
  supersede(previous: Pick<ScreenItem, 'tenant_id' | 'screen_id'>, newerId: string): TableWrite {
    return {
      Update: {
        Key: keys.screen(previous.tenant_id, previous.screen_id),
        UpdateExpression: `SET superseded_by = :newer REMOVE ${LEAVE_PENDING}`,
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(disposition)',
        ExpressionAttributeValues: { ':newer': newerId },
      },
      what: 'superseded screen',
    };
  },

  /** The screen becomes a client's too (listed under it: client-screens), unless it already belongs to one. */
  adoptForClient(tenantId: string, screenId: string, clientId: string): TableWrite {
    const [clientPk, clientSk] = indexAttributes('clientScreens');
    return {
      Update: {
        Key: keys.screen(tenantId, screenId),
        UpdateExpression: 'SET client_id = :client, #cpk = :cpk, #csk = :csk',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(client_id)',
        ExpressionAttributeNames: { '#cpk': clientPk, '#csk': clientSk },
        ExpressionAttributeValues: {
          ':client': clientId,
          ':cpk': keys.clientScreensIndex(tenantId, clientId),
          ':csk': screenId,
        },
      },
      what: 'client screen',
    };
  },

  /**
   * Deletes the screen under a deletion rule, checked in the delete's own condition. With
   * `asRead` (the screen exactly as stored when read), only while it is still that screen (see
   * unchangedSince), so a tombstone made from the read describes exactly what is deleted.
   * `refused`: the domain error for the screen found (none: the screen is gone).
   */
  remove(
    tenantId: string,
    screenId: string,
    rule: DeletionRule,
    options: { asRead?: Record<string, unknown>; refused?: Refusal } = {},
  ): TableWrite {
    const byRule = deletionCondition(rule);
    const asRead = options.asRead ? unchangedSince(options.asRead) : undefined;
    const names = { ...byRule.ExpressionAttributeNames, ...asRead?.names };
    const values = { ...byRule.ExpressionAttributeValues, ...asRead?.values };
    return {
      Delete: {
        Key: keys.screen(tenantId, screenId),
        ConditionExpression: asRead
          ? `${byRule.ConditionExpression} AND ${asRead.condition}`
          : byRule.ConditionExpression,
        ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
        ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
      },
      what: 'screen deletion',
      ...(options.refused ? { refused: options.refused } : {}),
    };
  },
};

/** The outcome of storing a fresh screen: stored, or refused with the screen found under its id. */
export type PutOutcome = { stored: true } | { stored: false; found: ScreenItem | undefined };

/** Stores a fresh screen (screenWrites.put); refused, the screen already stored under its id. */
export async function putScreen(table: Table, item: ScreenItem): Promise<PutOutcome> {
  const outcome = await trySendWrite(table, screenWrites.put(item));
  if (outcome.written) return { stored: true };
  return { stored: false, found: outcome.found ? parseScreenItem(outcome.found) : undefined };
}

/** Sends a decision or a sign-off (screenWrites.recordDecision / approve): the screen as written, or the write's refusal. */
export async function decideScreen(table: Table, write: TableWrite): Promise<ScreenItem> {
  return parseScreenItem((await sendWrite(table, write, 'ALL_NEW')) ?? {});
}

/** Sends screenWrites.supersede; refused (decided or deleted meanwhile), nothing changes. */
export async function supersede(
  table: Table,
  previous: Pick<ScreenItem, 'tenant_id' | 'screen_id'>,
  newerId: string,
): Promise<void> {
  await sendWriteIf(table, screenWrites.supersede(previous, newerId));
}

/** Sends screenWrites.adoptForClient; refused (gone, or another client's), nothing changes. */
export async function adoptScreenForClient(
  table: Table,
  tenantId: string,
  screenId: string,
  clientId: string,
): Promise<void> {
  await sendWriteIf(table, screenWrites.adoptForClient(tenantId, screenId, clientId));
}

/**
 * The outcome of a deletion: the screen removed, exactly as it was stored (its index entries
 * too: the deletion's audit entry hashes the stored content), or refused with the screen as it
 * stands (undefined when there is none).
 */
export type Removal = { removed: ScreenItem } | { refused: ScreenItem | undefined };

/** Sends screenWrites.remove. */
export async function removeScreenItem(
  table: Table,
  tenantId: string,
  screenId: string,
  rule: DeletionRule,
): Promise<Removal> {
  const outcome = await trySendWrite(table, screenWrites.remove(tenantId, screenId, rule), 'ALL_OLD');
  if (!outcome.written) return { refused: outcome.found ? parseScreenItem(outcome.found) : undefined };
  return { removed: outcome.attributes as ScreenItem };
}

/** The stored screen (a consistent read), or undefined. */
export async function findScreen(
  table: Table,
  tenantId: string,
  screenId: string,
): Promise<ScreenItem | undefined> {
  const stored = await storedScreen(table, tenantId, screenId);
  return stored ? parseScreenItem(stored) : undefined;
}

/**
 * The screen exactly as stored, unparsed (index entries and outbox attributes included): what a
 * deletion's tombstone hashes (lib/audit/tombstone.ts). Undefined when there is none.
 */
export async function storedScreen(
  table: Table,
  tenantId: string,
  screenId: string,
): Promise<Record<string, unknown> | undefined> {
  const item = await readItem(table, keys.screen(tenantId, screenId));
  return item;
}

/** One consistent read of some attributes of a screen (never its content). */
async function screenAttributes(
  table: Table,
  tenantId: string,
  screenId: string,
  projection: string,
): Promise<Record<string, unknown> | undefined> {
  const { Item } = await table.doc.send(
    new GetCommand({
      TableName: table.name,
      Key: keys.screen(tenantId, screenId),
      ProjectionExpression: projection,
      ConsistentRead: true,
    }),
  );
  return Item;
}

/** Whether the screen exists: one consistent read of its key alone. */
export async function screenExists(table: Table, tenantId: string, screenId: string): Promise<boolean> {
  return (await screenAttributes(table, tenantId, screenId, 'pk')) !== undefined;
}

/** The baseline a screen was compared with (a client's re-screen), if any. */
export async function baselineScreenIdOf(
  table: Table,
  tenantId: string,
  screenId: string,
): Promise<string | undefined> {
  const item = await screenAttributes(table, tenantId, screenId, 'baseline_screen_id');
  return typeof item?.baseline_screen_id === 'string' ? item.baseline_screen_id : undefined;
}

/** The subject's latest screen in the subject-screens index (the whole item), if any. */
export async function latestSubjectScreen(
  table: Table,
  tenantId: string,
  subjectHash: string,
): Promise<ScreenItem | undefined> {
  const { Items = [] } = await table.doc.send(
    new QueryCommand({
      TableName: table.name,
      IndexName: INDEXES.subjectScreens.name,
      KeyConditionExpression: `${INDEXES.subjectScreens.partitionKey} = :pk`,
      ExpressionAttributeValues: { ':pk': keys.subjectIndex(tenantId, subjectHash) },
      ScanIndexForward: false,
      Limit: 1,
    }),
  );
  return Items[0] ? parseScreenItem(Items[0]) : undefined;
}

/** Every screen of the subject (its subject-screens index entries), newest first. */
export async function subjectScreens(
  table: Table,
  tenantId: string,
  subjectHash: string,
): Promise<ScreenItem[]> {
  return (
    await queryAll(table, {
      IndexName: INDEXES.subjectScreens.name,
      KeyConditionExpression: `${INDEXES.subjectScreens.partitionKey} = :pk`,
      ExpressionAttributeValues: { ':pk': keys.subjectIndex(tenantId, subjectHash) },
      ScanIndexForward: false,
    })
  ).map(parseScreenItem);
}

/** One page of a client's screens (client-screens), newest first, after the screen `after`. */
export async function clientScreensPage(
  table: Table,
  tenantId: string,
  clientId: string,
  after: string | undefined,
  limit: number,
): Promise<{ rows: ScreenSummaryItem[]; more: boolean }> {
  const page = await queryIndexPage(
    table,
    'clientScreens',
    keys.clientScreensIndex(tenantId, clientId),
    after ? { sortKey: after, itemKey: keys.screen(tenantId, after) } : undefined,
    limit,
  );
  return { rows: page.items.map((item) => parseItem(ScreenSummaryItemSchema, item)), more: page.more };
}

/** Attributes a list row needs: the match data stays out of list pages. */
const SUMMARY_ATTRIBUTES = [
  'screen_id',
  'risk_level',
  'subject',
  'screened_at',
  'types',
  'created_by',
  'disposition',
  'decision_version',
  'approval',
  'alert_since',
  'origin',
  'client_id',
];

/** The highest screen id sort key of a tenant: `SCREEN#SCR-` and a day, then anything. */
const SCREEN_KEY_CEILING = 'SCR-99999999-~';

/** A page of a screen list: its rows, whether the list goes on, and the screen id to read on from. */
export interface ScreenListPage {
  rows: ScreenSummaryItem[];
  more: boolean;
  /** Where the next page starts (after this screen id); undefined on the last page. */
  next: string | undefined;
}

/**
 * One page of a screen list, newest first: the tenant's screens (`screens`) or the sparse
 * pending-screens index (`pending`), after the screen `after`. Unfiltered, it reads the rows it
 * returns (and one more, so the last page says so). Filtered (lib/screening/screen-filters.ts),
 * DynamoDB applies the filter after reading, so it reads on in growing steps until the page is
 * full, the list ends, or FILTERED_READ_LIMIT items were read: then the page may be short (even
 * empty) and `next` reads on from the last item read. `since` also bounds the read by the screen
 * ids' days, so a recent window never reads older screens.
 */
export async function screenListPage(
  table: Table,
  tenantId: string,
  list: Extract<ListName, 'screens' | 'pending'>,
  limit: number,
  after: string | undefined,
  filters: ScreenFilters = {},
): Promise<ScreenListPage> {
  const filter = filterCondition(filters);
  const filtered = isFiltered(filters);
  const names = {
    ...Object.fromEntries(SUMMARY_ATTRIBUTES.map((name, i) => [`#a${i}`, name])),
    ...filter.names,
  };
  const floor = filters.since ? `SCR-${earliestScreenDay(filters.since)}-` : undefined;
  // A cursor already past `since` (DynamoDB refuses a start key outside the key condition): done.
  if (floor && after && after < floor) return { rows: [], more: false, next: undefined };
  const key =
    list === 'screens'
      ? {
          KeyConditionExpression: floor
            ? 'pk = :pk AND sk BETWEEN :floor AND :ceiling'
            : 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: {
            ':pk': keys.tenantPartition(tenantId),
            ...(floor
              ? { ':floor': `SCREEN#${floor}`, ':ceiling': `SCREEN#${SCREEN_KEY_CEILING}` }
              : { ':prefix': 'SCREEN#' }),
          },
        }
      : {
          IndexName: INDEXES.pendingScreens.name,
          KeyConditionExpression: `${INDEXES.pendingScreens.partitionKey} = :pk${floor ? ` AND ${INDEXES.pendingScreens.sortKey} >= :floor` : ''}`,
          ExpressionAttributeValues: {
            ':pk': keys.pendingIndex(tenantId),
            ...(floor ? { ':floor': floor } : {}),
          },
        };
  const startKey = (screenId: string) =>
    list === 'screens'
      ? keys.screen(tenantId, screenId)
      : {
          ...keys.screen(tenantId, screenId),
          ...indexKeys('pendingScreens', keys.pendingIndex(tenantId), screenId),
        };

  const items: Record<string, unknown>[] = [];
  let position = after;
  let read = 0;
  let step = limit + 1;
  let more = false;
  for (;;) {
    const {
      Items = [],
      LastEvaluatedKey,
      ScannedCount = 0,
    } = await table.doc.send(
      new QueryCommand({
        TableName: table.name,
        ...key,
        ExpressionAttributeValues: { ...key.ExpressionAttributeValues, ...filter.values },
        ExpressionAttributeNames: names,
        ...(filter.expression ? { FilterExpression: filter.expression } : {}),
        ScanIndexForward: false,
        // One more than asked, so the last page says so instead of handing out a cursor to nothing.
        Limit: filtered ? Math.min(step, FILTERED_READ_LIMIT - read) : limit + 1 - items.length,
        ProjectionExpression: SUMMARY_ATTRIBUTES.map((_, i) => `#a${i}`).join(', '),
        ExclusiveStartKey: position ? startKey(position) : undefined,
      }),
    );
    read += ScannedCount;
    items.push(...Items);
    if (items.length > limit) {
      more = true;
      break;
    }
    if (!LastEvaluatedKey) break;
    // DynamoDB stopped at the step or its 1 MB page size: the position to read on from.
    position = String(LastEvaluatedKey.sk).replace(/^SCREEN#/, '');
    if (filtered && read >= FILTERED_READ_LIMIT) {
      more = true;
      break;
    }
    step = Math.min(step * 2, FILTERED_READ_LIMIT);
  }
  const rows = items.slice(0, limit).map((item) => parseItem(ScreenSummaryItemSchema, item));
  // A short page of a filtered list goes on from where the read stopped, not from its last row.
  const next = items.length > limit ? rows.at(-1)?.screen_id : position;
  return { rows, more, next: more ? next : undefined };
}

/** Where a page of the tenant's screens by id left off (DynamoDB's LastEvaluatedKey). */
export type ScreenPagePosition = Record<string, unknown>;

/** One page of the tenant's screens whose sort keys lie from `first` to `last`, oldest id first. */
async function screenKeyRangePage(
  table: Table,
  tenantId: string,
  range: { first: string; last: string },
  page: { size: number; from: ScreenPagePosition | undefined },
  read: {
    ConsistentRead?: boolean;
    ProjectionExpression?: string;
    ExpressionAttributeNames?: Record<string, string>;
  },
): Promise<{ items: Record<string, unknown>[]; next: ScreenPagePosition | undefined }> {
  const { Items = [], LastEvaluatedKey } = await table.doc.send(
    new QueryCommand({
      TableName: table.name,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
      ExpressionAttributeValues: {
        ':pk': keys.tenantPartition(tenantId),
        ':first': range.first,
        ':last': range.last,
      },
      ...read,
      Limit: page.size,
      ExclusiveStartKey: page.from,
    }),
  );
  return { items: Items, next: LastEvaluatedKey };
}

/**
 * One page (consistent, `pageSize` items) of the tenant's screens numbered from day `firstDay`
 * to day `lastDay` (`YYYYMMDD`, both whole), oldest id first: the screens export.
 */
export async function screensNumberedBetween(
  table: Table,
  tenantId: string,
  days: { firstDay: string; lastDay: string },
  pageSize: number,
  from: ScreenPagePosition | undefined,
): Promise<{ screens: ScreenItem[]; next: ScreenPagePosition | undefined }> {
  const { items, next } = await screenKeyRangePage(
    table,
    tenantId,
    // `~` sorts after every digit: the whole of the last day.
    { first: `SCREEN#SCR-${days.firstDay}`, last: `SCREEN#SCR-${days.lastDay}-~` },
    { size: pageSize, from },
    { ConsistentRead: true },
  );
  return { screens: items.map(parseScreenItem), next };
}

/** What the retention purge judges a screen by: never the subject or the results. */
const PurgeRowSchema = v.object({
  screen_id: v.string(),
  screened_at: v.string(),
  risk_level: v.picklist(RISK_ORDER),
  client_id: v.optional(v.string()),
  disposition: v.optional(v.object({ at: v.string() })),
  approval: v.optional(v.object({ at: v.string() })),
});
export type PurgeRow = v.InferOutput<typeof PurgeRowSchema>;

/**
 * One page (`pageSize` rows) of the tenant's screens numbered on day `lastDay` (`YYYYMMDD`) or
 * before, oldest id first, with only what the retention purge's rule needs.
 */
export async function screensNumberedBy(
  table: Table,
  tenantId: string,
  lastDay: string,
  pageSize: number,
  from: ScreenPagePosition | undefined,
): Promise<{ rows: PurgeRow[]; next: ScreenPagePosition | undefined }> {
  const { items, next } = await screenKeyRangePage(
    table,
    tenantId,
    // '~' sorts after the digits and '-': every screen numbered on the day or before.
    { first: 'SCREEN#', last: `SCREEN#SCR-${lastDay}~` },
    { size: pageSize, from },
    {
      ProjectionExpression: 'screen_id, screened_at, risk_level, client_id, disposition.#at, approval.#at',
      ExpressionAttributeNames: { '#at': 'at' },
    },
  );
  return { rows: items.map((item) => parseItem(PurgeRowSchema, item)), next };
}
