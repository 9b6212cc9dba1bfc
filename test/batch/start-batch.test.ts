import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBatch, listOpenBatches } from '../../lib/batch/batch-table.ts';
import { NOT_QUEUED_DETAIL, startBatch } from '../../lib/batch/start-batch.ts';
import { readConfig } from '../../lib/common/config.ts';
import { logger } from '../../lib/common/log.ts';
import type { BatchQueue } from '../../lib/queue/batch-queue.ts';
import { keys } from '../../lib/store/schema.ts';
import { getMonthlyUsage } from '../../lib/tenancy/quota.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';
import { failOnce } from '../support/flaky-table.ts';
import { growthAdmin } from '../support/principals.ts';

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
}, 60_000);
afterAll(async () => store?.close());

/** A queue that takes every message except those at the `refused` positions of a send. */
function queueRefusing(refused: number[]): BatchQueue & { sent: string[] } {
  const sent: string[] = [];
  return {
    queueUrl: 'https://sqs.us-east-1.amazonaws.com/000000000000/screening-batch',
    sent,
    async sendAll(bodies) {
      sent.push(...bodies.filter((_, position) => !refused.includes(position)));
      return { failed: refused.filter((position) => position < bodies.length) };
    },
    async retryAfter() {},
  };
}

const growthPrincipal = (name: string) => growthAdmin(store.table, name);

const subjects = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ name: `Refund Subject ${i}` }));
const request = (count: number) => ({ subjects: subjects(count), types: ['sanctions' as const] });

async function batchItems(tenantId: string, batchId: string) {
  const { Items = [] } = await store.table.doc.send(
    new QueryCommand({
      TableName: store.table.name,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :items)',
      ExpressionAttributeValues: {
        ':pk': keys.tenantPartition(tenantId),
        ':items': `${keys.batch(tenantId, batchId).sk}#ITEM#`,
      },
      ConsistentRead: true,
    }),
  );
  return Items;
}

describe('starting a batch: refunds', () => {
  it('records the subjects the queue refused as failed and refunds exactly those', async () => {
    const principal = await growthPrincipal('Queue refuses part');
    const queue = queueRefusing([1, 3]);
    const services = {
      table: store.table,
      config: readConfig({ TABLE_NAME: store.table.name, DYNAMODB_ENDPOINT: store.endpoint }),
      batchQueue: () => queue,
    };

    const batch = await startBatch(services, principal, request(5), logger);

    expect(queue.sent).toHaveLength(3);
    expect(await getMonthlyUsage(store.table, principal.tenantId)).toBe(3);
    const items = await batchItems(principal.tenantId, batch.batchId);
    const failed = items.filter((item) => item.status === 'failed');
    expect(failed.map((item) => item.index).sort()).toEqual([1, 3]);
    for (const item of failed) expect(item.detail).toBe(NOT_QUEUED_DETAIL);
    expect((await getBatch(store.table, batch))?.finished).toBe(2);
  });

  it('refunds the whole charge and leaves no open batch when the batch record cannot be written', async () => {
    const principal = await growthPrincipal('Batch record fails');
    const queue = queueRefusing([]);
    const flaky = failOnce(
      store.table,
      (input) => (input.Item as { entity?: string } | undefined)?.entity === 'batch',
    );
    const services = {
      table: flaky.table,
      config: readConfig({ TABLE_NAME: store.table.name, DYNAMODB_ENDPOINT: store.endpoint }),
      batchQueue: () => queue,
    };

    await expect(startBatch(services, principal, request(4), logger)).rejects.toThrow('store unavailable');

    expect(flaky.failed()).toBe(true);
    expect(queue.sent).toEqual([]);
    expect(await getMonthlyUsage(store.table, principal.tenantId)).toBe(0);
    // A restart finds nothing to resume, so it cannot refund the batch a second time.
    const open = await listOpenBatches(store.table);
    expect(open.filter((batch) => batch.tenant_id === principal.tenantId)).toEqual([]);
  });
});
