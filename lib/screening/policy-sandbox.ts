import { createHash } from 'node:crypto';
import type { Matcher } from '../matcher/screen.ts';
import { RISK_ORDER, type RiskLevel, riskRank } from '../matcher/types.ts';
import { applyPolicy, type PolicyBody } from '../policy/policy.ts';
import { applyRemembered } from './remembered-false-positives.ts';
import type { ScreenItem } from './screen-table.ts';

/**
 * The sandbox of a proposed policy (issue 40, item 2; docs/policies.md): the tenant's past screens
 * re-run, each on the snapshot its receipt names, under the proposed policy (with the decided false
 * positives each applied), and compared with what they showed. Read-only: nothing is stored or
 * charged. What a reviewer must see first comes first: the decided confirmed hits that would no
 * longer alert, by name.
 *
 * A screen "alerts" at MEDIUM or above: the levels the contract says require investigation.
 */

export const ALERTING: readonly RiskLevel[] = ['MEDIUM', 'HIGH', 'CRITICAL'];
const alerts = (level: RiskLevel) => riskRank(level) >= riskRank('MEDIUM');

/** A decided screen the proposal would no longer alert on. */
export interface DecidedNoLongerAlerting {
  name: string;
  screen_id: string;
  decided_by: string;
  decided_at: string;
  level_before: RiskLevel;
  level_after: RiskLevel;
}

export interface SandboxReport {
  /** SHA-256 of the proposed policy's canonical JSON: which policy this report is about. */
  policy_sha256: string;
  screens_replayed: number;
  /** Screens that could not be replayed (no receipt, or a snapshot no longer kept), and why. */
  screens_skipped: { screen_id: string; reason: string }[];
  /** Settled confirmed hits that would no longer alert, by name: the first thing a reviewer must see. */
  confirmed_hits_no_longer_alerting: DecidedNoLongerAlerting[];
  /** Settled false positives that would no longer alert, by name. */
  false_positives_no_longer_alerting: DecidedNoLongerAlerting[];
  /** Screens that would alert and did not, by the level they would have. */
  alerts_gained: Record<RiskLevel, number>;
  /** Screens that alerted and would not, by the level they had. */
  alerts_lost: Record<RiskLevel, number>;
  /** Screens whose level would change, at most LEVEL_CHANGES_LISTED of them; the count is all. */
  level_changes: { screen_id: string; before: RiskLevel; after: RiskLevel }[];
  level_changes_total: number;
}

export const LEVEL_CHANGES_LISTED = 1000;

/** JSON with object keys sorted: the digest of equal content is equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

export const sha256Of = (value: unknown) => createHash('sha256').update(canonical(value)).digest('hex');

const byLevel = () => Object.fromEntries(RISK_ORDER.map((level) => [level, 0])) as Record<RiskLevel, number>;

/** The decision in force when it is settled and is `value` (signed off, or needing no sign-off). */
function settledAs(screen: ScreenItem, value: 'confirmed_hit' | 'false_positive') {
  const decision = screen.disposition;
  if (decision?.disposition !== value) return undefined;
  return screen.approval || !decision.approval_requested ? decision : undefined;
}

/**
 * Replays `screens` under `proposed`. `matcherFor` gives the matcher of a snapshot version, or
 * undefined when it is no longer kept; `progress` is told after each screen.
 */
export async function runSandbox(
  screens: Iterable<ScreenItem> | AsyncIterable<ScreenItem>,
  matcherFor: (snapshotVersion: string) => Promise<Matcher | undefined>,
  proposed: PolicyBody,
  proposedVersion: number,
  progress: (done: number) => Promise<void> | void = () => undefined,
): Promise<SandboxReport> {
  // The decided confirmed hits first: what a reviewer must read before anything else.
  const report: SandboxReport = {
    confirmed_hits_no_longer_alerting: [],
    false_positives_no_longer_alerting: [],
    policy_sha256: sha256Of(proposed),
    screens_replayed: 0,
    screens_skipped: [],
    alerts_gained: byLevel(),
    alerts_lost: byLevel(),
    level_changes: [],
    level_changes_total: 0,
  };
  let done = 0;
  for await (const screen of screens) {
    done += 1;
    const matcher = screen.receipt ? await matcherFor(screen.receipt.snapshot.version) : undefined;
    if (!screen.receipt || !matcher) {
      report.screens_skipped.push({
        screen_id: screen.screen_id,
        reason: screen.receipt
          ? `snapshot ${screen.receipt.snapshot.version} is no longer kept`
          : 'stored before receipts',
      });
      await progress(done);
      continue;
    }
    const after = applyRemembered(
      applyPolicy(matcher.screen(screen.subject, screen.types), proposed, proposedVersion),
      screen.remembered_false_positives ?? [],
    ).risk_level;
    const before = screen.risk_level;
    report.screens_replayed += 1;
    if (after !== before) {
      report.level_changes_total += 1;
      if (report.level_changes.length < LEVEL_CHANGES_LISTED)
        report.level_changes.push({ screen_id: screen.screen_id, before, after });
    }
    if (alerts(after) && !alerts(before)) report.alerts_gained[after] += 1;
    if (alerts(before) && !alerts(after)) {
      report.alerts_lost[before] += 1;
      for (const [value, list] of [
        ['confirmed_hit', report.confirmed_hits_no_longer_alerting],
        ['false_positive', report.false_positives_no_longer_alerting],
      ] as const) {
        const decision = settledAs(screen, value);
        if (decision)
          list.push({
            name: screen.subject.name,
            screen_id: screen.screen_id,
            decided_by: decision.author.user_id,
            decided_at: decision.at,
            level_before: before,
            level_after: after,
          });
      }
    }
    await progress(done);
  }
  const byName = (a: DecidedNoLongerAlerting, b: DecidedNoLongerAlerting) =>
    a.name.localeCompare(b.name) || a.screen_id.localeCompare(b.screen_id);
  report.confirmed_hits_no_longer_alerting.sort(byName);
  report.false_positives_no_longer_alerting.sort(byName);
  return report;
}
