import * as v from 'valibot';
import { RISK_ORDER } from '../matcher/types.ts';
import { INDEXES, indexKeys, keys } from '../store/schema.ts';
import { parseItem, queryIndexPage, readItem, type Table } from '../store/table.ts';
import { sendWrite, sendWriteIf, type TableWrite } from '../store/write.ts';
import { CHECK_TYPES } from '../watchlists/types.ts';
import { DISPOSITIONS } from './request.ts';
import { ActorSchema } from './screen-table.ts';
import { SubjectSchema } from './subject.ts';

/**
 * The subject item (keys.subject, `SUBJECT#<subject hash>`): one row per unique subject a tenant
 * screened (lib/screening/screened-subjects.ts), in two indexes: subjects-by-activity (every
 * subject, by its last activity) and reviewed-subjects (sparse: subjects with a decision, by that
 * decision's time). Each write only ever moves the row forward (a condition on the latest screen,
 * the latest decision's time, or the version read).
 */

const LatestScreenSchema = v.object({
  screen_id: v.string(),
  risk_level: v.picklist(RISK_ORDER),
  screened_at: v.string(),
});

const LatestDispositionSchema = v.object({
  disposition: v.picklist(DISPOSITIONS),
  author: ActorSchema,
  at: v.string(),
  screen_id: v.string(),
});

export const SubjectRowSchema = v.object({
  entity: v.literal('subject'),
  subject_hash: v.string(),
  subject: SubjectSchema,
  types: v.array(v.picklist(CHECK_TYPES)),
  screen_count: v.number(),
  latest_screen: LatestScreenSchema,
  latest_disposition: v.optional(LatestDispositionSchema),
  last_activity_at: v.string(),
  version: v.number(),
});
export type SubjectRow = v.InferOutput<typeof SubjectRowSchema>;

/** The latest decision over a subject's screens, as its row keeps it. */
export type LatestDecision = v.InferOutput<typeof LatestDispositionSchema>;

/** A screen as the subject's row counts it. */
export interface SubjectScreen {
  tenant_id: string;
  subject_hash: string;
  subject: SubjectRow['subject'];
  types: SubjectRow['types'];
  screen_id: string;
  risk_level: SubjectRow['latest_screen']['risk_level'];
  screened_at: string;
}

/**
 * Sort key of the activity and reviewed indexes: the time of the activity to the millisecond
 * (screens of one second still list in the order they were made), then the subject hash.
 */
const activitySortKey = (at: string, hash: string) => `${new Date(at).toISOString()}#${hash}`;

/** The subject's row as stored, with its index entries (the reviewed one only with a decision). */
function storedRow(tenantId: string, row: Omit<SubjectRow, 'entity'>) {
  const hash = row.subject_hash;
  const decision = row.latest_disposition;
  return {
    ...keys.subject(tenantId, hash),
    entity: 'subject',
    subject_hash: hash,
    subject: row.subject,
    types: row.types,
    screen_count: row.screen_count,
    latest_screen: row.latest_screen,
    ...(decision
      ? {
          latest_disposition: decision,
          ...indexKeys('reviewedSubjects', keys.reviewedIndex(tenantId), activitySortKey(decision.at, hash)),
        }
      : {}),
    last_activity_at: row.last_activity_at,
    ...indexKeys(
      'subjectsByActivity',
      keys.subjectsIndex(tenantId),
      activitySortKey(row.last_activity_at, hash),
    ),
    version: row.version,
  };
}

/** The subject row's writes, as values (lib/store/write.ts). */
export const subjectWrites = {
  /**
   * A new screen of the subject, made the latest: counts it and (re)writes the subject and its
   * activity entry, only while no newer screen is the latest.
   */
  recordLatestScreen(screen: SubjectScreen, activityAt: Date): TableWrite {
    return {
      Update: {
        Key: keys.subject(screen.tenant_id, screen.subject_hash),
        UpdateExpression:
          'SET entity = :entity, subject_hash = :hash, subject = :subject, types = :types, ' +
          'latest_screen = :latest, last_activity_at = :at, #apk = :apk, #ask = :ask ' +
          'ADD screen_count :one, version :one',
        ConditionExpression: 'attribute_not_exists(latest_screen) OR latest_screen.screen_id < :id',
        ExpressionAttributeNames: {
          '#apk': INDEXES.subjectsByActivity.partitionKey,
          '#ask': INDEXES.subjectsByActivity.sortKey,
        },
        ExpressionAttributeValues: {
          ':entity': 'subject',
          ':hash': screen.subject_hash,
          ':subject': screen.subject,
          ':types': screen.types,
          ':latest': {
            screen_id: screen.screen_id,
            risk_level: screen.risk_level,
            screened_at: screen.screened_at,
          },
          ':at': screen.screened_at,
          ':apk': keys.subjectsIndex(screen.tenant_id),
          ':ask': activitySortKey(activityAt.toISOString(), screen.subject_hash),
          ':id': screen.screen_id,
          ':one': 1,
        },
      },
      what: 'subject row',
    };
  },

  /** A screen of the subject older than its latest: only counts it. */
  countScreen(tenantId: string, subjectHash: string): TableWrite {
    return {
      Update: {
        Key: keys.subject(tenantId, subjectHash),
        UpdateExpression: 'ADD screen_count :one, version :one',
        ExpressionAttributeValues: { ':one': 1 },
      },
      what: 'subject row',
    };
  },

  /**
   * A decision on one of the subject's screens: the latest decision unless a later one is
   * recorded, which also puts the row in the reviewed index (sorted by the activity's time).
   */
  recordDecision(
    tenantId: string,
    subjectHash: string,
    decision: LatestDecision,
    activityAt: Date,
  ): TableWrite {
    return {
      Update: {
        Key: keys.subject(tenantId, subjectHash),
        UpdateExpression:
          'SET latest_disposition = :decision, last_activity_at = :at, #ask = :sortKey, ' +
          '#rpk = :rpk, #rsk = :sortKey ADD version :one',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(latest_disposition) OR latest_disposition.#at <= :at)',
        ExpressionAttributeNames: {
          '#ask': INDEXES.subjectsByActivity.sortKey,
          '#rpk': INDEXES.reviewedSubjects.partitionKey,
          '#rsk': INDEXES.reviewedSubjects.sortKey,
          '#at': 'at',
        },
        ExpressionAttributeValues: {
          ':decision': decision,
          ':at': decision.at,
          ':sortKey': activitySortKey(activityAt.toISOString(), subjectHash),
          ':rpk': keys.reviewedIndex(tenantId),
          ':one': 1,
        },
      },
      what: 'subject row',
    };
  },

  /** Replaces the row (recomputed from the subject's screens), only while it is still at version `seen`. */
  replace(tenantId: string, row: Omit<SubjectRow, 'entity'>, seen: number): TableWrite {
    return {
      Put: {
        Item: storedRow(tenantId, row),
        ConditionExpression: 'version = :seen',
        ExpressionAttributeValues: { ':seen': seen },
      },
      what: 'subject row',
    };
  },

  /** Deletes the row (its last screen is gone), only while it is still at version `seen`. */
  remove(tenantId: string, subjectHash: string, seen: number): TableWrite {
    return {
      Delete: {
        Key: keys.subject(tenantId, subjectHash),
        ConditionExpression: 'version = :seen',
        ExpressionAttributeValues: { ':seen': seen },
      },
      what: 'subject row',
    };
  },
};

/**
 * Counts a new screen of the subject, making it the latest unless a newer one is there (then it
 * only counts).
 */
export async function recordSubjectScreen(
  table: Table,
  screen: SubjectScreen,
  activityAt: Date,
): Promise<void> {
  const newest = await sendWriteIf(table, subjectWrites.recordLatestScreen(screen, activityAt));
  if (!newest) await sendWrite(table, subjectWrites.countScreen(screen.tenant_id, screen.subject_hash));
}

/** Sends subjectWrites.recordDecision; false when a later decision is already recorded (or no row). */
export function recordLatestDecision(
  table: Table,
  ...args: Parameters<typeof subjectWrites.recordDecision>
): Promise<boolean> {
  return sendWriteIf(table, subjectWrites.recordDecision(...args));
}

/** Sends subjectWrites.replace; false when the row changed since it was read. */
export function replaceSubjectRow(
  table: Table,
  ...args: Parameters<typeof subjectWrites.replace>
): Promise<boolean> {
  return sendWriteIf(table, subjectWrites.replace(...args));
}

/** Sends subjectWrites.remove; false when the row changed since it was read. */
export function removeSubjectRow(
  table: Table,
  ...args: Parameters<typeof subjectWrites.remove>
): Promise<boolean> {
  return sendWriteIf(table, subjectWrites.remove(...args));
}

/** The subject's row (a consistent read), if any. */
export async function findSubjectRow(
  table: Table,
  tenantId: string,
  subjectHash: string,
): Promise<SubjectRow | undefined> {
  const item = await readItem(table, keys.subject(tenantId, subjectHash));
  return item ? parseItem(SubjectRowSchema, item) : undefined;
}

/**
 * One page of one of the subject indexes, newest first, after the position `after` (an index
 * sort key, as handed out): `screened` (subjects-by-activity) or `reviewed` (reviewed-subjects).
 */
export async function subjectRowsPage(
  table: Table,
  tenantId: string,
  which: 'screened' | 'reviewed',
  after: string | undefined,
  limit: number,
): Promise<{ rows: { row: SubjectRow; position: string }[]; more: boolean }> {
  const index = which === 'screened' ? 'subjectsByActivity' : 'reviewedSubjects';
  const partition = which === 'screened' ? keys.subjectsIndex(tenantId) : keys.reviewedIndex(tenantId);
  const { items, more } = await queryIndexPage(
    table,
    index,
    partition,
    after
      ? { sortKey: after, itemKey: keys.subject(tenantId, after.slice(after.indexOf('#') + 1)) }
      : undefined,
    limit,
  );
  const skName = INDEXES[index].sortKey;
  return {
    rows: items.map((item) => ({ row: parseItem(SubjectRowSchema, item), position: item[skName] as string })),
    more,
  };
}
