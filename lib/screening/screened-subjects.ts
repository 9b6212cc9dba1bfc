import { logger } from '../common/log.ts';
import type { RiskLevel } from '../matcher/types.ts';
import { decodeCursor, encodeCursor } from '../store/cursor.ts';
import type { Table } from '../store/table.ts';
import type { DispositionValue } from './request.ts';
import { currentDisposition } from './screen-record.ts';
import { type Actor, type ScreenItem, subjectScreens } from './screen-table.ts';
import {
  findSubjectRow,
  recordLatestDecision,
  removeSubjectRow,
  replaceSubjectRow,
  type SubjectRow,
  subjectRowsPage,
} from './subject-table.ts';

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
 *
 * The row as stored, its indexes and its writes: subject-table.ts.
 */

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
 * Brings the subject's row up to a screen's disposition in force after a dispose. Derived data:
 * a failure is logged, never turned into an error for a decision that was recorded.
 */
export async function noteScreenDecision(table: Table, item: ScreenItem, at: Date): Promise<void> {
  const inForce = currentDisposition(item);
  if (!inForce) return;
  try {
    // The latest decision over the subject's screens (by time), which also puts the row in the
    // reviewed index (sorted by that decision's time). Refused: a later decision is already
    // recorded (or the row predates this index): nothing to move.
    await recordLatestDecision(
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
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const row = await findSubjectRow(table, tenantId, subjectHash);
    if (!row) return;
    const screens = await subjectScreens(table, tenantId, subjectHash);
    if (screens.length === 0) {
      if (await removeSubjectRow(table, tenantId, subjectHash, row.version)) return;
      continue; // changed meanwhile: read the row again
    }
    const recomputed = rowFromScreens(subjectHash, screens, row.version + 1);
    if (await replaceSubjectRow(table, tenantId, recomputed, row.version)) return;
  }
}

function rowFromScreens(hash: string, screens: ScreenItem[], version: number): Omit<SubjectRow, 'entity'> {
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
    subject_hash: hash,
    subject: latest.subject,
    types: latest.types,
    screen_count: screens.length,
    latest_screen: {
      screen_id: latest.screen_id,
      risk_level: latest.risk_level,
      screened_at: latest.screened_at,
    },
    ...(decision ? { latest_disposition: decision } : {}),
    last_activity_at: lastActivity,
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
  const after = cursor ? decodeCursor(cursor, 'subjects', tenantId, which) : undefined;
  const { rows, more } = await subjectRowsPage(table, tenantId, which, after, limit);
  return {
    subjects: rows.map(({ row }) => toScreenedSubject(row)),
    next_cursor: more ? encodeCursor('subjects', tenantId, rows[rows.length - 1].position, which) : null,
  };
}
