import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { BatchSubjectJob } from '../../lib/batch/message.ts';
import { batchSubjectsHandler } from '../../lib/batch/worker.ts';
import { logger } from '../../lib/common/log.ts';
import { type JobHandlers, jobDispatcher } from '../../lib/jobs/kinds.ts';
import {
  type Delivery,
  type JobHandler,
  type JobOutcome,
  sqsPartialBatch,
} from '../../lib/queue/partial-batch.ts';
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
  /** Each subject's outcome by index (default done), as the per-subject use case would answer. */
  function dispatcher(outcomes: Record<number, JobOutcome> = {}) {
    const ran: unknown[] = [];
    const unprocessable: unknown[] = [];
    const single: JobHandler<BatchSubjectJob> = {
      run: async (job) => {
        ran.push(job);
        return outcomes[job.index] ?? { status: 'done' };
      },
      unprocessable: async (raw) => {
        unprocessable.push(raw);
      },
    };
    const handlers: JobHandlers = {
      'batch-subject': single,
      'batch-subjects': batchSubjectsHandler(single),
      'policy-sandbox': { run: async () => ({ status: 'done' }) },
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

  const group = {
    kind: 'batch-subjects',
    v: 1,
    tenant_id: 't1',
    batch_id: 'RUN-20250314-0011223344',
    indexes: [3, 5, 7],
  };
  const subject = (index: number) => ({ ...job, batch_id: group.batch_id, index });

  it('runs each subject of a several-subject job as its own job; done when all are', async () => {
    const { dispatch, ran } = dispatcher();

    expect(await dispatch(JSON.stringify(group), delivery)).toEqual({ status: 'done' });
    expect(ran).toEqual([subject(3), subject(5), subject(7)]);
  });

  it('retries the whole message when any subject asks (the shortest named delay), else dead-letters on a lost cause', async () => {
    expect(
      await dispatcher({
        5: { status: 'retry', afterSeconds: 30 },
        7: { status: 'retry', afterSeconds: 4 },
      }).dispatch(JSON.stringify(group), delivery),
    ).toEqual({ status: 'retry', afterSeconds: 4 });
    expect(
      await dispatcher({ 5: { status: 'retry', afterSeconds: 30 }, 7: { status: 'retry' } }).dispatch(
        JSON.stringify(group),
        delivery,
      ),
    ).toEqual({ status: 'retry' });
    expect(
      await dispatcher({ 3: { status: 'dead-letter' }, 5: { status: 'retry' } }).dispatch(
        JSON.stringify(group),
        delivery,
      ),
    ).toEqual({ status: 'retry' });
    expect(
      await dispatcher({ 3: { status: 'dead-letter' } }).dispatch(JSON.stringify(group), delivery),
    ).toEqual({
      status: 'dead-letter',
    });
  });

  it('accounts for every readable subject of a several-subject job that fails its schema', async () => {
    const { dispatch, ran, unprocessable } = dispatcher();
    const repeated = { ...group, indexes: [3, 3, 'x', 8] };

    expect(await dispatch(JSON.stringify(repeated), delivery)).toEqual({ status: 'dead-letter' });
    expect(ran).toEqual([]);
    expect(unprocessable).toEqual([
      { tenant_id: 't1', batch_id: group.batch_id, index: 3 },
      { tenant_id: 't1', batch_id: group.batch_id, index: 8 },
    ]);
    expect(
      await dispatch(
        JSON.stringify({ ...group, indexes: Array.from({ length: 11 }, (_, i) => i) }),
        delivery,
      ),
    ).toEqual({
      status: 'dead-letter',
    });
  });
});
