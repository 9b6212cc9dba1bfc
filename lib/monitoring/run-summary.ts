import type { BatchRecord, RunCounts } from '../batch/batch-table.ts';
import type { Actor } from '../screening/screen-record.ts';

/**
 * A rescreen run's counts as its batch record holds them: a row of GET /clients/rescreen/runs, and
 * the head of GET /clients/rescreen/runs/{run_id} (lib/monitoring/rescreen-run.ts adds the clients
 * that changed or failed). Apart from the run's use cases, so the list reads no more than it needs.
 */
export interface RunSummary {
  run_id: string;
  /** `finished` once every queued client is screened or failed. */
  status: 'running' | 'finished';
  trigger: RunCounts['trigger'];
  started_at: string;
  started_by: Actor;
  /** Clients found past their due date. */
  due: number;
  /** Clients queued for a re-screen. */
  queued: number;
  /** Due clients left for a later run because the month's quota was used up. */
  skipped_quota: number;
  /** Queued clients another run was already re-screening (not screened by this one, refunded). */
  already_running: number;
  /** Clients whose re-screen has finished (screened or failed). */
  finished: number;
  /** Of those, the clients that were not re-screened (refunded). */
  failed: number;
}

/** The counts of a rescreen run's batch record; undefined for a batch record of another purpose. */
export function runSummaryOf(record: BatchRecord): RunSummary | undefined {
  if (record.purpose !== 'rescreen' || !record.run) return undefined;
  return {
    run_id: record.batch_id,
    status: record.finished >= record.total ? 'finished' : 'running',
    trigger: record.run.trigger,
    started_at: record.created_at,
    started_by: record.created_by,
    due: record.run.due,
    queued: record.total,
    skipped_quota: record.run.skipped_quota,
    already_running: record.run.already_running + (record.skipped ?? 0),
    finished: Math.min(record.finished, record.total),
    failed: record.failed ?? 0,
  };
}
