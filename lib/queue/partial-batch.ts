import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Logger } from '../common/log.ts';

/**
 * What became of one queued message, as the code that handled it decides. The SQS adapter below
 * turns it into SQS's terms; the use cases never see a receipt handle or a batch response.
 */
export type JobOutcome =
  /** Finished (or nothing left to do): the message is deleted. */
  | { status: 'done' }
  /** Try again later; without `afterSeconds` the adapter's backoff for this delivery applies. */
  | { status: 'retry'; afterSeconds?: number }
  /**
   * Will never succeed: the message is made visible at once, so its next receive passes the
   * queue's maxReceiveCount and SQS moves it to the dead-letter queue for inspection.
   */
  | { status: 'dead-letter' };

export const DONE: JobOutcome = { status: 'done' };
export const DEAD_LETTER: JobOutcome = { status: 'dead-letter' };

/** How many times this message has been delivered, and how many the queue allows. */
export interface Delivery {
  messageId: string;
  /** 1 on the first delivery (SQS's ApproximateReceiveCount). */
  receiveCount: number;
  /** Deliveries before SQS dead-letters the message: the last one is the last chance to report. */
  maxReceiveCount: number;
}

/** Handles one message body; may throw (the adapter then retries it with its backoff). */
export type RecordHandler = (body: string, delivery: Delivery) => Promise<JobOutcome>;

export interface PartialBatchOptions {
  maxReceiveCount: number;
  /**
   * Seconds before a message that asked for a retry is visible again. Shorter than the queue's
   * visibility timeout (six worker timeouts, AWS's guidance), so a message that fails for good
   * is reported within seconds, not half an hour.
   */
  retryDelaySeconds: (receiveCount: number) => number;
  /** ChangeMessageVisibility of a received message (the retry delay; 0 to dead-letter it next). */
  setVisibility: (record: SQSRecord, seconds: number) => Promise<void>;
  log: Logger;
}

/**
 * The SQS event source adapter (the Powertools `processPartialResponse` pattern): runs the
 * handler on every record of the event at once, and answers `batchItemFailures` naming only the
 * records that are not done, so SQS deletes the others and redelivers just those. A handler that
 * throws is retried with the backoff; a retry or dead-letter outcome also sets the message's
 * visibility, because the queue's own visibility timeout is far too long to wait out.
 */
export function sqsPartialBatch(handle: RecordHandler, options: PartialBatchOptions) {
  async function outcomeOf(record: SQSRecord): Promise<JobOutcome> {
    const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? '1') || 1;
    const delivery = { messageId: record.messageId, receiveCount, maxReceiveCount: options.maxReceiveCount };
    try {
      return await handle(record.body, delivery);
    } catch (error) {
      options.log.error(
        { messageId: record.messageId, receiveCount, err: error },
        'queue message not processed',
      );
      return { status: 'retry' };
    }
  }

  function visibilitySeconds(record: SQSRecord, outcome: JobOutcome): number {
    if (outcome.status === 'dead-letter') return 0;
    if (outcome.status === 'retry' && outcome.afterSeconds !== undefined) return outcome.afterSeconds;
    const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? '1') || 1;
    return options.retryDelaySeconds(receiveCount);
  }

  return async function handleSqsEvent(event: SQSEvent): Promise<SQSBatchResponse> {
    const outcomes = await Promise.all(
      event.Records.map(async (record) => ({ record, outcome: await outcomeOf(record) })),
    );
    const failures = outcomes.filter(({ outcome }) => outcome.status !== 'done');
    await Promise.all(
      failures.map(async ({ record, outcome }) => {
        try {
          await options.setVisibility(record, visibilitySeconds(record, outcome));
        } catch (error) {
          // The message then waits out the queue's visibility timeout before its next try.
          options.log.warn({ messageId: record.messageId, err: error }, 'retry delay not set');
        }
      }),
    );
    return { batchItemFailures: failures.map(({ record }) => ({ itemIdentifier: record.messageId })) };
  };
}

/** The use case of one kind of job. */
export interface JobHandler<J> {
  run(job: J, delivery: Delivery): Promise<JobOutcome>;
  /**
   * A message of this kind that can never be processed (it fails its schema): account for
   * whatever it stood for (e.g. report a batch subject failed and refund it). `raw` is the
   * parsed JSON, not validated: read only what the kind's own position schema accepts.
   */
  unprocessable?(raw: unknown, delivery: Delivery): Promise<void>;
}
