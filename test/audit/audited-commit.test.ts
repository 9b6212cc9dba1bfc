import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allAuditEntries, auditedCommit } from '../../lib/audit/trail.ts';
import { verifyTenantTrail } from '../../lib/audit/verify.ts';
import { ConflictError } from '../../lib/common/errors.ts';
import type { TableWrite } from '../../lib/store/write.ts';
import { chainAudit } from '../support/audit-chain.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';

/**
 * An action and its audit entry in one transaction, on AWS's DynamoDB Local: the change and its
 * `done` entry land together or not at all, a refusal changes nothing and is recorded alone, and
 * concurrent actions of one tenant each get their own seq on an unbroken chain.
 */
let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => store.close());

const actor = { user_id: 'uanalyst', role: 'analyst' } as const;

/** A made-up record only this test writes, taken once. */
function takeRecord(tenantId: string, name: string): TableWrite {
  return {
    Put: {
      Item: { pk: `TENANT#${tenantId}`, sk: `TESTRECORD#${name}` },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
    what: `record ${name}`,
    refused: () => new ConflictError(`Record ${name} is taken`),
  };
}

async function recordExists(tenantId: string, name: string): Promise<boolean> {
  const { Item } = await store.table.doc.send(
    new GetCommand({
      TableName: store.table.name,
      Key: { pk: `TENANT#${tenantId}`, sk: `TESTRECORD#${name}` },
      ConsistentRead: true,
    }),
  );
  return Item !== undefined;
}

/** The tenant's trail once the chain writer has linked what was written. */
async function trail(tenantId: string) {
  await chainAudit(store.table, tenantId);
  const entries = [];
  for await (const entry of allAuditEntries(store.table, tenantId)) entries.push(entry);
  return entries;
}

const take = (tenantId: string, name: string) =>
  auditedCommit(
    store.table,
    tenantId,
    { action: 'screen.dispose', actor, target: { screen_id: name }, details: { asked: name } },
    async (commit) => {
      await commit([takeRecord(tenantId, name)], { details: { version: 1 } });
      return name;
    },
  );

describe('an action committed with its audit entry', () => {
  it('writes the change and one done entry holding what was asked and what changed', async () => {
    await take('tcommit1', 'first');

    expect(await recordExists('tcommit1', 'first')).toBe(true);
    const entries = await trail('tcommit1');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      seq: 1,
      action: 'screen.dispose',
      outcome: 'done',
      actor,
      target: { screen_id: 'first' },
      details: { asked: 'first', version: 1 },
    });
  });

  it('a refused change writes nothing but a refused entry with its detail', async () => {
    await take('tcommit2', 'taken');

    const refusal = await take('tcommit2', 'taken').catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(ConflictError);
    const entries = await trail('tcommit2');
    expect(entries.map((entry) => [entry.seq, entry.outcome, entry.outcome_detail])).toEqual([
      [1, 'done', undefined],
      [2, 'refused', 'Record taken is taken'],
    ]);
    expect(entries[1].details).toEqual({ asked: 'taken' });
  });

  it('an action that refuses before committing writes only its refused entry', async () => {
    const refusal = await auditedCommit(
      store.table,
      'tcommit3',
      { action: 'screen.approve', actor, target: { screen_id: 'x' } },
      async () => {
        throw new ConflictError('Nothing awaits approval');
      },
    ).catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(ConflictError);
    expect((await trail('tcommit3')).map((entry) => entry.outcome)).toEqual(['refused']);
  });

  it('20 concurrent actions of one tenant all land, each with its own entry, on a chain that verifies', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `concurrent-${i}`);

    await Promise.all(names.map((name) => take('tcommit4', name)));

    for (const name of names) expect(await recordExists('tcommit4', name)).toBe(true);
    const entries = await trail('tcommit4');
    expect(entries.map((entry) => entry.seq)).toEqual(names.map((_, i) => i + 1));
    expect(entries.map((entry) => entry.target.screen_id).sort()).toEqual([...names].sort());
    expect(await verifyTenantTrail(store.table, 'tcommit4')).toMatchObject({ ok: true, count: 20 });
  });

  it('of two racing actions on one record, the loser writes nothing and is recorded as refused', async () => {
    const outcomes = await Promise.allSettled([take('tcommit5', 'prize'), take('tcommit5', 'prize')]);

    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect((await trail('tcommit5')).map((entry) => entry.outcome).sort()).toEqual(['done', 'refused']);
    expect(await verifyTenantTrail(store.table, 'tcommit5')).toMatchObject({ ok: true, count: 2 });
  });
});
