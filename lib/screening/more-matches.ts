/**
 * GET /screens/{screen_id}/matches (issue 39, "nothing hidden"): the matches of one of a screen's
 * checks beyond the strongest 10 it stores, strongest first, a page at a time. A screen keeps at
 * most MAX_MATCHES per check and says how many there were (`total`, `truncated`); the rest are
 * not stored, so they are computed again, deterministically, as replay computes a screen
 * (./replay.ts `asScreened`): the stored subject and check types on the snapshot the receipt
 * names, under the policy version it names, with the decided false positives it applied, the
 * matcher keeping every match this once.
 *
 * A read of an existing screen: nothing is stored, charged or put on the audit trail, and analysts
 * may read it as they read the screen. A check that was not cut answers an empty page without
 * re-running anything.
 */
import { ConflictError } from '../common/errors.ts';
import { type Match, riskRank, type ScreenChecks } from '../matcher/types.ts';
import type { Services } from '../ports.ts';
import { decodeCursor, encodeCursor } from '../store/cursor.ts';
import type { Principal } from '../tenancy/auth.ts';
import type { CheckType } from '../watchlists/types.ts';
import { asScreened, rescreened, sameMatcherAs } from './replay.ts';
import type { ScreenItem } from './screen-record.ts';
import { getScreenItem } from './screens-read.ts';

export interface MoreMatchesQuery {
  check: CheckType;
  limit: number;
  cursor?: string;
}

export interface MoreMatchesPage {
  screen_id: string;
  check: CheckType;
  /** The check's matches in all: the stored ones and the rest. */
  total: number;
  /** How many of them the screen stores (its strongest). */
  stored: number;
  /** This page of the rest, strongest first. */
  matches: Match[];
  next_cursor: string | null;
  /** The snapshot and policy version the rest was computed on (the receipt's); null when nothing was re-run. */
  snapshot_version: string | null;
  policy_version: number | null;
  /** The running matcher is the one that made the screen (its receipt's version and configuration). */
  same_matcher: boolean;
}

type Checks = Pick<ScreenChecks, 'sanctions_result' | 'pep_result' | 'criminal_result'>;

/** A check's matches, as the screen's result orders them: level, then score. */
function matchesOfCheck(checks: Checks, check: CheckType): Match[] {
  if (check === 'sanctions') return checks.sanctions_result?.matches ?? [];
  if (check === 'pep') return checks.pep_result?.matches ?? [];
  const criminal = checks.criminal_result;
  return [...(criminal?.interpol_hits ?? []), ...(criminal?.fbi_hits ?? [])].sort(
    (a, b) => riskRank(b.risk_level) - riskRank(a.risk_level) || b.score - a.score,
  );
}

const keyOf = (match: Pick<Match, 'list_id' | 'entity_id'>) => `${match.list_id}#${match.entity_id}`;

/** The stored result of the check, or 409 naming the checks the screen ran. */
function storedResult(item: ScreenItem, check: CheckType) {
  const result = item.types.includes(check)
    ? check === 'sanctions'
      ? item.sanctions_result
      : check === 'pep'
        ? item.pep_result
        : item.criminal_result
    : undefined;
  if (!result) {
    throw new ConflictError(
      `Screen ${item.screen_id} ran ${item.types.join(', ')}, not ${check}: it has no ${check} matches to page`,
    );
  }
  return result;
}

/** One page of a check's matches beyond those the screen stores (another tenant's screen is 404). */
export async function moreMatches(
  services: Pick<Services, 'table' | 'config' | 'matcher'>,
  caller: Principal,
  screenId: string,
  query: MoreMatchesQuery,
): Promise<MoreMatchesPage> {
  const item = await getScreenItem(services.table, caller.tenantId, screenId);
  const scope = `${item.screen_id}#${query.check}`;
  const offset = query.cursor ? Number(decodeCursor(query.cursor, 'matches', caller.tenantId, scope)) : 0;
  const result = storedResult(item, query.check);
  const stored = matchesOfCheck(item, query.check);
  const empty = {
    screen_id: item.screen_id,
    check: query.check,
    stored: stored.length,
    next_cursor: null,
  };
  // Counted and not cut: nothing beyond the stored matches, and nothing to re-run.
  if (result.truncated === false) {
    return {
      ...empty,
      total: stored.length,
      matches: [],
      snapshot_version: null,
      policy_version: null,
      same_matcher: item.receipt ? sameMatcherAs(item.receipt, item.types) : false,
    };
  }
  const { receipt, matcher, policy } = await asScreened(services, caller.tenantId, item);
  const all = matchesOfCheck(
    rescreened(item, matcher, policy, { maxMatches: Number.POSITIVE_INFINITY }),
    query.check,
  );
  const shown = new Set(stored.map(keyOf));
  const rest = all.filter((match) => !shown.has(keyOf(match)));
  const page = rest.slice(offset, offset + query.limit);
  const end = offset + page.length;
  return {
    ...empty,
    total: stored.length + rest.length,
    matches: page,
    next_cursor: end < rest.length ? encodeCursor('matches', caller.tenantId, String(end), scope) : null,
    snapshot_version: matcher.snapshot.version,
    policy_version: policy.version,
    same_matcher: sameMatcherAs(receipt, item.types),
  };
}
