import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedBatch, startBatch } from '../../lib/batch/start-batch.ts';
import { readConfig } from '../../lib/common/config.ts';
import { logger } from '../../lib/common/log.ts';
import { createQueueWorker } from '../../lib/jobs/queue-worker.ts';
import { createMatcher, type Matcher } from '../../lib/matcher/screen.ts';
import { loadSnapshot } from '../../lib/matcher/snapshot-file.ts';
import type { BatchQueue } from '../../lib/queue/batch-queue.ts';
import { screenSubject } from '../../lib/screening/screen-subject.ts';
import { keys } from '../../lib/store/schema.ts';
import type { Principal } from '../../lib/tenancy/auth.ts';
import { getMonthlyUsage } from '../../lib/tenancy/quota.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';
import { growthAdmin } from '../support/principals.ts';
import { sqsRecord } from '../support/sqs-record.ts';

/** The queue as SQS would hold it: the bodies sent, and the retry delays the worker asked for. */
class RecordingQueue implements BatchQueue {
  readonly queueUrl = 'https://sqs.us-east-1.amazonaws.com/000000000000/screening-batch';
  sent: string[] = [];
  retries: { receiptHandle: string; seconds: number }[] = [];
  async sendAll(bodies: readonly string[]) {
    this.sent.push(...bodies);
    return { failed: [] };
  }
  async retryAfter(_queueUrl: string, receiptHandle: string, seconds: number) {
    this.retries.push({ receiptHandle, seconds });
  }
}

let store: TestStore;
let matcher: Matcher;
let queue: RecordingQueue;
let services: Parameters<typeof startBatch>[0] &
  Parameters<typeof screenSubject>[0] & {
    batchQueue(): BatchQueue;
  };

beforeAll(async () => {
  store = await startTestStore();
  matcher = createMatcher(loadSnapshot());
  queue = new RecordingQueue();
  services = {
    config: readConfig({ TABLE_NAME: store.table.name, DYNAMODB_ENDPOINT: store.endpoint }),
    table: store.table,
    matcher: () => matcher,
    batchQueue: () => queue,
  };
}, 60_000);
afterAll(async () => store?.close());

const growthPrincipal = () => growthAdmin(store.table, 'Redelivery Bank');

let deliveries = 0;
function record(body: string, receiveCount = 1, messageId = 'message-1'): SQSRecord {
  deliveries += 1;
  return sqsRecord(messageId, body, receiveCount, `receipt-${deliveries}`);
}

async function screenCount(tenantId: string): Promise<number> {
  const { Count } = await store.table.doc.send(
    new QueryCommand({
      TableName: store.table.name,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :screen)',
      ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenantId), ':screen': 'SCREEN#' },
      Select: 'COUNT',
    }),
  );
  return Count ?? 0;
}

async function batchItem(batch: StartedBatch, index: number) {
  const { Item } = await store.table.doc.send(
    new GetCommand({
      TableName: store.table.name,
      Key: keys.batchItem(batch.tenantId, batch.batchId, index),
    }),
  );
  return Item;
}

async function startOne(principal: Principal, name: string) {
  queue.sent = [];
  const batch = await startBatch(
    services,
    principal,
    { subjects: [{ name }], types: ['sanctions', 'pep', 'criminal'] },
    logger,
  );
  expect(queue.sent).toHaveLength(1);
  return { batch, body: queue.sent[0] };
}

describe('batch worker', () => {
  const worker = () => createQueueWorker({ services: () => services });

  it('screens and charges a redelivered message once', async () => {
    const principal = await growthPrincipal();
    const { batch, body } = await startOne(principal, 'Redelivered Person');

    const first = await worker()({ Records: [record(body)] });
    const second = await worker()({ Records: [record(body, 2)] });

    expect(first.batchItemFailures).toEqual([]);
    expect(second.batchItemFailures).toEqual([]);
    expect(await screenCount(principal.tenantId)).toBe(1);
    expect(await getMonthlyUsage(store.table, principal.tenantId)).toBe(1);
    expect(await batchItem(batch, 0)).toMatchObject({ status: 'done', attempts: 1, seq: 1 });
  });

  it('screens once when the same message is delivered twice at the same time', async () => {
    const principal = await growthPrincipal();
    const { body } = await startOne(principal, 'Concurrent Person');

    const results = await Promise.all([
      worker()({ Records: [record(body)] }),
      worker()({ Records: [record(body)] }),
    ]);
    // A delivery that found the subject mid-screen is retried later; by then it is done.
    for (const result of results) {
      if (result.batchItemFailures.length > 0) {
        expect((await worker()({ Records: [record(body, 2)] })).batchItemFailures).toEqual([]);
      }
    }

    expect(await screenCount(principal.tenantId)).toBe(1);
    expect(await getMonthlyUsage(store.table, principal.tenantId)).toBe(1);
  });

  it('refunds a subject that comes back cached from the rescreen window', async () => {
    const principal = await growthPrincipal();
    await screenSubject(services, principal, { name: 'Cached Person' });
    const { batch, body } = await startOne(principal, 'Cached Person');
    expect(await getMonthlyUsage(store.table, principal.tenantId)).toBe(2);

    await worker()({ Records: [record(body)] });

    expect(await getMonthlyUsage(store.table, principal.tenantId)).toBe(1);
    expect(await screenCount(principal.tenantId)).toBe(1);
    expect(await batchItem(batch, 0)).toMatchObject({ status: 'done', skipped: true });
  });

  it('retries a transient failure soon, then records a subject that keeps failing once and refunds it', async () => {
    const principal = await growthPrincipal();
    const { batch, body } = await startOne(principal, 'Failing Person');
    const failing = createQueueWorker({
      services: () => services,
      screen: async () => {
        throw new Error('matcher crashed');
      },
    });
    queue.retries = [];

    const attempts = [];
    for (const receiveCount of [1, 2, 3])
      attempts.push(await failing({ Records: [record(body, receiveCount)] }));
    const afterDeadLetterReceive = await failing({ Records: [record(body, 4)] });

    for (const attempt of attempts)
      expect(attempt.batchItemFailures).toEqual([{ itemIdentifier: 'message-1' }]);
    expect(afterDeadLetterReceive.batchItemFailures).toEqual([{ itemIdentifier: 'message-1' }]);
    expect(queue.retries.map((r) => r.seconds)).toEqual([1, 2, 0, 0]);
    expect(await batchItem(batch, 0)).toMatchObject({ status: 'failed', attempts: 3 });
    expect((await batchItem(batch, 0))?.detail).toMatch(/failed after 3 attempts/);
    expect(await getMonthlyUsage(store.table, principal.tenantId)).toBe(0);
    expect(await screenCount(principal.tenantId)).toBe(0);
  });

  it('fails a malformed message for good at once, recording the subject as failed', async () => {
    const principal = await growthPrincipal();
    const { batch, body } = await startOne(principal, 'Malformed Person');
    const malformed = JSON.stringify({ ...JSON.parse(body), v: 1 });

    const result = await worker()({ Records: [record(malformed)] });

    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'message-1' }]);
    expect(await batchItem(batch, 0)).toMatchObject({ status: 'failed' });
    expect(await getMonthlyUsage(store.table, principal.tenantId)).toBe(0);
  });
});

/** The test services with a table whose first `failures` finish-numbering writes fail, as a store outage would. */
function servicesFailingFinish(failures: number): typeof services {
  let left = failures;
  const doc = new Proxy(store.table.doc, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (command: unknown) => {
        if (
          command instanceof UpdateCommand &&
          command.input.UpdateExpression === 'ADD finished :one' &&
          left > 0
        ) {
          left -= 1;
          return Promise.reject(new Error('store unavailable'));
        }
        return target.send(command as never);
      };
    },
  });
  return { ...services, table: { name: store.table.name, doc } };
}

describe('batch worker, when the store fails after the screen was stored', () => {
  it('finishes the retry with that screen: not skipped, not refunded, not screened twice', async () => {
    const principal = await growthPrincipal();
    const { batch, body } = await startOne(principal, 'Interrupted Person');
    const flaky = servicesFailingFinish(1);
    const worker = createQueueWorker({ services: () => flaky });

    const first = await worker({ Records: [record(body, 1)] });
    const retry = await worker({ Records: [record(body, 2)] });

    expect(first.batchItemFailures).toHaveLength(1);
    expect(retry.batchItemFailures).toEqual([]);
    expect(await batchItem(batch, 0)).toMatchObject({ status: 'done', skipped: false });
    expect(await screenCount(principal.tenantId)).toBe(1);
    expect(await getMonthlyUsage(store.table, principal.tenantId)).toBe(1);
  });

  it('on the last attempt neither reports the stored screen failed nor refunds it', async () => {
    const principal = await growthPrincipal();
    const { batch, body } = await startOne(principal, 'Last Chance Person');
    const flaky = servicesFailingFinish(1);
    const worker = createQueueWorker({ services: () => flaky });

    const last = await worker({ Records: [record(body, 3)] });

    expect(last.batchItemFailures).toHaveLength(1);
    expect((await batchItem(batch, 0))?.status).not.toBe('failed');
    expect(await screenCount(principal.tenantId)).toBe(1);
    expect(await getMonthlyUsage(store.table, principal.tenantId)).toBe(1);
    // Redriven from the dead-letter queue, the job finds its screen and finishes.
    const redriven = await createQueueWorker({ services: () => services })({ Records: [record(body, 1)] });
    expect(redriven.batchItemFailures).toEqual([]);
    expect(await batchItem(batch, 0)).toMatchObject({ status: 'done', skipped: false });
    expect(await getMonthlyUsage(store.table, principal.tenantId)).toBe(1);
  });
});

describe('batch worker, given the same person several times', () => {
  it('screens and charges a batch holding the same person five times once', async () => {
    const principal = await growthPrincipal();
    queue.sent = [];
    const batch = await startBatch(
      services,
      principal,
      { subjects: Array.from({ length: 5 }, () => ({ name: 'Repeated Person' })), types: ['sanctions'] },
      logger,
    );
    const worker = createQueueWorker({ services: () => services });

    const results = await Promise.all(
      queue.sent.map((body, i) => worker({ Records: [record(body, 1, `message-${i}`)] })),
    );

    expect(results.flatMap((r) => r.batchItemFailures)).toEqual([]);
    expect(await screenCount(principal.tenantId)).toBe(1);
    expect(await getMonthlyUsage(store.table, principal.tenantId)).toBe(1);
    const items = await Promise.all([0, 1, 2, 3, 4].map((i) => batchItem(batch, i)));
    expect(items.map((item) => item?.status)).toEqual(['done', 'done', 'done', 'done', 'done']);
    expect(new Set(items.map((item) => item?.screen_id)).size).toBe(1);
    expect(items.filter((item) => item?.skipped === false)).toHaveLength(1);
  });
});

describe('batch worker, given forged messages', () => {
  const worker = () => createQueueWorker({ services: () => services });

  async function screensOf(tenantId: string) {
    const { Items = [] } = await store.table.doc.send(
      new QueryCommand({
        TableName: store.table.name,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :screen)',
        ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenantId), ':screen': 'SCREEN#' },
      }),
    );
    return Items;
  }

  it('screens the subject stored with the batch, as the batch author, whatever the message says', async () => {
    const principal = await growthPrincipal();
    const { body } = await startOne(principal, 'Stored Person');
    const forged = {
      ...JSON.parse(body),
      user_id: 'uintruder',
      role: 'admin',
      plan: 'enterprise',
      subject: { name: 'Injected Person' },
    };

    const result = await worker()({ Records: [record(JSON.stringify(forged))] });

    expect(result.batchItemFailures).toEqual([]);
    const screens = await screensOf(principal.tenantId);
    expect(screens).toHaveLength(1);
    expect(screens[0].subject).toEqual({ name: 'Stored Person' });
    expect(screens[0].created_by).toEqual({ user_id: principal.userId, role: principal.role });
  });

  it('does no work for a message naming another tenant, an unknown batch or an index past the batch', async () => {
    const owner = await growthPrincipal();
    const other = await growthPrincipal();
    const { batch, body } = await startOne(owner, 'Owner Person');
    const message = JSON.parse(body);
    const forgeries = [
      { ...message, tenant_id: other.tenantId },
      { ...message, batch_id: 'BAT-20250314-0000000000' },
      { ...message, index: 1 },
      { ...message, index: 499 },
    ];

    for (const forged of forgeries) {
      const result = await worker()({ Records: [record(JSON.stringify(forged))] });
      expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'message-1' }]);
    }

    for (const tenant of [owner, other]) {
      expect(await screensOf(tenant.tenantId)).toEqual([]);
    }
    expect(await getMonthlyUsage(store.table, owner.tenantId)).toBe(1);
    expect(await getMonthlyUsage(store.table, other.tenantId)).toBe(0);
    expect(await batchItem(batch, 1)).toBeUndefined();
    expect((await batchItem(batch, 0))?.status).not.toBe('done');
  });

  it('keeps names and dates of birth out of the queue: a message only points at the stored subject', async () => {
    const principal = await growthPrincipal();
    const { body } = await startOne(principal, 'Private Person');

    expect(body).not.toMatch(/Private Person/);
    expect(Object.keys(JSON.parse(body)).sort()).toEqual(['batch_id', 'index', 'kind', 'tenant_id', 'v']);
  });
});
