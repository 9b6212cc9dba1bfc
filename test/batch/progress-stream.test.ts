import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBatch } from '../../lib/batch/batch-record.ts';
import {
  claimBatchItem,
  failBatchItem,
  finishBatchItem,
  nextFinishSequence,
} from '../../lib/batch/batch-table.ts';
import { batchEvents } from '../../lib/batch/progress-stream.ts';
import { frameSse } from '../../lib/http/sse.ts';
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
    for await (const chunk of stream) text += frameSse(chunk);

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
      text += frameSse(chunk);
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
      text += frameSse(chunk);
      if (text.includes('event: progress')) remaining = 1_000;
    }

    const last = parse(text).events.at(-1);
    expect(last).toMatchObject({ event: 'complete', data: { total: 2, completed: 1, failed: 0 } });
  });

  it('reports a subject whose progress was written long after its finish number was drawn', async () => {
    const batch = await newBatch(2);
    // Subject 1 draws finish number 1 and is slow to record it; subject 0 finishes as number 2.
    await claimBatchItem(store.table, batch, 1, 'token-1', new Date());
    const lateSeq = await nextFinishSequence(store.table, batch);
    await finish(batch, 0, 'HIGH');
    const deadline = Date.now() + 5_000;
    const stream = batchEvents(store.table, batch, {
      pollMs: 5,
      maxPollMs: 20,
      gapPatienceMs: 50,
      sweepMs: 100,
      remainingMs: () => deadline - Date.now(),
      stopMarginMs: 0,
    });
    setTimeout(
      () =>
        void finishBatchItem(
          store.table,
          batch,
          1,
          'token-1',
          lateSeq,
          { screen_id: 'SCR-20250101-000001', risk_level: 'CLEAR', skipped: false },
          new Date(),
        ),
      300,
    );

    let text = '';
    for await (const chunk of stream) text += frameSse(chunk);

    const { events } = parse(text);
    expect(events.filter((e) => e.event === 'progress').map((e) => e.data.index)).toEqual([0, 1]);
    expect(events.at(-1)).toMatchObject({ event: 'complete', data: { total: 2, completed: 2 } });
    expect(Date.now()).toBeLessThan(deadline - 3_000);
  });

  it('ends with a complete event naming the problem when progress can no longer be read', async () => {
    const batch = await newBatch(2);
    await finish(batch, 0, 'HIGH');
    let reads = 0;
    const failing = {
      name: store.table.name,
      doc: new Proxy(store.table.doc, {
        get(target, property, receiver) {
          if (property !== 'send') return Reflect.get(target, property, receiver);
          return (command: unknown) => {
            if (command instanceof QueryCommand && ++reads > 1)
              return Promise.reject(new Error('store unavailable'));
            return target.send(command as never);
          };
        },
      }),
    };

    let text = '';
    for await (const chunk of batchEvents(failing, batch, { pollMs: 5, maxPollMs: 10 }))
      text += frameSse(chunk);

    const { events } = parse(text);
    expect(events.map((e) => e.event)).toEqual(['start', 'progress', 'complete']);
    expect(events[2].data).toMatchObject({ total: 2, completed: 1, failed: 0 });
    expect(String(events[2].data.detail)).toMatch(/progress could not be read/);
  });
});
