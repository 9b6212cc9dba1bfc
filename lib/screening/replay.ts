/**
 * POST /screens/{screen_id}/replay: re-runs a stored screen's subject (same check types) on the
 * snapshot its receipt names, with the running matcher, and says whether the result is the one
 * stored; then on the lists in force today, and what they would change. Read-only: nothing is
 * stored or charged. It answers an examiner's "show me this customer was screened against the
 * lists in force that day" from the record rather than from memory.
 *
 * For admins only (403 for analysts), and on the audit trail (`screen.replay`, write-ahead: the
 * `started` entry before the re-run, `done` with both risk levels after). A replay re-runs the
 * matcher on today's lists, unmetered: that is a screen in all but name, and the examiner's
 * question it answers is an admin's to ask (docs/api-decisions.md#screen-replay-is-for-admins).
 */
import { audited } from '../audit/trail.ts';
import { ConflictError, GoneError } from '../common/errors.ts';
import { MATCHING_CONSTANTS } from '../matcher/matching-config.ts';
import type { Matcher, ScreenOptions } from '../matcher/screen.ts';
import { loadSnapshot } from '../matcher/snapshot-file.ts';
import type { Match, RiskLevel, ScreenChecks } from '../matcher/types.ts';
import { MATCHER_VERSION } from '../matcher/version.ts';
import { applyPolicy } from '../policy/policy.ts';
import { type PolicyVersion, policyVersion } from '../policy/policy-table.ts';
import type { Services } from '../ports.ts';
import { matcherForSnapshotVersion } from '../sync/snapshot-matchers.ts';
import { retentionRule } from '../sync/snapshot-retention.ts';
import { snapshotStoreOf } from '../sync/snapshot-store.ts';
import { type Principal, requireRole } from '../tenancy/auth.ts';
import { listingChanged, matchesOf, refOf } from './change-detection.ts';
import { policyVersionOf, receiptListsOf, type ScreenReceipt } from './receipt.ts';
import { applyRemembered } from './remembered-false-positives.ts';
import type { MatchRef, ScreenItem } from './screen-record.ts';
import { getScreenItem } from './screens-read.ts';

/** How a re-run's result differs from the stored screen's. */
export interface ResultDifferences {
  /** The screen's overall risk level, stored and now; null when it is the same. */
  risk_level: { stored: RiskLevel; now: RiskLevel } | null;
  /** Listed entries matched now and not in the stored screen. */
  matches_added: MatchRef[];
  /** Listed entries in the stored screen and not matched now. */
  matches_removed: MatchRef[];
  /** Matches on entries whose listing says something else now (names, dates, programmes...). */
  matches_changed: MatchRef[];
  /** Matches on the same listing with another score, level or explanation. */
  matches_rescored: MatchRef[];
  /** Paths of any other field that differs (narratives, flags), at most MAX_OTHER_FIELDS. */
  other_fields: string[];
}

export interface ReplayOutcome {
  snapshot_version: string;
  matcher_version: string;
  risk_level: RiskLevel;
  /** The result equals the stored one in every field (after JSON normalisation). */
  identical: boolean;
  differences: ResultDifferences;
}

export interface ScreenReplay {
  screen_id: string;
  receipt: ScreenReceipt;
  /** The stored subject re-run on the snapshot the receipt names, with the running matcher. */
  replayed: ReplayOutcome & {
    /** The running matcher is the receipt's: same version and configuration. */
    same_matcher: boolean;
    /** The replay's lists are the receipt's (same ids, dates and content hashes). */
    same_lists: boolean;
  };
  /** The stored subject re-run on the lists in force now. */
  today: ReplayOutcome;
}

const MAX_OTHER_FIELDS = 20;

/**
 * Replays a screen of the caller's tenant (another tenant's screen is 404 like a missing one):
 * admins only, recorded on the trail as `screen.replay`.
 */
export async function replayScreen(
  services: Pick<Services, 'table' | 'config' | 'matcher'>,
  caller: Principal,
  screenId: string,
): Promise<ScreenReplay> {
  requireRole(caller, 'admin', 'Replaying a screen');
  return audited(
    services.table,
    caller.tenantId,
    {
      action: 'screen.replay',
      actor: { user_id: caller.userId, role: caller.role },
      target: { screen_id: screenId.slice(0, 40) },
      done: (replay) => ({
        details: {
          snapshot_version: replay.replayed.snapshot_version,
          identical: replay.replayed.identical,
          replayed_risk_level: replay.replayed.risk_level,
          today_risk_level: replay.today.risk_level,
        },
      }),
    },
    () => replayOf(services, caller.tenantId, screenId),
  );
}

async function replayOf(
  services: Pick<Services, 'table' | 'config' | 'matcher'>,
  tenantId: string,
  screenId: string,
): Promise<ScreenReplay> {
  const item = await getScreenItem(services.table, tenantId, screenId);
  const { receipt, live, matcher: replayedMatcher, policy } = await asScreened(services, tenantId, item);
  const replayed = rerun(item, replayedMatcher, policy);
  const today = replayedMatcher === live ? replayed : rerun(item, live, policy);
  return {
    screen_id: item.screen_id,
    receipt,
    replayed: {
      ...replayed,
      same_matcher: sameMatcherAs(receipt, item.types),
      same_lists: canonical(receipt.snapshot.lists) === canonical(receiptListsOf(replayedMatcher)),
    },
    today,
  };
}

/** What a stored screen is re-run with: the matcher over its receipt's snapshot, under its policy version. */
export interface AsScreened {
  receipt: ScreenReceipt;
  /** The matcher over the lists in force now. */
  live: Matcher;
  /** The matcher over the snapshot the receipt names (`live` when it is the same one). */
  matcher: Matcher;
  policy: PolicyVersion;
}

/**
 * The matcher and policy version a screen was made with, rebuilt from its receipt: 409 for a screen
 * stored before receipts or naming a policy version the tenant never adopted, 410 when the
 * receipt's snapshot is no longer available (the detail names the version and why).
 */
export async function asScreened(
  services: Pick<Services, 'table' | 'config' | 'matcher'>,
  tenantId: string,
  item: ScreenItem,
): Promise<AsScreened> {
  const screenId = item.screen_id;
  const receipt = item.receipt;
  if (!receipt) {
    throw new ConflictError(
      `Screen ${screenId} was stored before screens recorded their receipt (the snapshot and matcher they were made with), so there is no record of the lists to replay it on; screen the subject afresh for a screen with a receipt`,
    );
  }
  const live = await services.matcher();
  const version = receipt.snapshot.version;
  const onItsSnapshot =
    version === live.snapshot.version
      ? { matcher: live }
      : await matcherForSnapshotVersion(
          {
            store: snapshotStoreOf(services.config),
            loadBundled: () => loadSnapshot(services.config.WATCHLIST_SNAPSHOT || undefined),
          },
          version,
        );
  if ('unavailable' in onItsSnapshot) {
    const why = {
      not_kept: `is no longer kept (${retentionRule(services.config.SNAPSHOT_RETENTION_DAYS)})`,
      not_shipped:
        'was the snapshot shipped with an earlier release of the service, which this release no longer ships (a bundled snapshot is replayable while the running code ships the same one)',
      old_format: 'is kept in a snapshot format this release of the service no longer reads',
    }[onItsSnapshot.unavailable];
    throw new GoneError(`Screen ${screenId} was matched against watchlist snapshot ${version}, which ${why}`);
  }
  // Under the policy version the screen was made under, whatever the tenant's policy is now.
  const policy = await policyVersion(services.table, tenantId, policyVersionOf(receipt));
  if (!policy) {
    throw new ConflictError(
      `Screen ${screenId} names policy version ${policyVersionOf(receipt)}, which the tenant never adopted`,
    );
  }
  return { receipt, live, matcher: onItsSnapshot.matcher, policy };
}

/** The running matcher is the one the receipt names: same version and configuration. */
export const sameMatcherAs = (receipt: ScreenReceipt, types: ScreenItem['types']): boolean =>
  receipt.matcher.version === MATCHER_VERSION &&
  canonical(receipt.matcher.config) === canonical({ check_types: types, ...MATCHING_CONSTANTS });

type Checks = Pick<ScreenChecks, 'risk_level' | 'sanctions_result' | 'pep_result' | 'criminal_result'>;

const checksOf = (checks: Checks): Checks => ({
  risk_level: checks.risk_level,
  sanctions_result: checks.sanctions_result ?? null,
  pep_result: checks.pep_result ?? null,
  criminal_result: checks.criminal_result ?? null,
});

/**
 * The stored subject and check types screened again by `matcher`, under the screen's policy version,
 * with the decided false positives it applied (none on a client's screens).
 */
export function rescreened(
  item: ScreenItem,
  matcher: Matcher,
  policy: PolicyVersion,
  options?: ScreenOptions,
): Checks {
  return checksOf(
    applyRemembered(
      applyPolicy(matcher.screen(item.subject, item.types, options), policy.policy, policy.version),
      item.remembered_false_positives ?? [],
    ),
  );
}

function rerun(item: ScreenItem, matcher: Matcher, policy: PolicyVersion): ReplayOutcome {
  const stored = checksOf(item);
  const now = rescreened(item, matcher, policy);
  const differences = compareResults(stored, now);
  return {
    snapshot_version: matcher.snapshot.version,
    matcher_version: MATCHER_VERSION,
    risk_level: now.risk_level,
    identical: canonical(stored) === canonical(now),
    differences,
  };
}

const matchKey = (match: Pick<Match, 'list_id' | 'entity_id'>) => `${match.list_id}#${match.entity_id}`;

/** Match by match (a match is its list and the publisher's entry id), then any other field. */
export function compareResults(stored: Checks, now: Checks): ResultDifferences {
  const before = new Map(matchesOf(stored).map((match) => [matchKey(match), match]));
  const after = new Map(matchesOf(now).map((match) => [matchKey(match), match]));
  const differences: ResultDifferences = {
    risk_level:
      stored.risk_level === now.risk_level ? null : { stored: stored.risk_level, now: now.risk_level },
    matches_added: [],
    matches_removed: [],
    matches_changed: [],
    matches_rescored: [],
    other_fields: [],
  };
  for (const [key, match] of after) {
    const earlier = before.get(key);
    if (!earlier) differences.matches_added.push(refOf(match));
    else if (listingChanged(earlier, match)) differences.matches_changed.push(refOf(match));
    else if (canonical(earlier) !== canonical(match)) differences.matches_rescored.push(refOf(match));
  }
  for (const [key, match] of before) if (!after.has(key)) differences.matches_removed.push(refOf(match));
  const { risk_level: _risk, ...storedResults } = stored;
  const { risk_level: _now, ...nowResults } = now;
  differences.other_fields = differingPaths(
    withoutMatches(storedResults),
    withoutMatches(nowResults),
    '',
  ).slice(0, MAX_OTHER_FIELDS);
  return differences;
}

const MATCH_ARRAYS = new Set(['matches', 'interpol_hits', 'fbi_hits']);

/** The results without their match arrays (compared match by match above). */
function withoutMatches(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutMatches);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !MATCH_ARRAYS.has(key))
        .map(([key, item]) => [key, withoutMatches(item)]),
    );
  }
  return value;
}

function differingPaths(a: unknown, b: unknown, path: string): string[] {
  if (canonical(a) === canonical(b)) return [];
  const objects =
    a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b);
  if (!objects) return [path || '.'];
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.flatMap((key) =>
    differingPaths(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      path ? `${path}.${key}` : key,
    ),
  );
}

/**
 * JSON with object keys sorted and undefined fields dropped: a stored screen comes back from the
 * table with its map keys in another order and without undefined fields.
 */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : item,
  );
}
