import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { logger } from '../log.ts';
import type { Services } from '../runtime/services.ts';
import { keys } from '../store/table.ts';
import type { Principal } from '../tenancy/auth.ts';
import { chargeScreens, refundScreens } from '../tenancy/quota.ts';
import { CHECK_TYPES, type CheckType } from '../watchlists/types.ts';
import { findRecentScreen, rememberScreen } from './rescreen-cache.ts';
import { allocateScreenId } from './screen-id.ts';
import { isoSeconds, type Screen, type ScreenItem, toScreen } from './screen-record.ts';
import { type Subject, subjectHash } from './subject.ts';

/** One subject to screen, already validated (ScreenRequestSchema / the batch subject schema). */
export interface ScreenSubjectInput extends Subject {
  /** Check types to run, canonical order; default all three. */
  types?: readonly CheckType[];
  /** Screen afresh even when the same subject was screened within the rescreen window. */
  force?: boolean;
}

export interface ScreenSubjectOptions {
  /**
   * Charge one screen against the monthly quota (default true). The batch endpoints pass false:
   * they charge the whole batch before any work starts and refund the subjects that came back
   * `skipped` (or failed) themselves.
   */
  charge?: boolean;
  /** The time of the screen (tests); default now. */
  at?: Date;
}

/** The Screen of SPEC §2.1 with `skipped`: true when the earlier screen was returned unchanged. */
export type ScreenResult = Screen & { skipped: boolean };

/**
 * Screens one subject for the caller's tenant (SPEC §3, first two rows).
 *
 * - Unless `force`, the same subject (same normalised name, dob, nationality, location, alias and
 *   check types) screened by this tenant within the rescreen window returns that earlier screen
 *   unchanged with `skipped: true`, charging nothing.
 * - Otherwise the matcher runs, one screen is charged (QuotaExceededError → 429 when the plan's
 *   month is used up; nothing is stored then), a `SCR-YYYYMMDD-NNNNNN` id is allocated and the
 *   screen is stored pending (no disposition) with its author, and becomes the subject's cached
 *   screen. A failure after charging refunds the charge, so a failed screen is never billed.
 *
 * Reused by the batch endpoints with `{ charge: false }`.
 */
export async function screenSubject(
  services: Pick<Services, 'table' | 'config' | 'matcher'>,
  principal: Pick<Principal, 'tenantId' | 'userId' | 'role' | 'plan'>,
  input: ScreenSubjectInput,
  options: ScreenSubjectOptions = {},
): Promise<ScreenResult> {
  const { table, config } = services;
  const at = options.at ?? new Date();
  const charge = options.charge ?? true;
  const types = input.types && input.types.length > 0 ? [...input.types] : [...CHECK_TYPES];
  const subject = definedFields({
    name: input.name,
    dob: input.dob,
    nationality: input.nationality,
    location: input.location,
    alias: input.alias,
  });
  const hash = subjectHash(subject, types);
  const windowHours = config.RESCREEN_WINDOW_HOURS;

  if (!input.force) {
    const recent = await findRecentScreen(table, principal.tenantId, hash, windowHours, at);
    if (recent) return { ...toScreen(recent), skipped: true };
  }

  const checks = services.matcher().screen(subject, types);

  // Charging and id allocation are independent single writes; running them together saves a
  // round trip per screen. An id allocated for a refused screen is simply never used.
  const [charged, allocated] = await Promise.allSettled([
    charge
      ? chargeScreens(table, principal.tenantId, 1, principal.plan.monthly_screens, at)
      : Promise.resolve(0),
    allocateScreenId(table, principal.tenantId, at),
  ]);
  if (charged.status === 'rejected') throw charged.reason;
  if (allocated.status === 'rejected') {
    if (charge) await refundScreens(table, principal.tenantId, 1, at);
    throw allocated.reason;
  }

  const screenId = allocated.value;
  const item: ScreenItem = {
    ...keys.screen(principal.tenantId, screenId),
    // Sparse pending index: these two attributes leave the item with its first disposition.
    gsi1pk: keys.pendingIndex(principal.tenantId),
    gsi1sk: screenId,
    kind: 'screen',
    screen_id: screenId,
    tenant_id: principal.tenantId,
    subject,
    subject_hash: hash,
    types,
    risk_level: checks.risk_level,
    sanctions_result: checks.sanctions_result,
    pep_result: checks.pep_result,
    criminal_result: checks.criminal_result,
    screened_at: isoSeconds(at),
    created_by: { user_id: principal.userId, role: principal.role },
    history: [],
  };

  const [stored, remembered] = await Promise.allSettled([
    table.doc.send(
      new PutCommand({
        TableName: table.name,
        Item: item,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
    windowHours > 0 ? rememberScreen(table, item, windowHours) : Promise.resolve(),
  ]);
  if (stored.status === 'rejected') {
    if (charge) await refundScreens(table, principal.tenantId, 1, at);
    throw stored.reason;
  }
  if (remembered.status === 'rejected') {
    // The screen stands; the next identical request just screens afresh instead of hitting the cache.
    logger.warn(
      { tenant: principal.tenantId, screenId, err: remembered.reason },
      'rescreen cache not updated',
    );
  }
  return { ...toScreen(item), skipped: false };
}

function definedFields(subject: Subject): Subject {
  return Object.fromEntries(
    Object.entries(subject).filter(([, value]) => value !== undefined && value !== ''),
  ) as unknown as Subject;
}
