import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../lib/common/errors.ts';
import { sendWrite, type TableWrite, TRANSACTION_LIMIT, transact } from '../../lib/store/write.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';

/**
 * Writes as values, sent alone or joined into one transaction, on AWS's DynamoDB Local: what a
 * caller sees when a condition is refused, and that a refused transaction writes nothing.
 */
let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store.close());

const key = (sk: string) => ({ pk: 'TENANT#twrite', sk });

async function read(sk: string) {
  const { Item } = await store.table.doc.send(
    new GetCommand({ TableName: store.table.name, Key: key(sk), ConsistentRead: true }),
  );
  return Item;
}

/** Puts an item unless one is there: a refusal names what it found. */
function create(sk: string, value: number): TableWrite {
  return {
    Put: { Item: { ...key(sk), value }, ConditionExpression: 'attribute_not_exists(pk)' },
    what: `item ${sk}`,
    refused: (found) => new ConflictError(`${sk} exists with ${String(found?.value)}`, found),
  };
}

/** Adds to an item's value while it stays under a ceiling: the quota's shape. */
function addUnder(sk: string, n: number, ceiling: number): TableWrite {
  return {
    Update: {
      Key: key(sk),
      UpdateExpression: 'ADD #value :n',
      ConditionExpression: 'attribute_not_exists(#value) OR #value <= :ceiling',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':n': n, ':ceiling': ceiling - n },
    },
    what: `counter ${sk}`,
  };
}

describe('a write sent alone', () => {
  it('returns the attributes asked for', async () => {
    await sendWrite(store.table, create('alone-1', 1));

    const after = await sendWrite(store.table, addUnder('alone-1', 2, 10), 'UPDATED_NEW');

    expect(after).toEqual({ value: 3 });
  });

  it("throws the write's own refusal, carrying the item the condition found", async () => {
    await sendWrite(store.table, create('alone-2', 7));

    const refusal = await sendWrite(store.table, create('alone-2', 8)).catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(ConflictError);
    expect((refusal as ConflictError).detail).toBe('alone-2 exists with 7');
    expect((refusal as ConflictError).existing).toMatchObject({ value: 7 });
    expect(await read('alone-2')).toMatchObject({ value: 7 });
  });

  it('without a refusal of its own, a 409 naming what changed', async () => {
    await sendWrite(store.table, create('alone-3', 10));

    const refusal = await sendWrite(store.table, addUnder('alone-3', 1, 10)).catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(ConflictError);
    expect((refusal as ConflictError).detail).toBe(
      'The counter alone-3 changed meanwhile; read it again and retry',
    );
  });

  it('a condition check alone refuses with its own error', async () => {
    const check: TableWrite = {
      ConditionCheck: { Key: key('absent'), ConditionExpression: 'attribute_exists(pk)' },
      what: 'absent item',
      refused: (found) => new NotFoundError(`absent: found ${found === undefined ? 'nothing' : 'something'}`),
    };

    await expect(sendWrite(store.table, check)).rejects.toThrow('absent: found nothing');
  });
});

describe('a transaction', () => {
  it('writes every item', async () => {
    await transact(store.table, [create('all-1', 1), create('all-2', 2), addUnder('all-3', 5, 10)]);

    expect(await read('all-1')).toMatchObject({ value: 1 });
    expect(await read('all-2')).toMatchObject({ value: 2 });
    expect(await read('all-3')).toMatchObject({ value: 5 });
  });

  it('writes none of them when one condition is refused, and throws that write’s refusal', async () => {
    await sendWrite(store.table, create('none-taken', 42));

    const refusal = await transact(store.table, [
      create('none-1', 1),
      addUnder('none-2', 3, 10),
      create('none-taken', 2),
    ]).catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(ConflictError);
    expect((refusal as ConflictError).detail).toBe('none-taken exists with 42');
    expect(await read('none-1')).toBeUndefined();
    expect(await read('none-2')).toBeUndefined();
    expect(await read('none-taken')).toMatchObject({ value: 42 });
  });

  it('lets exactly one of 20 concurrent transactions take an item, each writing its record only if it won', async () => {
    const attempts = Array.from({ length: 20 }, (_, i) =>
      transact(store.table, [create('race-prize', i), create(`race-record-${i}`, i)]).then(
        () => i,
        (error: unknown) => error,
      ),
    );
    const outcomes = await Promise.all(attempts);

    const winners = outcomes.filter((outcome): outcome is number => typeof outcome === 'number');
    expect(winners).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => typeof o !== 'number'))
      expect(outcome).toBeInstanceOf(ConflictError);
    expect(await read('race-prize')).toMatchObject({ value: winners[0] });
    const records = await Promise.all(Array.from({ length: 20 }, (_, i) => read(`race-record-${i}`)));
    expect(records.filter(Boolean)).toEqual([expect.objectContaining({ value: winners[0] })]);
  });

  it(`refuses more than ${TRANSACTION_LIMIT} writes before sending any`, async () => {
    const writes = Array.from({ length: TRANSACTION_LIMIT + 1 }, (_, i) => create(`many-${i}`, i));

    await expect(transact(store.table, writes)).rejects.toThrow(
      `A transaction takes at most ${TRANSACTION_LIMIT} writes, not ${TRANSACTION_LIMIT + 1}`,
    );
    expect(await read('many-0')).toBeUndefined();
  });
});
