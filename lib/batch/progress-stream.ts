import { setTimeout as sleep } from 'node:timers/promises';
import { RISK_ORDER, type RiskLevel } from '../matcher/types.ts';
import type { Table } from '../store/table.ts';

import { type FinishedItem, readFinishedItems } from './batch-table.ts';
import type { StartedBatch } from './start-batch.ts';

/**
 * The Server-Sent Events of a batch stream (docs/api-decisions.md#batch-stream-events): `start`, one `progress` per subject as it
 * completes, `error` for a subject that failed for good, `complete` with the totals; a comment
 * line keeps idle connections (proxies, CloudFront) from timing out.
 */
export interface BatchStartEvent {
  batch_id: string;
  total: number;
}
export interface BatchProgressEvent {
  batch_id: string;
  index: number;
  /** Subjects finished so far, this one included (screened or failed): a progress bar's numerator. */
  completed: number;
  total: number;
  screen_id: string;
  risk_level: RiskLevel;
  skipped: boolean;
  client_id?: string;
}
export interface BatchErrorEvent {
  batch_id: string;
  index: number;
  detail: string;
}
export interface BatchCompleteEvent {
  batch_id: string;
  total: number;
  /** Subjects screened (fresh or cached); `completed + failed < total` only if the stream had to stop early. */
  completed: number;
  failed: number;
  /** Screens per risk level, every level present. */
  risk_counts: Record<RiskLevel, number>;
  /** False when the stream stopped before every subject was reported; absent when it did not. */
  complete?: false;
  /** Why it stopped early, in a few words (`the user was disabled`); `detail` says what to do. */
  reason?: string;
  /** Why the stream ended before every subject was reported, and what happens to the rest. */
  detail?: string;
}

/** The data of each event of a batch stream, by event name. */
export interface BatchEventData {
  start: BatchStartEvent;
  progress: BatchProgressEvent;
  error: BatchErrorEvent;
  complete: BatchCompleteEvent;
}

/**
 * One message of a batch stream: a named event, or the heartbeat comment. The contract
 * (lib/contract/responses.ts `BatchEventSchemas`) checks that each event's data is what the OpenAPI
 * document describes; lib/http/sse.ts frames them.
 */
export type BatchStreamMessage =
  | { [K in keyof BatchEventData]: { event: K; data: BatchEventData[K] } }[keyof BatchEventData]
  | { comment: 'heartbeat' };

export const HEARTBEAT = { comment: 'heartbeat' } as const;

export interface ProgressStreamOptions {
  /** A comment is sent after this long without any other write (at most 15 s: docs/api-decisions.md#batch-stream-events). */
  heartbeatMs?: number;
  /** First poll delay; it doubles while nothing finishes, up to maxPollMs. */
  pollMs?: number;
  maxPollMs?: number;
  /**
   * Time left before the function must have ended its response (Lambda's remaining time). With
   * less than `stopMarginMs` left the stream sends `complete` with the counts so far and ends;
   * the remaining subjects still finish and appear in GET /screens.
   */
  remainingMs?: () => number;
  stopMarginMs?: number;
  /**
   * A gap in the finish sequence this old is taken for a number drawn and never used (a lost
   * claim), and reading moves past it (default 10 s).
   */
  gapPatienceMs?: number;
  /**
   * After this long without news, every finished subject of the batch is read again (default
   * 5 s), so a progress item written late, below the point reading had moved past, is still
   * reported.
   */
  sweepMs?: number;
  /** Consecutive failed reads of the store before the stream gives up with `complete` (default 5). */
  readAttempts?: number;
  /**
   * Why the caller may no longer follow the batch (disabled, key rotated or revoked), or undefined:
   * asked on every poll (lib/tenancy/access-recheck.ts re-reads the user every 2 s at most).
   */
  accessEnded?: () => Promise<string | undefined>;
  /** What `detail` says when access ended for `reason` (the batch's own fate depends on why). */
  accessEndedDetail?: (reason: string) => string;
}

/** Where a stream that had to stop early sends the client: the batch goes on. */
export function reattachDetail(batchId: string): string {
  return `Re-attach with GET /batch/${batchId}/events to follow the rest; every subject is still screened.`;
}

/**
 * Yields the events of a started batch, a poll's worth at a time, until every subject is reported. Each poll reads only
 * the subjects that finished after the last contiguous finish number already reported, so a
 * 500-subject batch costs a few hundred small reads, not one full scan per poll.
 */
export async function* batchEvents(
  table: Table,
  batch: StartedBatch,
  options: ProgressStreamOptions = {},
): AsyncGenerator<readonly BatchStreamMessage[]> {
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const minPollMs = options.pollMs ?? 50;
  const maxPollMs = options.maxPollMs ?? 1_000;
  const remainingMs = options.remainingMs ?? (() => Number.POSITIVE_INFINITY);
  const stopMarginMs = options.stopMarginMs ?? 5_000;
  const gapPatienceMs = options.gapPatienceMs ?? 10_000;
  const sweepMs = options.sweepMs ?? 5_000;
  const readAttempts = options.readAttempts ?? 5;

  const reported = new Set<number>();
  const seenSequences = new Set<number>();
  let contiguous = 0;
  let gapSince: number | undefined;
  let screened = 0;
  let failed = 0;
  let failedReads = 0;
  let detail: string | undefined;
  let reason: string | undefined;
  const riskCounts = Object.fromEntries([...RISK_ORDER].reverse().map((level) => [level, 0])) as Record<
    RiskLevel,
    number
  >;

  yield [{ event: 'start', data: { batch_id: batch.batchId, total: batch.total } }];
  let lastWrite = Date.now();
  let lastNews = Date.now();
  let lastSweep = Date.now();
  let pollMs = minPollMs;

  while (reported.size < batch.total) {
    if (remainingMs() < stopMarginMs) {
      reason = 'the stream’s time limit';
      detail = `The stream reached its time limit. ${reattachDetail(batch.batchId)}`;
      break;
    }
    const ended = await options.accessEnded?.().catch(() => undefined);
    if (ended) {
      reason = ended;
      detail = options.accessEndedDetail?.(ended) ?? `The stream stopped: ${ended}.`;
      break;
    }
    const sweep = Date.now() - lastNews >= sweepMs && Date.now() - lastSweep >= sweepMs;
    let finished: FinishedItem[];
    try {
      finished = await readFinishedItems(table, batch, sweep ? 0 : contiguous);
      failedReads = 0;
      if (sweep) lastSweep = Date.now();
    } catch {
      // The events so far stand; a store that stays unreadable ends the stream properly.
      if (++failedReads >= readAttempts) {
        reason = 'batch progress could not be read';
        detail = `Batch progress could not be read. ${reattachDetail(batch.batchId)}`;
        break;
      }
      await sleep(Math.min(minPollMs * 2 ** failedReads, maxPollMs));
      continue;
    }
    const fresh: BatchStreamMessage[] = [];
    for (const item of finished) {
      seenSequences.add(item.seq);
      if (reported.has(item.index)) continue;
      reported.add(item.index);
      if (item.status === 'done') {
        screened += 1;
        riskCounts[item.risk_level] += 1;
        fresh.push({
          event: 'progress',
          data: {
            batch_id: batch.batchId,
            index: item.index,
            completed: reported.size,
            total: batch.total,
            screen_id: item.screen_id,
            risk_level: item.risk_level,
            skipped: item.skipped,
            ...(item.client_id ? { client_id: item.client_id } : {}),
          },
        });
      } else {
        failed += 1;
        fresh.push({
          event: 'error',
          data: { batch_id: batch.batchId, index: item.index, detail: item.detail },
        });
      }
    }
    for (const seq of seenSequences) if (seq <= contiguous) seenSequences.delete(seq);
    while (seenSequences.has(contiguous + 1)) seenSequences.delete(++contiguous);
    if (seenSequences.size > 0) {
      gapSince ??= Date.now();
      if (Date.now() - gapSince > gapPatienceMs) {
        contiguous = Math.min(...seenSequences) - 1;
        while (seenSequences.has(contiguous + 1)) seenSequences.delete(++contiguous);
        gapSince = undefined;
      }
    } else {
      gapSince = undefined;
    }

    if (fresh.length > 0) {
      // One write per poll: many events in one chunk, not hundreds of tiny writes.
      yield fresh;
      lastWrite = Date.now();
      lastNews = lastWrite;
      pollMs = minPollMs;
      if (reported.size < batch.total) await sleep(minPollMs);
      continue;
    }
    if (Date.now() - lastWrite >= heartbeatMs) {
      yield [HEARTBEAT];
      lastWrite = Date.now();
    }
    await sleep(Math.min(pollMs, Math.max(0, heartbeatMs - (Date.now() - lastWrite))));
    pollMs = Math.min(pollMs * 2, maxPollMs);
  }

  yield [
    {
      event: 'complete',
      data: {
        batch_id: batch.batchId,
        total: batch.total,
        completed: screened,
        failed,
        risk_counts: riskCounts,
        ...(reason ? { complete: false as const, reason } : {}),
        ...(detail ? { detail } : {}),
      },
    },
  ];
}
