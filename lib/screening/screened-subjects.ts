import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { logger } from '../common/log.ts';
import { RISK_ORDER, type RiskLevel } from '../matcher/types.ts';
import { decodeCursor, encodeCursor } from '../store/cursor.ts';
import { INDEXES, indexKeys, keys } from '../store/schema.ts';
import { parseItem, queryAll, queryIndexPage, type Table, writeIf } from '../store/table.ts';
import { CHECK_TYPES } from '../watchlists/types.ts';
import { DISPOSITIONS, type DispositionValue } from './request.ts';
import {
  type Actor,
  ActorSchema,
  currentDisposition,
  parseScreenItem,
  type ScreenItem,
} from './screen-record.ts';
import { SubjectSchema } from './subject.ts';

/**
 * One row per unique subject a tenant ever screened, through any path (single, batch, client
 * registration, re-screen), keyed by the subject hash of the rescreen window: the same
 * normalised name, dob, nationality, location, alias and check types. The row is kept up to
 * date as screens, dispositions and deletions are written, so GET /clients/screened and
 * GET /clients/reviewed read one index page and never scan the tenant's screens.
 *
 * The row is derived data. Its writes follow the screen's own write (there are no transactions
 * to bind them); each is a conditional update that only ever moves the row forward, and a
 * deletion recomputes the row from the subject's remaining screens.
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

const SubjectRowSchema = v.object({
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

type SubjectRow = v.InferOutput<typeof SubjectRowSchema>;

/** A row of GET /clients/screened and GET /clients/reviewed. */
export interface ScreenedSubject {
  subject: SubjectRow['subject'];
  types: SubjectRow['types'];
  latest_screen: { screen_id: string; risk_level: RiskLevel; screened_at: string };
  screen_count: number;
  latest_disposition: {
    disposition: DispositionValue;
    author: Actor;
    at: string;
    screen_id: string;
  } | null;
  last_activity_at: string;
}

/**
 * Sort key of the activity and reviewed indexes: the time of the activity to the millisecond
 * (screens of one second still list in the order they were made), then the subject hash.
 */
const activitySortKey = (at: string, hash: string) => `${new Date(at).toISOString()}#${hash}`;

/** A new screen of the subject: counts it, and makes it the latest unless a newer one is there. */
export async function recordSubjectScreen(table: Table, item: ScreenItem, at: Date): Promise<void> {
  const key = keys.subject(item.tenant_id, item.subject_hash);
  const latest = { screen_id: item.screen_id, risk_level: item.risk_level, screened_at: item.screened_at };
  const newest = await writeIf(
    table,
    new UpdateCommand({
      TableName: table.name,
      Key: key,
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
        ':hash': item.subject_hash,
        ':subject': item.subject,
        ':types': item.types,
        ':latest': latest,
        ':at': item.screened_at,
        ':apk': keys.subjectsIndex(item.tenant_id),
        ':ask': activitySortKey(at.toISOString(), item.subject_hash),
        ':id': item.screen_id,
        ':one': 1,
      },
    }),
  );
  if (!newest) {
    // A newer screen is already the latest: this one only counts.
    await table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: 'ADD screen_count :one, version :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  }
}

/**
 * A disposition recorded on one of the subject's screens: the latest decision over its screens
 * (by time), which also puts the row in the reviewed index (sorted by that decision's time).
 */
export async function recordSubjectDecision(
  table: Table,
  tenantId: string,
  subjectHash: string,
  decision: { disposition: DispositionValue; author: Actor; at: string; screen_id: string },
  activityAt: Date,
): Promise<void> {
  await writeIf(
    table,
    new UpdateCommand({
      TableName: table.name,
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
    }),
  );
  // Refused: a later decision is already recorded (or the row predates this index): nothing to move.
}

/**
 * Brings the subject's row up to a screen's disposition in force after a dispose. Derived data:
 * a failure is logged, never turned into an error for a decision that was recorded.
 */
export async function noteScreenDecision(table: Table, item: ScreenItem, at: Date): Promise<void> {
  const inForce = currentDisposition(item);
  if (!inForce) return;
  try {
    await recordSubjectDecision(
      table,
      item.tenant_id,
      item.subject_hash,
      {
        disposition: inForce.disposition,
        author: inForce.author,
        at: inForce.at,
        screen_id: item.screen_id,
      },
      at,
    );
  } catch (error) {
    logger.error({ err: error, tenant: item.tenant_id, screenId: item.screen_id }, 'subject row not updated');
  }
}

/**
 * A screen of the subject was deleted: the row is recomputed from the subject's remaining
 * screens (one query of the subject's own index entries), or removed with the last one. The
 * write is conditional on the version read, so a screen recorded meanwhile is never lost.
 */
export async function forgetSubjectScreen(
  table: Table,
  tenantId: string,
  subjectHash: string,
): Promise<void> {
  const key = keys.subject(tenantId, subjectHash);
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const { Item } = await table.doc.send(
      new GetCommand({ TableName: table.name, Key: key, ConsistentRead: true }),
    );
    if (!Item) return;
    const row = parseItem(SubjectRowSchema, Item);
    const screens = (
      await queryAll(table, {
        IndexName: INDEXES.subjectScreens.name,
        KeyConditionExpression: `${INDEXES.subjectScreens.partitionKey} = :pk`,
        ExpressionAttributeValues: { ':pk': keys.subjectIndex(tenantId, subjectHash) },
        ScanIndexForward: false,
      })
    ).map(parseScreenItem);
    if (screens.length === 0) {
      const written = await writeIf(
        table,
        new DeleteCommand({
          TableName: table.name,
          Key: key,
          ConditionExpression: 'version = :seen',
          ExpressionAttributeValues: { ':seen': row.version },
        }),
      );
      if (written) return;
      continue; // changed meanwhile: read the row again
    }
    const written = await writeIf(
      table,
      new PutCommand({
        TableName: table.name,
        Item: { ...key, ...rowFromScreens(tenantId, subjectHash, screens, row.version + 1) },
        ConditionExpression: 'version = :seen',
        ExpressionAttributeValues: { ':seen': row.version },
      }),
    );
    if (written) return;
  }
}

function rowFromScreens(tenantId: string, hash: string, screens: ScreenItem[], version: number) {
  const [latest] = screens;
  let decision: SubjectRow['latest_disposition'];
  for (const screen of screens) {
    const current = currentDisposition(screen);
    if (current && (!decision || current.at > decision.at)) {
      decision = {
        disposition: current.disposition,
        author: current.author,
        at: current.at,
        screen_id: screen.screen_id,
      };
    }
  }
  const lastActivity = decision && decision.at > latest.screened_at ? decision.at : latest.screened_at;
  return {
    entity: 'subject',
    subject_hash: hash,
    subject: latest.subject,
    types: latest.types,
    screen_count: screens.length,
    latest_screen: {
      screen_id: latest.screen_id,
      risk_level: latest.risk_level,
      screened_at: latest.screened_at,
    },
    ...(decision
      ? {
          latest_disposition: decision,
          ...indexKeys('reviewedSubjects', keys.reviewedIndex(tenantId), activitySortKey(decision.at, hash)),
        }
      : {}),
    last_activity_at: lastActivity,
    ...indexKeys('subjectsByActivity', keys.subjectsIndex(tenantId), activitySortKey(lastActivity, hash)),
    version,
  };
}

function toScreenedSubject(row: SubjectRow): ScreenedSubject {
  return {
    subject: row.subject,
    types: row.types,
    latest_screen: row.latest_screen,
    screen_count: row.screen_count,
    latest_disposition: row.latest_disposition ?? null,
    last_activity_at: row.last_activity_at,
  };
}

export interface ScreenedSubjectsPage {
  subjects: ScreenedSubject[];
  next_cursor: string | null;
}

/**
 * GET /clients/screened (every subject, most recent activity first) and GET /clients/reviewed
 * (subjects with a decision, most recent decision first): one page of one index.
 */
export async function listScreenedSubjects(
  table: Table,
  tenantId: string,
  which: 'screened' | 'reviewed',
  limit: number,
  cursor: string | undefined,
): Promise<ScreenedSubjectsPage> {
  const index = which === 'screened' ? 'subjectsByActivity' : 'reviewedSubjects';
  const partition = which === 'screened' ? keys.subjectsIndex(tenantId) : keys.reviewedIndex(tenantId);
  const after = cursor ? decodeCursor(cursor, 'subjects', tenantId, which) : undefined;
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
  const rows = items.map((item) => ({
    row: parseItem(SubjectRowSchema, item),
    position: item[skName] as string,
  }));
  return {
    subjects: rows.map(({ row }) => toScreenedSubject(row)),
    next_cursor: more ? encodeCursor('subjects', tenantId, rows[rows.length - 1].position, which) : null,
  };
}
