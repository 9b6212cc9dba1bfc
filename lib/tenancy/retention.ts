import * as v from 'valibot';
import { type AuditActor, audited } from '../audit/trail.ts';
import { ForbiddenError, InvalidRequestError } from '../common/errors.ts';
import { strictBody } from '../common/fields.ts';
import type { Table } from '../store/table.ts';
import { type Principal, requireRole } from './auth.ts';
import { getStoredRetention, type StoredRetention, setStoredRetention } from './tenant-table.ts';

/**
 * A tenant's retention settings (README "Retention"), stored on the tenant item:
 *
 * - `retention_days`: how long a screen is kept after its last activity (its last decision, or
 *   its screening while undecided). `null` (the default) keeps screens until someone deletes
 *   them, which is the contract's behaviour. With a number, the daily purge deletes the screens
 *   past it (lib/jobs/retention-purge.ts).
 * - `retention_lock`: under the lock, a decided screen cannot be deleted before `retention_days`
 *   after its last decision (DELETE /screens/{id} answers 403 naming the rule and the date).
 *   Default false: DELETE behaves as the contract says.
 *
 * A lock one admin can lift protects nothing against that admin, so through the API a tenant admin
 * can turn the lock on and lengthen the period, never lift the lock or shorten the period while it
 * holds; only operations can (the ops CLI, with a reason). Every change, and every refused
 * attempt, is in the tenant's audit trail (`tenant.set-retention`).
 */
export interface RetentionSettings {
  retention_days: number | null;
  retention_lock: boolean;
  /** The last change: when and by whom (null until the first). */
  changed_at: string | null;
  changed_by: AuditActor | null;
}

/** Ten years: beyond any record-keeping rule we know of (five years is the usual AML period). */
export const RETENTION_DAYS_MAX = 3650;

const retentionDays = v.pipe(
  v.nullable(
    v.pipe(
      v.number('must be a whole number of days, or null'),
      v.integer('must be a whole number of days, or null'),
      v.minValue(1, 'must be at least 1 (day), or null'),
      v.maxValue(RETENTION_DAYS_MAX, `must be at most ${RETENTION_DAYS_MAX} (days), or null`),
    ),
  ),
  v.description(
    `Days a screen is kept after its last decision (or its screening while undecided), 1 to ${RETENTION_DAYS_MAX}; null keeps screens until deleted`,
  ),
);

/** Body of PATCH /settings: the settings to change; those left out stay as they are. */
export const SettingsPatchSchema = strictBody({
  retention_days: v.optional(retentionDays),
  retention_lock: v.optional(
    v.pipe(
      v.boolean('must be true or false'),
      v.description(
        'Under the lock, decided screens cannot be deleted before the retention period ends; only operations can lift it',
      ),
    ),
  ),
});

export type SettingsPatch = v.InferOutput<typeof SettingsPatchSchema>;

const DEFAULTS: RetentionSettings = {
  retention_days: null,
  retention_lock: false,
  changed_at: null,
  changed_by: null,
};

function retentionOf(stored: StoredRetention): RetentionSettings {
  return {
    retention_days: stored.retention_days ?? null,
    retention_lock: stored.retention_lock === true,
    changed_at: stored.retention_changed_at ?? null,
    changed_by: stored.retention_changed_by ?? null,
  };
}

/**
 * The tenant's retention settings (consistent read); the defaults for a tenant that never set any
 * (callers are authenticated, or the ops CLI has checked the tenant exists).
 */
export async function getRetention(table: Table, tenantId: string): Promise<RetentionSettings> {
  const stored = await getStoredRetention(table, tenantId);
  return stored ? retentionOf(stored) : DEFAULTS;
}

const daysText = (days: number | null) => (days === null ? 'none' : String(days));

/**
 * Changes the settings, audited (write-ahead) with the values before and after. `actor` decides
 * what may be changed under the lock: a tenant admin only tightens it, operations (`ops`) may
 * also loosen it and must then give a reason. The rules are judged against the settings read,
 * and the write is conditional on them being unchanged, so two concurrent changes cannot both be
 * judged against the same old state (the loser gets 409).
 */
export async function setRetention(
  table: Table,
  actor: AuditActor,
  tenantId: string,
  patch: SettingsPatch,
  reason?: string,
): Promise<RetentionSettings> {
  if (patch.retention_days === undefined && patch.retention_lock === undefined) {
    throw new InvalidRequestError('body: send retention_days, retention_lock or both');
  }
  const before = await getRetention(table, tenantId);
  const after = {
    retention_days: patch.retention_days === undefined ? before.retention_days : patch.retention_days,
    retention_lock: patch.retention_lock ?? before.retention_lock,
  };
  const details: Record<string, string> = {
    retention_days_before: daysText(before.retention_days),
    retention_days_after: daysText(after.retention_days),
    retention_lock_before: String(before.retention_lock),
    retention_lock_after: String(after.retention_lock),
    ...(reason ? { reason } : {}),
  };
  // The done entry repeats the change, so each outcome entry says what it did on its own.
  return audited(
    table,
    tenantId,
    { action: 'tenant.set-retention', actor, details, done: () => ({ details }) },
    async () => {
      const loosens =
        before.retention_lock &&
        (!after.retention_lock ||
          after.retention_days === null ||
          after.retention_days < (before.retention_days ?? 0));
      if (loosens && actor.role !== 'ops') {
        throw new ForbiddenError(
          `Retention lock: while the lock holds, the retention period (${before.retention_days} days) can only be lengthened through the API; lifting the lock or shortening the period is done by operations (ops CLI), with a reason, and is recorded in the audit trail`,
          'retention_locked',
        );
      }
      if (loosens && !reason) {
        throw new InvalidRequestError(
          'reason: lifting the retention lock or shortening the period needs a reason',
        );
      }
      if (after.retention_lock && after.retention_days === null) {
        throw new InvalidRequestError(
          'retention_lock: the lock needs a retention period; set retention_days (1 to 3650) with it',
        );
      }
      const changedAt = new Date().toISOString();
      await setStoredRetention(table, tenantId, before, after, actor, changedAt);
      return { ...after, changed_at: changedAt, changed_by: actor };
    },
  );
}

/** GET /settings and PATCH /settings: the caller's tenant, admins only. */
export const settingsOfCaller = {
  get(table: Table, principal: Principal): Promise<RetentionSettings> {
    requireRole(principal, 'admin', 'Reading the tenant settings');
    return getRetention(table, principal.tenantId);
  },
  set(table: Table, principal: Principal, patch: SettingsPatch): Promise<RetentionSettings> {
    requireRole(principal, 'admin', 'Changing the tenant settings');
    return setRetention(
      table,
      { user_id: principal.userId, role: principal.role },
      principal.tenantId,
      patch,
    );
  },
};
