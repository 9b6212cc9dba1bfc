import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  claimBatchItem,
  createBatch,
  failBatchItem,
  finishBatchItem,
  nextFinishSequence,
} from '../../lib/batch/batch-record.ts';
import { batchEvents } from '../../lib/batch/progress-stream.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store?.close());

let batches = 0;
async function newBatch(total: number) {
  const batch = { tenantId: 'tprogress', batchId: `BAT-test-${++batches}`, total };
  await createBatch(store.table, {
    ...batch,
    types: ['sanctions'],
    plan: 'growth',
    createdBy: { user_id: 'u1', role: 'analyst' },
    at: new Date(),
    subjects: Array.from({ length: total }, (_, i) => ({ name: `Progress Person ${i}` })),
  });
  return batch;
}

async function finish(batch: Awaited<ReturnType<typeof newBatch>>, index: number, risk: 'HIGH' | 'CLEAR') {
  await claimBatchItem(store.table, batch, index, `token-${index}`, new Date());
  const seq = await nextFinishSequence(store.table, batch);
  await finishBatchItem(
    store.table,
    batch,
    index,
    `token-${index}`,
    seq,
    { screen_id: `SCR-20250101-${String(index).padStart(6, '0')}`, risk_level: risk, skipped: false },
    new Date(),
  );
}

function parse(text: string) {
  const events: { event?: string; data: Record<string, unknown> }[] = [];
  const comments: string[] = [];
  const parser = createParser({
    onEvent: (e) => events.push({ event: e.event, data: JSON.parse(e.data) }),
    onComment: (c) => comments.push(c.trim()),
  });
  parser.feed(text);
  return { events, comments };
}

describe('batch progress stream', () => {
  it('reports subjects in the order they finished, failures as error events, then the totals', async () => {
    const batch = await newBatch(3);
    await finish(batch, 2, 'HIGH');
    await failBatchItem(
      store.table,
      batch,
      0,
      await nextFinishSequence(store.table, batch),
      'gave up',
      new Date(),
    );
    const stream = batchEvents(store.table, batch, { pollMs: 5 });
    setTimeout(() => void finish(batch, 1, 'CLEAR'), 30);

    let text = '';
    for await (const chunk of stream) text += chunk;

    const { events } = parse(text);
    expect(events.map((e) => [e.event, e.data.index])).toEqual([
      ['start', undefined],
      ['progress', 2],
      ['error', 0],
      ['progress', 1],
      ['complete', undefined],
    ]);
    expect(events[3].data).toMatchObject({ completed: 3, total: 3, risk_level: 'CLEAR' });
    expect(events[4].data).toEqual({
      batch_id: batch.batchId,
      total: 3,
      completed: 2,
      failed: 1,
      risk_counts: { CRITICAL: 0, HIGH: 1, MEDIUM: 0, LOW: 0, CLEAR: 1 },
    });
  });

  it('sends a heartbeat comment while nothing finishes', async () => {
    const batch = await newBatch(1);
    const stream = batchEvents(store.table, batch, { pollMs: 5, heartbeatMs: 40 });

    let text = '';
    for await (const chunk of stream) {
      text += chunk;
      if (text.includes(': heartbeat')) break;
    }
    await stream.return(undefined);

    expect(parse(text).comments).toContain('heartbeat');
  });

  it('ends with the counts so far when the function is about to time out', async () => {
    const batch = await newBatch(2);
    await finish(batch, 0, 'HIGH');
    let remaining = 60_000;
    const stream = batchEvents(store.table, batch, {
      pollMs: 5,
      remainingMs: () => remaining,
      stopMarginMs: 5_000,
    });

    let text = '';
    for await (const chunk of stream) {
      text += chunk;
      if (text.includes('event: progress')) remaining = 1_000;
    }

    const last = parse(text).events.at(-1);
    expect(last).toMatchObject({ event: 'complete', data: { total: 2, completed: 1, failed: 0 } });
  });
});
