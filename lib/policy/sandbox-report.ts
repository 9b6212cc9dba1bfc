import type { RiskLevel } from '../matcher/types.ts';

/**
 * The report of a policy proposal's sandbox (lib/screening/policy-sandbox.ts `runSandbox`), kept
 * with the proposal (./proposal-table.ts) and digested for the apply's audit entry.
 */

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

/** The report with its fields in the order a reviewer reads them (DynamoDB keeps no map order). */
export function orderedReport(report: SandboxReport): SandboxReport {
  return {
    confirmed_hits_no_longer_alerting: report.confirmed_hits_no_longer_alerting,
    false_positives_no_longer_alerting: report.false_positives_no_longer_alerting,
    policy_sha256: report.policy_sha256,
    screens_replayed: report.screens_replayed,
    screens_skipped: report.screens_skipped,
    alerts_gained: report.alerts_gained,
    alerts_lost: report.alerts_lost,
    level_changes: report.level_changes,
    level_changes_total: report.level_changes_total,
  };
}
