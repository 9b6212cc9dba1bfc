import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { DomainError } from '../errors.ts';
import { type Logger, logger } from '../log.ts';
import { queueUrlFromArn } from '../queue/batch-queue.ts';
import { getServices, type Services } from '../runtime/services.ts';
import { screenSubject } from '../screening/screen-subject.ts';
import { PLANS } from '../tenancy/plans.ts';
import { refundScreens } from '../tenancy/quota.ts';
import {
  type BatchRef,
  claimBatchItem,
  failBatchItem,
  finishBatchItem,
  nextFinishSequence,
  releaseBatchItem,
} from './batch-record.ts';
import { type BatchMessage, decodeBatchMessage } from './message.ts';

/**
 * Deliveries of one message before SQS moves it to the dead-letter queue; the queue's redrive
 * policy (infra/constructs/batch-pipeline.ts, infra/local/queue.ts) uses the same number. On the
 * last delivery a failing subject is recorded as failed, so the stream reports it at once.
 */
export const BATCH_MAX_RECEIVE_COUNT = 3;

export interface BatchWorkerDependencies {
  services: () => Pick<Services, 'table' | 'config' | 'matcher' | 'batchQueue'>;
  /** Screens one subject: the single-subject use case of POST /screen. */
  screen: typeof screenSubject;
  maxReceiveCount: number;
  /**
   * Seconds before a failed delivery is tried again. Shorter than the queue's visibility timeout
   * (six worker timeouts, AWS's guidance), so a subject that fails for good is reported within
   * seconds, not half an hour.
   */
  retryDelaySeconds: (receiveCount: number) => number;
  log: Logger;
}

type Outcome = { ack: true } | { ack: false; retryAfterSeconds: number };

const ACK: Outcome = { ack: true };
/** Visible again at once: the next receive counts past maxReceiveCount and SQS dead-letters it. */
const DEAD_LETTER: Outcome = { ack: false, retryAfterSeconds: 0 };

export function failedDetail(attempts: number): string {
  return `Screening failed after ${attempts} attempt${attempts === 1 ? '' : 's'}; the subject was not charged. Screen it again.`;
}
export const UNPROCESSABLE_DETAIL = 'The subject could not be screened; it was not charged. Screen it again.';

/**
 * The batch worker: screens one subject per SQS record and records it as batch progress.
 *
 * Idempotent under redelivery (SQS delivers at least once): the subject's batch item is claimed
 * with a conditional write before screening, so a second delivery of a finished subject is
 * acknowledged without screening or charging again, and a delivery racing a live claim is retried
 * later. The batch was charged in full up front: a subject that comes back cached (`skipped`) or
 * fails for good is refunded, once, by whoever records it. Transient failures are reported in
 * `batchItemFailures` (only those messages are retried); after the last allowed delivery, or at
 * once for a permanent error, the subject is recorded as failed (the stream emits `error`) and
 * the message is still reported failed so that it lands in the dead-letter queue for inspection.
 */
export function createBatchWorker(overrides: Partial<BatchWorkerDependencies> = {}) {
  const deps: BatchWorkerDependencies = {
    services: getServices,
    screen: screenSubject,
    maxReceiveCount: BATCH_MAX_RECEIVE_COUNT,
    retryDelaySeconds: (receiveCount) => Math.min(2 ** (receiveCount - 1), 30),
    log: logger,
    ...overrides,
  };

  async function recordFailure(ref: BatchRef, index: number, detail: string, chargedAt: Date): Promise<void> {
    const { table } = deps.services();
    const seq = await nextFinishSequence(table, ref);
    if (await failBatchItem(table, ref, index, seq, detail, new Date())) {
      await refundScreens(table, ref.tenantId, 1, chargedAt);
    }
  }

  async function screenMessage(message: BatchMessage, receiveCount: number): Promise<Outcome> {
    const services = deps.services();
    const { table } = services;
    const ref: BatchRef = { tenantId: message.tenant_id, batchId: message.batch_id };
    const where = { tenant: ref.tenantId, batchId: ref.batchId, index: message.index, receiveCount };
    const chargedAt = new Date(message.charged_at);
    const token = randomUUID();

    const claim = await claimBatchItem(table, ref, message.index, token, new Date());
    if (!claim.claimed) {
      if (claim.status === 'done') return ACK;
      if (claim.status === 'failed') return DEAD_LETTER;
      // Another delivery holds a live claim: look again once it should have finished.
      const leaseLeft = Math.ceil(((claim.leaseUntil ?? 0) - Date.now()) / 1000);
      return { ack: false, retryAfterSeconds: Math.max(1, Math.min(leaseLeft, 60)) };
    }

    try {
      const screen = await deps.screen(
        services,
        { tenantId: ref.tenantId, userId: message.user_id, role: message.role, plan: PLANS[message.plan] },
        { ...message.subject, types: message.types },
        { charge: false },
      );
      const seq = await nextFinishSequence(table, ref);
      const finished = await finishBatchItem(table, ref, message.index, token, seq, screen, new Date());
      if (finished && screen.skipped) await refundScreens(table, ref.tenantId, 1, chargedAt);
      deps.log.info(
        { ...where, screenId: screen.screen_id, skipped: screen.skipped, finished },
        'batch subject screened',
      );
      return ACK;
    } catch (error) {
      const permanent = error instanceof DomainError;
      if (!permanent && receiveCount < deps.maxReceiveCount) {
        deps.log.warn({ ...where, err: error }, 'batch subject failed; will retry');
        await releaseBatchItem(table, ref, message.index, token);
        return { ack: false, retryAfterSeconds: deps.retryDelaySeconds(receiveCount) };
      }
      deps.log.error({ ...where, err: error, permanent }, 'batch subject failed for good');
      await recordFailure(
        ref,
        message.index,
        permanent ? UNPROCESSABLE_DETAIL : failedDetail(receiveCount),
        chargedAt,
      );
      return DEAD_LETTER;
    }
  }

  async function processRecord(record: SQSRecord): Promise<Outcome> {
    const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? '1') || 1;
    try {
      const decoded = decodeBatchMessage(record.body);
      if (decoded.ok) return await screenMessage(decoded.message, receiveCount);
      deps.log.error(
        { messageId: record.messageId, problem: decoded.problem },
        'unprocessable batch message',
      );
      const position = decoded.position;
      if (position) {
        const ref = { tenantId: position.tenant_id, batchId: position.batch_id };
        await recordFailure(ref, position.index, UNPROCESSABLE_DETAIL, new Date());
      }
      return DEAD_LETTER;
    } catch (error) {
      // The store itself failed (claiming, recording): nothing was decided, so simply retry.
      deps.log.error(
        { messageId: record.messageId, receiveCount, err: error },
        'batch message not processed',
      );
      return { ack: false, retryAfterSeconds: deps.retryDelaySeconds(receiveCount) };
    }
  }

  return async function handleBatchMessages(event: SQSEvent): Promise<SQSBatchResponse> {
    const outcomes = await Promise.all(
      event.Records.map(async (record) => ({ record, outcome: await processRecord(record) })),
    );
    const failures = outcomes.filter(
      (entry): entry is { record: SQSRecord; outcome: Extract<Outcome, { ack: false }> } =>
        !entry.outcome.ack,
    );
    if (failures.length > 0) {
      const { config, batchQueue } = deps.services();
      await Promise.all(
        failures.map(async ({ record, outcome }) => {
          const queueUrl = config.BATCH_QUEUE_URL ?? queueUrlFromArn(record.eventSourceARN);
          try {
            await batchQueue().retryAfter(queueUrl, record.receiptHandle, outcome.retryAfterSeconds);
          } catch (error) {
            // The message then waits out the queue's visibility timeout before its next try.
            deps.log.warn({ messageId: record.messageId, err: error }, 'retry delay not set');
          }
        }),
      );
    }
    return { batchItemFailures: failures.map(({ record }) => ({ itemIdentifier: record.messageId })) };
  };
}
