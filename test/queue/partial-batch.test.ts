import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { logger } from '../../lib/log.ts';
import { type JobHandlers, jobDispatcher } from '../../lib/queue/jobs.ts';
import { type Delivery, type JobOutcome, sqsPartialBatch } from '../../lib/queue/partial-batch.ts';
import { sqsRecord } from '../support/sqs-record.ts';

/** The adapter with a handler that answers what each body asks for, recording visibility changes. */
function adapter(handle: (body: string, delivery: Delivery) => Promise<JobOutcome>) {
  const visibility: Record<string, number> = {};
  const handler = sqsPartialBatch(handle, {
    maxReceiveCount: 3,
    retryDelaySeconds: (receiveCount) => 10 * receiveCount,
    setVisibility: async (record, seconds) => {
      visibility[record.receiptHandle] = seconds;
    },
    log: logger,
  });
  return { handler, visibility };
}

const byBody = async (body: string): Promise<JobOutcome> => {
  if (body === 'throw') throw new Error('store unavailable');
  return JSON.parse(body) as JobOutcome;
};

describe('SQS partial batch adapter', () => {
  it('reports only the records that are not done, each with the visibility its outcome asks for', async () => {
    const { handler, visibility } = adapter(byBody);
    const event: SQSEvent = {
      Records: [
        sqsRecord('done', '{"status":"done"}'),
        sqsRecord('later', '{"status":"retry","afterSeconds":7}'),
        sqsRecord('backoff', '{"status":"retry"}', 2),
        sqsRecord('dead', '{"status":"dead-letter"}'),
        sqsRecord('crash', 'throw', 3),
      ],
    };

    const response = await handler(event);

    expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([
      'later',
      'backoff',
      'dead',
      'crash',
    ]);
    expect(visibility).toEqual({
      'receipt-later': 7,
      'receipt-backoff': 20,
      'receipt-dead': 0,
      'receipt-crash': 30,
    });
  });

  it('hands each handler its delivery count and the queue limit', async () => {
    const seen: Delivery[] = [];
    const { handler } = adapter(async (_body, delivery) => {
      seen.push(delivery);
      return { status: 'done' };
    });

    const response = await handler({ Records: [sqsRecord('m1', '{}', 2)] });

    expect(response.batchItemFailures).toEqual([]);
    expect(seen).toEqual([{ messageId: 'm1', receiveCount: 2, maxReceiveCount: 3 }]);
  });

  it('still answers the failures when the visibility cannot be changed', async () => {
    const handler = sqsPartialBatch(byBody, {
      maxReceiveCount: 3,
      retryDelaySeconds: () => 1,
      setVisibility: async () => {
        throw new Error('queue unavailable');
      },
      log: logger,
    });

    const response = await handler({ Records: [sqsRecord('m1', '{"status":"retry"}')] });

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
  });
});

describe('job dispatcher', () => {
  const delivery: Delivery = { messageId: 'm1', receiveCount: 1, maxReceiveCount: 3 };
  function dispatcher() {
    const ran: unknown[] = [];
    const unprocessable: unknown[] = [];
    const handlers: JobHandlers = {
      'batch-subject': {
        run: async (job) => {
          ran.push(job);
          return { status: 'done' };
        },
        unprocessable: async (raw) => {
          unprocessable.push(raw);
        },
      },
    };
    return { dispatch: jobDispatcher(handlers, logger), ran, unprocessable };
  }
  const job = { kind: 'batch-subject', v: 2, tenant_id: 't1', batch_id: 'BAT-20250314-0011223344', index: 4 };

  it('runs the handler of the job kind with the validated job', async () => {
    const { dispatch, ran } = dispatcher();

    expect(await dispatch(JSON.stringify(job), delivery)).toEqual({ status: 'done' });
    expect(ran).toEqual([job]);
  });

  it('dead-letters a body that is not JSON, or names no known kind, without running anything', async () => {
    const { dispatch, ran, unprocessable } = dispatcher();

    expect(await dispatch('not json', delivery)).toEqual({ status: 'dead-letter' });
    expect(await dispatch(JSON.stringify({ ...job, kind: 'unknown' }), delivery)).toEqual({
      status: 'dead-letter',
    });
    expect(await dispatch(JSON.stringify({ ...job, kind: undefined }), delivery)).toEqual({
      status: 'dead-letter',
    });
    expect(ran).toEqual([]);
    expect(unprocessable).toEqual([]);
  });

  it('lets the kind account for a job that fails its schema, then dead-letters it', async () => {
    const { dispatch, ran, unprocessable } = dispatcher();
    const malformed = { ...job, index: -1 };

    expect(await dispatch(JSON.stringify(malformed), delivery)).toEqual({ status: 'dead-letter' });
    expect(ran).toEqual([]);
    expect(unprocessable).toEqual([malformed]);
  });
});
