import { QuotaExceededError } from '../common/errors.ts';
import { logger } from '../common/log.ts';
import { countMetric, METRIC } from '../common/metrics.ts';
import { isoSeconds } from '../common/time.ts';
import type { ScreenChecks } from '../matcher/types.ts';
import { applyPolicy } from '../policy/policy.ts';
import { currentPolicy } from '../policy/policy-table.ts';
import type { Services } from '../ports.ts';
import type { Principal } from '../tenancy/auth.ts';
import { refundScreens } from '../tenancy/quota.ts';
import { CHECK_TYPES, type CheckType } from '../watchlists/types.ts';
import type { RememberedFalsePositive } from './false-positive-record.ts';
import { rememberedForPerson } from './false-positive-table.ts';
import { screenReceipt } from './receipt.ts';
import { applyRemembered, memoriesFor, personKeyOf } from './remembered-false-positives.ts';
import { findRecentScreen, judgeCachedScreen, takeWindow, windowScreen } from './rescreen-window.ts';
import { numberScreen } from './screen-id.ts';
import type { RescreenTrigger, ScreenOrigin } from './screen-origin.ts';
import { matchedLists, type Screen, toScreen } from './screen-record.ts';
import { type Actor, newScreenItem, type PutOutcome, putScreen, type ScreenItem } from './screen-table.ts';
import { type Subject, subjectHash } from './subject.ts';
import { recordSubjectScreen } from './subject-table.ts';
import { pointWindowAt, releaseWindow } from './window-table.ts';

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
  /** How the screen came about (default `api`); recorded on the screen. */
  origin?: ScreenOrigin;
  /** On a re-screen: what started its run; recorded on the screen (the `origin=list_change` filter). */
  rescreenTrigger?: RescreenTrigger;
  /** The registered client the screen belongs to: indexed under it (client-screens). */
  clientId?: string;
  /**
   * Last look at a fresh screen before it is stored, in the same write: a re-screen of a client
   * adds its alert, or carries an earlier decision forward (and so leaves the pending queue).
   */
  review?: (item: ScreenItem) => ScreenItem | Promise<ScreenItem>;
  /**
   * Stores the screen as reviewed (default `putScreen`): a re-screen that carries a decision
   * stores it with its audit entry in one transaction (lib/monitoring/carried-decisions.ts).
   */
  store?: (table: Services['table'], item: ScreenItem) => Promise<PutOutcome>;
  /**
   * The queued job this screen is made for (e.g. `batch:<batch id>:<index>`), stored on the
   * screen. A retry of the same job that finds this screen in the window gets it back as its own
   * (`skipped: false`): a failure after the screen was stored must neither refund it nor report
   * it failed.
   */
  jobRef?: string;
  /**
   * The id drawn for this screen when its batch was accepted (reserveScreenNumbers), used instead
   * of numbering it now; only for screens that are not charged here. A retry of the job that
   * finds a screen stored under this id made for the same job gets it back as its own.
   */
  screenId?: string;
}

/** Who a screen is made for and by: a user of the tenant, or the system (client re-screens). */
export type ScreeningPrincipal = Pick<Principal, 'tenantId' | 'plan'> & {
  userId: string;
  role: Actor['role'];
};

/** The Screen (docs/api-decisions.md#the-screen-object) with `skipped`: true when the earlier screen was returned unchanged. */
export type ScreenResult = Screen & { skipped: boolean };

/**
 * Screens one subject for the caller's tenant (the first two rows of the lifecycle: docs/api-decisions.md#the-screen-lifecycle).
 *
 * - Unless `force`, the same subject (same normalised name, dob, nationality, location, alias and
 *   check types) screened by this tenant within the rescreen window returns that earlier screen
 *   unchanged with `skipped: true`, charging nothing, as long as the lists in force bear it out
 *   (taken on them, or the same result on them: judgeCachedScreen); otherwise a fresh screen,
 *   charged, takes its place in the window.
 * - Otherwise the matcher runs, one screen is charged (QuotaExceededError → 429 when the plan's
 *   month is used up; nothing is stored then) in the same write that numbers it
 *   `SCR-YYYYMMDD-NNNNNN`, and the screen is stored pending (no disposition) with its author;
 *   it is now the subject's latest screen for the window. A failure after charging refunds the
 *   charge, so a failed screen is never billed.
 *
 * Reused by the batch endpoints with `{ charge: false }`.
 */
export async function screenSubject(
  services: Pick<Services, 'table' | 'config' | 'matcher'>,
  principal: ScreeningPrincipal,
  input: ScreenSubjectInput,
  options: ScreenSubjectOptions = {},
): Promise<ScreenResult> {
  const { table, config } = services;
  const at = options.at ?? new Date();
  const charge = options.charge ?? true;
  // The tenant's policy in force: the check types run when none are named, and how matches show.
  const policy = await currentPolicy(table, principal.tenantId);
  const types =
    input.types && input.types.length > 0
      ? [...input.types]
      : CHECK_TYPES.filter((type) => policy.policy.screening.default_types.includes(type));
  const subject = definedFields({
    name: input.name,
    dob: input.dob,
    nationality: input.nationality,
    location: input.location,
    alias: input.alias,
  });
  const hash = subjectHash(subject, types);
  const windowHours = config.RESCREEN_WINDOW_HOURS;

  // A screen found in the window is returned as it stands; it is this job's own when it was made
  // for the same job (a retry after a failure that followed the store).
  const found = (screen: ScreenItem): ScreenResult => ({
    ...toScreen(screen),
    skipped: !(options.jobRef !== undefined && screen.job_ref === options.jobRef),
  });
  const windowed = windowHours > 0;

  // One matcher for the whole request: the window's judgement and a fresh screen use the same lists.
  const matcher = await services.matcher();
  // A screen in the window that the lists in force no longer bear out: a fresh screen replaces it.
  let outdated: ScreenItem | undefined;
  let checks: ScreenChecks | undefined;
  if (!input.force) {
    const recent = await findRecentScreen(table, principal.tenantId, hash, windowHours, at);
    if (recent) {
      const verdict = judgeCachedScreen(recent, matcher, subject, types, policy);
      if (verdict.stands) return found(recent);
      outdated = recent;
      checks = verdict.checks;
    }
  }

  // The same matcher makes the screen and its receipt: the receipt names the lists this result came from.
  checks ??= matcher.screen(subject, types);
  checks = applyPolicy(checks, policy.policy, policy.version);
  // An ad-hoc screen shows the matches decided false positive for this subject before, at the
  // lower level (a client's re-screens carry their own decisions: lib/monitoring/).
  let remembered: RememberedFalsePositive[] = [];
  if (!options.clientId) {
    remembered = memoriesFor(
      checks,
      await rememberedForPerson(table, principal.tenantId, personKeyOf(subject)),
    );
    checks = applyRemembered(checks, remembered);
  }

  if (options.screenId !== undefined && charge) throw new Error('a drawn screen id is never charged here');
  let screenId: string;
  try {
    screenId =
      options.screenId ??
      (await numberScreen(
        table,
        principal.tenantId,
        at,
        charge ? { limit: principal.plan.monthly_screens } : undefined,
      ));
  } catch (error) {
    // At the limit, a subject another request is screening right now is still a cached answer.
    if (!(error instanceof QuotaExceededError) || !windowed || input.force) throw error;
    const holder = await windowScreen(table, principal.tenantId, hash, windowHours, at);
    // Not the outdated screen itself (nor one numbered before it): only a newer screen answers.
    if (holder && !(outdated && holder.screen_id <= outdated.screen_id)) return found(holder);
    throw error;
  }
  const refund = async () => {
    if (charge) await refundScreens(table, principal.tenantId, 1, at);
  };

  if (windowed && !input.force) {
    // One fresh screen per subject per window: of concurrent identical screens, the one that
    // takes the window is stored; the others return it (the number they drew stays unused).
    let holder: ScreenItem | undefined;
    try {
      holder = await takeWindow(
        table,
        principal.tenantId,
        hash,
        { screenId, at },
        windowHours,
        outdated?.screen_id,
      );
    } catch (error) {
      await refund();
      throw error;
    }
    if (holder) {
      await refund();
      return found(holder);
    }
  }

  // Pending (the sparse pending index), and indexed under its subject for the rescreen window
  // and under its client, if any (newScreenItem).
  const fresh = newScreenItem({
    screen_id: screenId,
    tenant_id: principal.tenantId,
    subject,
    subject_hash: hash,
    types,
    risk_level: checks.risk_level,
    sanctions_result: checks.sanctions_result,
    pep_result: checks.pep_result,
    criminal_result: checks.criminal_result,
    matched_lists: matchedLists(checks),
    screened_at: isoSeconds(at),
    created_by: { user_id: principal.userId, role: principal.role },
    history: [],
    origin: options.origin ?? 'api',
    ...(options.rescreenTrigger ? { rescreen_trigger: options.rescreenTrigger } : {}),
    ...(options.clientId ? { client_id: options.clientId } : {}),
    ...(options.jobRef !== undefined ? { job_ref: options.jobRef } : {}),
    receipt: screenReceipt(matcher, types, policy.version),
    ...(remembered.length > 0 ? { remembered_false_positives: remembered } : {}),
  });

  let item = fresh;
  try {
    if (options.review) item = await options.review(fresh);
    const put = await (options.store ?? putScreen)(table, item);
    if (!put.stored) {
      // A drawn id already stored: an earlier attempt of this job stored its screen and failed after.
      const own =
        options.screenId !== undefined &&
        options.jobRef !== undefined &&
        put.found?.job_ref === options.jobRef;
      if (own && put.found) return { ...toScreen(put.found), skipped: false };
      throw new Error(`Screen ${screenId} is already stored`);
    }
  } catch (error) {
    // A screen that was not stored is not billed, and does not hold the window.
    await refund();
    if (windowed) await releaseWindow(table, principal.tenantId, hash, screenId).catch(() => undefined);
    throw error;
  }
  // The per-subject row of GET /clients/screened follows the screen (derived data: a failure
  // here must not turn a stored, charged screen into an error).
  await recordSubjectScreen(table, item, at).catch((error) => subjectRowLog(error, item));
  countScreen(item);
  // A forced screen asked for by the tenant becomes what a repeat within the window returns. A
  // client's re-screen skips that write (one per re-screened client): a repeat still finds it
  // first, through the subject's newest screen in the subject-screens index (findRecentScreen);
  // only a repeat racing the re-screen within milliseconds may get the earlier screen instead.
  if (windowed && input.force && options.origin !== 'rescreen') {
    await pointWindowAt(table, principal.tenantId, hash, { screenId, at });
  }
  return { ...toScreen(item), skipped: false };
}

/**
 * The screen in the business metrics (lib/common/metrics.ts): one screen by origin, a hit by its
 * level, and an alert when this screen raised it (a carried-forward alert was counted when raised).
 */
function countScreen(item: ScreenItem): void {
  countMetric(METRIC.screens, { origin: item.origin });
  if (item.risk_level !== 'CLEAR') countMetric(METRIC.hits, { risk_level: item.risk_level });
  if (item.alert && item.alert.raised_by_screen_id === item.screen_id) countMetric(METRIC.alertsRaised);
}

function definedFields(subject: Subject): Subject {
  return Object.fromEntries(
    Object.entries(subject).filter(([, value]) => value !== undefined && value !== ''),
  ) as unknown as Subject;
}

function subjectRowLog(error: unknown, item: ScreenItem): void {
  logger.error({ err: error, tenant: item.tenant_id, screenId: item.screen_id }, 'subject row not updated');
}
