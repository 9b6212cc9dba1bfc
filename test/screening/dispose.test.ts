import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEntry, allAuditEntries, appendAuditEntry } from '../../lib/audit/trail.ts';
import { verifyTenantTrail } from '../../lib/audit/verify.ts';
import { disposeScreen } from '../../lib/jobs/dispose-screen.ts';
import { DisposeRequestSchema } from '../../lib/screening/request.ts';
import { formatScreenId } from '../../lib/screening/screen-id.ts';
import { HISTORY_BYTES_LIMIT } from '../../lib/screening/screen-table.ts';
import { getScreenHistory } from '../../lib/screening/screens-read.ts';
import { indexKeys, keys } from '../../lib/store/schema.ts';
import { chainAudit } from '../support/audit-chain.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';

/**
 * The disposition rules as single conditional writes, on DynamoDB Local (AWS's engine): the
 * version counters computed inside the write, the approval bound to a version, the history cap.
 */
let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
}, 60_000);
afterAll(async () => store.close());

const tenantId = 'tdispose';
const analyst = (userId: string) => ({ tenantId, userId, role: 'analyst' as const });
const admin = (userId: string) => ({ tenantId, userId, role: 'admin' as const });
const body = (input: Record<string, unknown>) => v.parse(DisposeRequestSchema, input);

/** A stored pending screen with no matches (the disposition rules never read them). */
let made = 0;
async function newScreen(tenant = tenantId, extra: Record<string, unknown> = {}): Promise<string> {
  made += 1;
  const screenId = formatScreenId('20250601', made);
  await store.table.doc.send(
    new PutCommand({
      TableName: store.table.name,
      Item: {
        ...keys.screen(tenant, screenId),
        ...indexKeys('pendingScreens', keys.pendingIndex(tenant), screenId),
        entity: 'screen',
        screen_id: screenId,
        tenant_id: tenant,
        subject: { name: 'Hjordis Quillonby' },
        subject_hash: `hash${made}`,
        types: ['sanctions'],
        risk_level: 'CLEAR',
        screened_at: '2025-06-01T08:00:00Z',
        created_by: { user_id: 'ua', role: 'analyst' },
        history: [],
        ...extra,
      },
    }),
  );
  return screenId;
}

/** The tenant's whole trail, oldest first. */
async function trailOf(tenant: string): Promise<AuditEntry[]> {
  await chainAudit(store.table, tenant);
  const entries: AuditEntry[] = [];
  for await (const entry of allAuditEntries(store.table, tenant)) entries.push(entry);
  return entries;
}

/** A table whose client runs `before` ahead of each command it sends (`before` answers whether to go on hooking). */
function hookedTable(
  before: (command: { constructor: { name: string }; input: Record<string, unknown> }) => Promise<void>,
) {
  const doc = {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      await before(command);
      return store.table.doc.send(command as never);
    },
  } as unknown as typeof store.table.doc;
  return { name: store.table.name, doc };
}

describe('disposeScreen', () => {
  it('numbers decisions by their history position and binds an approval to one', async () => {
    const id = await newScreen();
    const first = await disposeScreen(store.table, analyst('ua'), id, body({ disposition: 'confirmed_hit' }));
    const second = await disposeScreen(
      store.table,
      analyst('ub'),
      id,
      body({ disposition: 'cleared', override: true }),
    );
    expect(first.disposition?.decision_version).toBe(1);
    expect(second.disposition?.decision_version).toBe(2);

    await expect(
      disposeScreen(store.table, admin('uz'), id, body({ disposition: 'approved', approves_version: 1 })),
    ).rejects.toMatchObject({
      status: 409,
      detail: expect.stringContaining('now cleared (decision_version 2)'),
    });
    const approved = await disposeScreen(
      store.table,
      admin('uz'),
      id,
      body({ disposition: 'approved', approves_version: 2 }),
    );

    expect(approved.disposition).toMatchObject({ disposition: 'approved', decision_version: 2 });
    expect(approved.history.map((entry) => entry.version)).toEqual([1, 2, 3]);
    expect(approved.history[2].approves).toMatchObject({ version: 2, disposition: 'cleared' });
  });

  it('refuses decisions past the history limit with 409, keeping room to approve the last one', async () => {
    const id = await newScreen();
    const note = '€'.repeat(4000);
    let accepted = 0;
    let refused: unknown;
    for (let i = 0; i < 40 && !refused; i++) {
      await disposeScreen(
        store.table,
        analyst('ua'),
        id,
        body({ disposition: 'needs_review', note, override: true }),
      ).then(
        () => {
          accepted += 1;
        },
        (error) => {
          refused = error;
        },
      );
    }
    expect(refused).toMatchObject({ status: 409, detail: expect.stringMatching(/history is full/) });
    expect(accepted * 12_000).toBeLessThanOrEqual(HISTORY_BYTES_LIMIT);
    expect(accepted).toBeGreaterThanOrEqual(15);

    const approved = await disposeScreen(
      store.table,
      admin('uz'),
      id,
      body({ disposition: 'approved', note, approves_version: accepted }),
    );
    expect(approved.disposition?.disposition).toBe('approved');
    expect((await getScreenHistory(store.table, tenantId, id)).history).toHaveLength(accepted + 1);
  });

  it('four eyes on both sides of a credential: the approver could hold the author’s key, or the author the approver’s → 403', async () => {
    const id = await newScreen();
    // ua decided with a key that admin uz issued (and so could hold).
    await disposeScreen(
      store.table,
      { ...analyst('ua'), keyLineage: ['uz'] },
      id,
      body({ disposition: 'cleared', approval_requested: true }),
    );
    for (const request of [{ disposition: 'approved' }, { disposition: 'approved', approves_version: 1 }]) {
      await expect(disposeScreen(store.table, admin('uz'), id, body(request))).rejects.toMatchObject({
        status: 403,
        detail: expect.stringContaining('you (uz) issued or could hold the API key ua decided with'),
      });
    }
    // Admin uy's key descends from one ua could hold (a reset made before admins' resets went to
    // operations): ua could act as uy.
    await expect(
      disposeScreen(
        store.table,
        { ...admin('uy'), keyLineage: ['ua'] },
        id,
        body({ disposition: 'approved' }),
      ),
    ).rejects.toMatchObject({
      status: 403,
      detail: expect.stringContaining('ua, who made this decision, issued or could hold your API key'),
    });
    expect((await getScreenHistory(store.table, tenantId, id)).history).toHaveLength(1);

    const approved = await disposeScreen(
      store.table,
      { ...admin('ux'), keyLineage: [] },
      id,
      body({ disposition: 'approved' }),
    );
    expect(approved.disposition).toMatchObject({ disposition: 'approved', author_key_lineage: [] });
    expect(approved.history[0]).toMatchObject({ author_key_lineage: ['uz'], approved_by: { user_id: 'ux' } });
  });

  it('an approval without a version binds to the version it read: an override landing before its write → 409, nothing approved', async () => {
    const id = await newScreen();
    await disposeScreen(
      store.table,
      analyst('ua'),
      id,
      body({ disposition: 'confirmed_hit', approval_requested: true }),
    );
    // The store as the approval sees it: right after its read of the whole screen (not the audit
    // trail's projected read of the decision in force before it), an analyst overrides the decision.
    let overridden = false;
    const doc = {
      send: async (command: { constructor: { name: string }; input: { ProjectionExpression?: string } }) => {
        const result = await store.table.doc.send(command as never);
        if (command.constructor.name === 'GetCommand' && !command.input.ProjectionExpression && !overridden) {
          overridden = true;
          await disposeScreen(
            store.table,
            analyst('ub'),
            id,
            body({ disposition: 'cleared', override: true, approval_requested: true }),
          );
        }
        return result;
      },
    } as unknown as typeof store.table.doc;

    await expect(
      disposeScreen({ name: store.table.name, doc }, admin('uz'), id, body({ disposition: 'approved' })),
    ).rejects.toMatchObject({
      status: 409,
      detail: expect.stringContaining(
        'the decision in force when your request arrived was decision_version 1 (confirmed_hit), but the decision in force is now cleared (decision_version 2)',
      ),
    });
    expect(overridden).toBe(true);
    const stored = await getScreenHistory(store.table, tenantId, id);
    expect(stored.disposition).toMatchObject({ disposition: 'cleared', awaiting_approval: true });
    expect(stored.history).toHaveLength(2);
  });
});

describe('a decision the system carried to the screen is judged by its author', () => {
  /** A screen holding a decision the system carried from SCR-20250101-000001, by `author`. */
  const carriedScreen = (
    author: { user_id: string; role: 'analyst' | 'admin' | 'system' },
    lineage?: string[],
  ) => {
    const entry = {
      disposition: 'cleared',
      note: 'Carried forward from SCR-20250101-000001',
      author,
      ...(lineage ? { author_key_lineage: lineage } : {}),
      at: '2025-06-01T08:00:00Z',
      override: false,
      approval_requested: false,
      ...(author.role === 'system'
        ? {}
        : {
            carried_by: { user_id: 'system', role: 'system' },
            carried_from: {
              screen_id: 'SCR-20250101-000001',
              decision_version: 1,
              decided_at: '2025-01-01T09:00:00Z',
            },
          }),
    };
    return newScreen(tenantId, {
      disposition: entry,
      decision_version: 1,
      history: [entry],
      history_count: 1,
      decision_source_screen_id: 'SCR-20250101-000001',
    });
  };

  it('its author, or an admin in the lineage of the key they made it with, may not sign it off (403, both forms); another admin may', async () => {
    const id = await carriedScreen({ user_id: 'uz', role: 'admin' }, ['uy']);
    for (const approver of ['uz', 'uy']) {
      for (const request of [{ disposition: 'approved' }, { disposition: 'approved', approves_version: 1 }]) {
        await expect(disposeScreen(store.table, admin(approver), id, body(request))).rejects.toMatchObject({
          status: 403,
          code: 'four_eyes_required',
        });
      }
    }
    await expect(
      disposeScreen(store.table, admin('uz'), id, body({ disposition: 'approved' })),
    ).rejects.toMatchObject({
      detail: expect.stringContaining(
        'yourself on SCR-20250101-000001, and the system carried it to this screen',
      ),
    });

    const approved = await disposeScreen(store.table, admin('ux'), id, body({ disposition: 'approved' }));

    expect(approved.disposition).toMatchObject({
      disposition: 'approved',
      approved_decision: { author: { user_id: 'uz' }, carried_from: { screen_id: 'SCR-20250101-000001' } },
    });
  });

  it('one carried before carried decisions kept their author (author `system`) is signed off by nobody (403) until a person records it again', async () => {
    const id = await carriedScreen({ user_id: 'system', role: 'system' });

    await expect(
      disposeScreen(store.table, admin('ux'), id, body({ disposition: 'approved', approves_version: 1 })),
    ).rejects.toMatchObject({
      status: 403,
      code: 'four_eyes_required',
      detail: expect.stringContaining('override'),
    });
    await disposeScreen(store.table, analyst('ua'), id, body({ disposition: 'cleared', override: true }));

    const approved = await disposeScreen(store.table, admin('ux'), id, body({ disposition: 'approved' }));
    expect(approved.history.map((entry) => entry.disposition)).toEqual(['cleared', 'cleared', 'approved']);
  });
});

/**
 * A decision and its audit entry are one transaction (lib/audit/trail.ts auditedCommit): the
 * screen write (with its outbox events) and the `done` entry land together or not at all, and the
 * entry states exactly what the write did.
 */
describe('disposeScreen: the decision and its audit entry in one transaction', () => {
  const raw = async (tenant: string, id: string) =>
    (
      await store.table.doc.send(
        new GetCommand({ TableName: store.table.name, Key: keys.screen(tenant, id), ConsistentRead: true }),
      )
    ).Item;

  it('20 concurrent dispositions of 20 screens by one analyst: 20 decisions, exactly 20 done entries, a chain that verifies', async () => {
    const tenant = 'tdisposeburst';
    const ids = await Promise.all(Array.from({ length: 20 }, () => newScreen(tenant)));
    const decided = await Promise.all(
      ids.map((id) =>
        disposeScreen(
          store.table,
          { ...analyst('ua'), tenantId: tenant },
          id,
          body({ disposition: 'cleared' }),
        ),
      ),
    );
    expect(decided.map((screen) => screen.disposition?.decision_version)).toEqual(ids.map(() => 1));

    const entries = await trailOf(tenant);
    expect(entries.map((e) => `${e.action} ${e.outcome}`)).toEqual(ids.map(() => 'screen.dispose done'));
    expect(entries.map((e) => e.target.screen_id).sort()).toEqual([...ids].sort());
    expect(entries.map((e) => e.seq)).toEqual(ids.map((_, i) => i + 1));
    for (const entry of entries)
      expect(entry.details).toMatchObject({ in_force_before: null, version: 1, in_force: 'cleared' });
    expect(await verifyTenantTrail(store.table, tenant)).toMatchObject({ ok: true, count: 20 });
    for (const id of ids) expect((await getScreenHistory(store.table, tenant, id)).history).toHaveLength(1);
  }, 60_000);

  it('a refused decision (409) leaves the screen as it was and exactly one refused entry, no done entry', async () => {
    const tenant = 'tdisposerefused';
    const id = await newScreen(tenant);
    const caller = { ...analyst('ua'), tenantId: tenant };
    await disposeScreen(store.table, caller, id, body({ disposition: 'cleared', approval_requested: true }));
    const before = await raw(tenant, id);

    await expect(
      disposeScreen(store.table, caller, id, body({ disposition: 'confirmed_hit' })),
    ).rejects.toMatchObject({
      status: 409,
      detail: expect.stringContaining('already has the disposition cleared'),
    });

    // Not a byte changed: no history entry, no outbox event.
    expect(await raw(tenant, id)).toEqual(before);
    const entries = await trailOf(tenant);
    expect(entries.map((e) => `${e.action} ${e.outcome}`)).toEqual([
      'screen.dispose done',
      'screen.dispose refused',
    ]);
    expect(entries[1]).toMatchObject({
      outcome_detail: expect.stringContaining('already has the disposition cleared'),
      details: { disposition: 'confirmed_hit', in_force_before: 'cleared', in_force_version_before: 1 },
    });
    expect(entries[1].details).not.toHaveProperty('version');
  });

  it('an entry another action writes meanwhile does not hold the decision up: its transaction is sent once, and both entries are chained', async () => {
    const tenant = 'tdisposeseq';
    const id = await newScreen(tenant);
    let transactions = 0;
    const table = hookedTable(async (command) => {
      if (command.constructor.name !== 'TransactWriteCommand') return;
      transactions += 1;
      // Another action of the tenant records its entry just before this decision commits.
      if (transactions === 1)
        await appendAuditEntry(store.table, tenant, {
          action: 'screen.dispose',
          outcome: 'refused',
          actor: { user_id: 'uq', role: 'analyst' },
        });
    });

    const decided = await disposeScreen(
      table,
      { ...analyst('ua'), tenantId: tenant },
      id,
      body({ disposition: 'cleared', approval_requested: true }),
    );

    // Before the chain writer, the decision lost its seq to that entry and was sent again.
    expect(transactions).toBe(1);
    expect(decided.history).toHaveLength(1);
    expect((await raw(tenant, id))?.webhook_events).toHaveLength(1);
    const entries = await trailOf(tenant);
    // Chained in the order the entries were made: the decision's before the one written meanwhile.
    expect(entries.map((e) => `${e.seq} ${e.actor.user_id} ${e.outcome}`)).toEqual([
      '1 ua done',
      '2 uq refused',
    ]);
    expect(await verifyTenantTrail(store.table, tenant)).toMatchObject({ ok: true, count: 2 });
  });

  it('a decision whose screen changed after its read (a concurrent override) reads it again: its entry states the decision it replaced', async () => {
    const tenant = 'tdisposerace';
    const id = await newScreen(tenant);
    await disposeScreen(
      store.table,
      { ...analyst('ua'), tenantId: tenant },
      id,
      body({ disposition: 'cleared' }),
    );
    let overridden = false;
    const table = hookedTable(async (command) => {
      if (command.constructor.name !== 'TransactWriteCommand' || overridden) return;
      overridden = true;
      await disposeScreen(
        store.table,
        { ...analyst('ub'), tenantId: tenant },
        id,
        body({ disposition: 'needs_review', override: true }),
      );
    });

    const decided = await disposeScreen(
      table,
      { ...analyst('uc'), tenantId: tenant },
      id,
      body({ disposition: 'confirmed_hit', override: true }),
    );

    expect(overridden).toBe(true);
    expect(decided.history.map((entry) => `${entry.version} ${entry.disposition}`)).toEqual([
      '1 cleared',
      '2 needs_review',
      '3 confirmed_hit',
    ]);
    const entries = await trailOf(tenant);
    expect(entries.map((e) => `${e.actor.user_id} ${e.action} ${e.outcome}`)).toEqual([
      'ua screen.dispose done',
      'ub screen.override done',
      'uc screen.override done',
    ]);
    // Each entry names the decision it replaced and the version it produced, as written.
    expect(entries[1].details).toMatchObject({
      in_force_before: 'cleared',
      version: 2,
      in_force: 'needs_review',
    });
    expect(entries[2].details).toMatchObject({
      in_force_before: 'needs_review',
      in_force_version_before: 2,
      version: 3,
      in_force: 'confirmed_hit',
      in_force_version: 3,
    });
  });

  it('a settled decision on a client’s screen moves the client’s settled pointer in the same transaction; a pointer already further on never blocks it', async () => {
    const tenant = 'tdisposeclient';
    const client = async (clientId: string, settled: string | undefined) => {
      await store.table.doc.send(
        new PutCommand({
          TableName: store.table.name,
          Item: {
            ...keys.client(tenant, clientId),
            entity: 'client',
            tenant_id: tenant,
            client_id: clientId,
            ...(settled ? { settled_screen_id: settled } : {}),
          },
        }),
      );
    };
    const pointer = async (clientId: string) =>
      (
        await store.table.doc.send(
          new GetCommand({
            TableName: store.table.name,
            Key: keys.client(tenant, clientId),
            ConsistentRead: true,
          }),
        )
      ).Item?.settled_screen_id;

    const behind = await newScreen(tenant, { client_id: 'CL-behind' });
    await client('CL-behind', undefined);
    await disposeScreen(
      store.table,
      { ...analyst('ua'), tenantId: tenant },
      behind,
      body({ disposition: 'cleared' }),
    );
    expect(await pointer('CL-behind')).toBe(behind);

    // Awaiting approval: not settled, the pointer stays; the sign-off settles it.
    const awaiting = await newScreen(tenant, { client_id: 'CL-behind' });
    await disposeScreen(
      store.table,
      { ...analyst('ua'), tenantId: tenant },
      awaiting,
      body({ disposition: 'confirmed_hit', approval_requested: true }),
    );
    expect(await pointer('CL-behind')).toBe(behind);
    await disposeScreen(
      store.table,
      { ...admin('uz'), tenantId: tenant },
      awaiting,
      body({ disposition: 'approved' }),
    );
    expect(await pointer('CL-behind')).toBe(awaiting);

    const older = await newScreen(tenant, { client_id: 'CL-ahead' });
    await client('CL-ahead', 'SCR-20991231-99999');
    const decided = await disposeScreen(
      store.table,
      { ...analyst('ua'), tenantId: tenant },
      older,
      body({ disposition: 'cleared' }),
    );
    expect(decided.disposition?.disposition).toBe('cleared');
    expect(await pointer('CL-ahead')).toBe('SCR-20991231-99999');
    const entries = (await trailOf(tenant)).map((e) => `${e.action} ${e.outcome}`);
    expect(entries).toEqual([
      'screen.dispose done',
      'screen.dispose done',
      'screen.approve done',
      'screen.dispose done',
    ]);
  });
});
