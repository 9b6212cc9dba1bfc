import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileAnchorStore } from '../../lib/audit/anchor-store.ts';
import { type ChainWriterDeps, chainAnnouncedTenants } from '../../lib/audit/chain-writer.ts';
import {
  appendAuditEntry,
  readAuditEntries,
  SYSTEM_ACTOR,
  type UnchainedEntry,
} from '../../lib/audit/trail.ts';
import { verifyTenantTrail } from '../../lib/audit/verify.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';

/**
 * The chain writer as the table's stream runs it on AWS (functions/table-stream/audit-chain.ts):
 * a batch of stream records names the tenants with waiting entries; each is linked and anchored.
 */

let store: TestStore;
const dir = mkdtempSync(join(tmpdir(), 'chain-writer-'));
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const record = (pk: string, sk: string) => ({
  eventName: 'INSERT',
  dynamodb: { Keys: { pk: { S: pk }, sk: { S: sk } } },
});

describe('the chain writer on the stream', () => {
  it('links and anchors every tenant the records announce, once each, and nothing else', async () => {
    const anchors = createFileAnchorStore(join(dir, 'anchors'));
    const deps: ChainWriterDeps = { table: store.table, anchors, retainDays: async () => 1 };
    const written: UnchainedEntry[] = [];
    for (const tenant of ['tstreama', 'tstreamb', 'tstreamc'])
      for (let i = 0; i < 3; i += 1)
        written.push(
          await appendAuditEntry(store.table, tenant, {
            action: 'lists.synced',
            outcome: 'done',
            actor: SYSTEM_ACTOR,
          }),
        );
    const sk = (i: number) => `AUDITQ#${written[i].at}#${written[i].entry_id}`;

    const runs = await chainAnnouncedTenants(deps, [
      record('TENANT#tstreama', sk(0)),
      record('TENANT#tstreama', sk(1)),
      record('TENANT#tstreamb', sk(3)),
      // Not a waiting entry: a screen's insert announces nothing.
      record('TENANT#tstreamc', 'SCREEN#SCR-20261128-000001'),
    ]);

    expect(runs.map((run) => run.chained)).toEqual([3, 3]);
    for (const tenant of ['tstreama', 'tstreamb']) {
      const verdict = await verifyTenantTrail(store.table, tenant, { anchors });
      expect(verdict).toMatchObject({ ok: true, count: 3, waiting: 0, anchor: { seq: 3 } });
    }
    // tstreamc's entries wait for a record that announces them.
    expect((await readAuditEntries(store.table, 'tstreamc')).entries).toEqual([]);
    expect(await verifyTenantTrail(store.table, 'tstreamc', { anchors })).toMatchObject({
      ok: true,
      count: 0,
      waiting: 3,
      anchor: null,
    });

    // A redelivered batch (a Lambda retry) links nothing twice.
    const again = await chainAnnouncedTenants(deps, [record('TENANT#tstreama', sk(0))]);
    expect(again.map((run) => run.chained)).toEqual([0]);
    expect((await readAuditEntries(store.table, 'tstreama')).entries).toHaveLength(3);
  });
});
