import { spawnSync } from 'node:child_process';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { verifyChain } from '../../lib/audit/chain.ts';
import { appendAuditEntry, audited, readAuditEntries, SYSTEM_ACTOR } from '../../lib/audit/trail.ts';
import { getServices } from '../../lib/runtime/services.ts';
import { keys } from '../../lib/store/schema.ts';
import { demoKey, madeUpName, useLocalStack } from '../support/api-client.ts';
import { chainAudit } from '../support/audit-chain.ts';
import { failOnce } from '../support/flaky-table.ts';

/**
 * `npm run admin -- verify-audit --tenant T` against the local stack's store (the CLI finds it
 * through DYNAMODB_ENDPOINT and TABLE_NAME, which the stack sets): a real trail verifies; an entry
 * edited, removed or moved in the store directly is named by its seq.
 */
const local = useLocalStack();
const TENANT = 'tdemoenterprise';

function verifyAudit(
  tenantId: string,
  ...extra: string[]
): { status: number | null; report: Record<string, unknown> } {
  const run = spawnSync(
    'npm',
    ['run', '--silent', 'admin', '--', 'verify-audit', '--tenant', tenantId, ...extra],
    {
      encoding: 'utf8',
      env: process.env,
      timeout: 60_000,
    },
  );
  return { status: run.status, report: JSON.parse(run.stdout || '{}') };
}

/** The stack's own table, as its handlers reach it. */
const table = () => getServices().table;
const entryKey = (seq: number) => keys.auditEntry(TENANT, seq);
async function storedItem(seq: number): Promise<Record<string, unknown>> {
  const { Item } = await table().doc.send(
    new GetCommand({ TableName: table().name, Key: entryKey(seq), ConsistentRead: true }),
  );
  if (!Item) throw new Error(`no entry ${seq}`);
  return Item;
}
const put = (item: Record<string, unknown>) =>
  table().doc.send(new PutCommand({ TableName: table().name, Item: item }));

describe('verify-audit', () => {
  it('passes on a real trail and names the entry edited, removed or moved in the store', async () => {
    // A trail made through the API: decisions, an approval, a deletion, a client.
    const analyst = demoKey(local.stack, TENANT, 'analyst').api_key;
    const admin = demoKey(local.stack, TENANT, 'admin').api_key;
    for (let i = 0; i < 3; i += 1) {
      const screen = (await local.api.post('/screen', analyst, { name: madeUpName() })).body;
      const decided = await local.api.post(`/screens/${screen.screen_id}/dispose`, analyst, {
        disposition: 'confirmed_hit',
        approval_requested: true,
      });
      await local.api.post(`/screens/${screen.screen_id}/dispose`, admin, {
        disposition: 'approved',
        approves_version: decided.body.disposition.decision_version,
      });
      await local.api.delete(`/screens/${screen.screen_id}`, analyst);
    }
    await local.api.post('/clients', analyst, { name: madeUpName() });
    await local.stack.auditChain.settle();

    const intact = verifyAudit(TENANT);

    const { entries } = await readAuditEntries(table(), TENANT);
    // One entry each for the three decisions, approvals and deletions and the client's
    // registration, each written in one transaction with its change.
    expect(entries.length).toBeGreaterThanOrEqual(10);
    expect(intact.status).toBe(0);
    expect(intact.report).toMatchObject({
      ok: true,
      count: entries.length,
      head_hash: entries[entries.length - 1].hash,
      anchor: { seq: entries.length, hash: entries[entries.length - 1].hash },
      detail: expect.stringMatching(/^OK: \d+ entries, head hash [0-9a-f]{64}, anchored at entry \d+$/),
    });

    // An edit: entry 5's details changed in place.
    const fifth = await storedItem(5);
    await table().doc.send(
      new UpdateCommand({
        TableName: table().name,
        Key: entryKey(5),
        UpdateExpression: 'SET details.disposition = :other',
        ExpressionAttributeValues: { ':other': 'false_positive' },
      }),
    );
    const edited = verifyAudit(TENANT);
    expect(edited.status).toBe(1);
    expect(edited.report).toMatchObject({ ok: false, seq: 5, problem: 'edited' });
    expect(edited.report.detail).toMatch(/^BROKEN at entry 5: /);
    await put(fifth);

    // A removal: entry 7 deleted.
    const seventh = await storedItem(7);
    await table().doc.send(new DeleteCommand({ TableName: table().name, Key: entryKey(7) }));
    const removed = verifyAudit(TENANT);
    expect(removed.status).toBe(1);
    expect(removed.report).toMatchObject({ ok: false, seq: 7, problem: 'missing' });
    await put(seventh);

    // A reorder: the contents of entries 9 and 10 swapped between their keys.
    const [ninth, tenth] = [await storedItem(9), await storedItem(10)];
    await put({ ...tenth, pk: ninth.pk, sk: ninth.sk });
    await put({ ...ninth, pk: tenth.pk, sk: tenth.sk });
    const swapped = verifyAudit(TENANT);
    expect(swapped.status).toBe(1);
    expect(swapped.report).toMatchObject({ ok: false, seq: 9, problem: 'out-of-order' });
    await put(ninth);
    await put(tenth);

    expect(verifyAudit(TENANT)).toMatchObject({ status: 0, report: { ok: true, count: entries.length } });
  }, 120_000);

  it('names a trail whose newest entries were deleted, and a head the examiner kept that it no longer reaches', async () => {
    const tenantId = 'tdemostarter';
    const analyst = demoKey(local.stack, tenantId, 'analyst').api_key;
    for (let i = 0; i < 4; i += 1) {
      const screen = (await local.api.post('/screen', analyst, { name: madeUpName() })).body;
      await local.api.post(`/screens/${screen.screen_id}/dispose`, analyst, { disposition: 'cleared' });
    }
    await local.stack.auditChain.settle();
    const { entries } = await readAuditEntries(table(), tenantId);
    const head = entries[entries.length - 1];
    const kept = ['--expect-count', String(head.seq), '--expect-head', head.hash];
    expect(verifyAudit(tenantId, ...kept)).toMatchObject({
      status: 0,
      report: { ok: true, count: head.seq },
    });

    // The newest two entries deleted from the table: the chain that is left is whole, but short.
    const deleted = [head.seq - 1, head.seq];
    for (const seq of deleted)
      await table().doc.send(
        new DeleteCommand({ TableName: table().name, Key: keys.auditEntry(tenantId, seq) }),
      );
    const cut = verifyAudit(tenantId);
    expect(cut.status).toBe(1);
    expect(cut.report).toMatchObject({ ok: false, seq: head.seq, problem: 'cut' });
    expect(cut.report.detail).toMatch(
      new RegExp(
        `the trail ends at entry ${head.seq - 2}, but the anchor .* names entry ${head.seq}: entries ${head.seq - 1} to ${head.seq} were removed`,
      ),
    );

    // The next action: the chain writer does not link it onto the cut chain (which would reuse the
    // freed seqs and make the cut look whole); its entry waits, and the verdict stands.
    const screen = (await local.api.post('/screen', analyst, { name: madeUpName() })).body;
    await local.api.post(`/screens/${screen.screen_id}/dispose`, analyst, { disposition: 'cleared' });
    await local.stack.auditChain.settle();
    expect((await readAuditEntries(table(), tenantId)).entries).toHaveLength(entries.length - 2);
    expect(verifyAudit(tenantId, ...kept)).toMatchObject({
      status: 1,
      report: { ok: false, problem: 'cut', waiting: 1 },
    });
  }, 120_000);
});

describe('appending to the chain', () => {
  it('concurrent appends to one tenant take every seq once, with no gap, and the chain verifies', async () => {
    const tenantId = 'tconcurrentaudit';
    const appends = 40;

    await Promise.all(
      Array.from({ length: appends }, (_, i) =>
        appendAuditEntry(table(), tenantId, {
          action: 'clients.rescreen',
          outcome: 'started',
          actor: SYSTEM_ACTOR,
          details: { n: i },
        }),
      ),
    );

    await chainAudit(table(), tenantId);
    const { entries } = await readAuditEntries(table(), tenantId);
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: appends }, (_, i) => i + 1));
    expect(entries.map((e) => e.details.n).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: appends }, (_, i) => i),
    );
    expect(verifyChain(entries)).toMatchObject({ ok: true, count: appends });
  });

  it('reads the chain a page at a time in seq order', async () => {
    const tenantId = 'tpagedaudit';
    for (let i = 0; i < 5; i += 1)
      await appendAuditEntry(table(), tenantId, {
        action: 'lists.synced',
        outcome: 'done',
        actor: SYSTEM_ACTOR,
      });
    await chainAudit(table(), tenantId);

    const first = await readAuditEntries(table(), tenantId, { limit: 2 });
    const second = await readAuditEntries(table(), tenantId, { afterSeq: first.next_after_seq!, limit: 2 });
    const last = await readAuditEntries(table(), tenantId, { afterSeq: second.next_after_seq!, limit: 2 });

    expect([...first.entries, ...second.entries, ...last.entries].map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(first.next_after_seq).toBe(2);
    expect(last.entries.map((e) => e.seq)).toEqual([5]);
    expect((await readAuditEntries(table(), 'tnoaudit')).entries).toEqual([]);
  });

  it('write-ahead: when the started entry cannot be written, the action does not run', async () => {
    const flaky = failOnce(table(), (input) =>
      String((input.Item as { sk?: string })?.sk).startsWith('AUDITQ#'),
    );
    let ran = false;

    await expect(
      audited(flaky.table, 'twriteahead', { action: 'tenant.set-plan', actor: SYSTEM_ACTOR }, async () => {
        ran = true;
      }),
    ).rejects.toThrow(/store unavailable/);

    expect(flaky.failed()).toBe(true);
    expect(ran).toBe(false);
    await chainAudit(table(), 'twriteahead');
    expect((await readAuditEntries(table(), 'twriteahead')).entries).toEqual([]);
  });
});
