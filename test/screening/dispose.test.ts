import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disposeScreen } from '../../lib/jobs/dispose-screen.ts';
import { DisposeRequestSchema } from '../../lib/screening/request.ts';
import { formatScreenId } from '../../lib/screening/screen-id.ts';
import { HISTORY_BYTES_LIMIT } from '../../lib/screening/screen-table.ts';
import { getScreenHistory } from '../../lib/screening/screens-read.ts';
import { indexKeys, keys } from '../../lib/store/schema.ts';
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
async function newScreen(): Promise<string> {
  made += 1;
  const screenId = formatScreenId('20250601', made);
  await store.table.doc.send(
    new PutCommand({
      TableName: store.table.name,
      Item: {
        ...keys.screen(tenantId, screenId),
        ...indexKeys('pendingScreens', keys.pendingIndex(tenantId), screenId),
        entity: 'screen',
        screen_id: screenId,
        tenant_id: tenantId,
        subject: { name: 'Hjordis Quillonby' },
        subject_hash: `hash${made}`,
        types: ['sanctions'],
        risk_level: 'CLEAR',
        screened_at: '2025-06-01T08:00:00Z',
        created_by: { user_id: 'ua', role: 'analyst' },
        history: [],
      },
    }),
  );
  return screenId;
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
        'the decision awaiting approval when your request arrived was decision_version 1 (confirmed_hit), but the decision in force is now cleared (decision_version 2)',
      ),
    });
    expect(overridden).toBe(true);
    const stored = await getScreenHistory(store.table, tenantId, id);
    expect(stored.disposition).toMatchObject({ disposition: 'cleared', awaiting_approval: true });
    expect(stored.history).toHaveLength(2);
  });
});
