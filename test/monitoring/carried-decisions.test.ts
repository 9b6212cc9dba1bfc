import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEntry, allAuditEntries } from '../../lib/audit/trail.ts';
import { carryToScreen, storeRescreen } from '../../lib/monitoring/carried-decisions.ts';
import { carriedEntry } from '../../lib/monitoring/rescreen-review.ts';
import { formatScreenId } from '../../lib/screening/screen-id.ts';
import {
  type DecisionRecord,
  findScreen,
  newScreenItem,
  putScreen,
  type ScreenItem,
} from '../../lib/screening/screen-table.ts';
import { chainAudit } from '../support/audit-chain.ts';
import { startTestStore, type TestStore } from '../support/dynamo.ts';
import { failOnce } from '../support/flaky-table.ts';

/**
 * A decision the system carries to a client's newer screen is written in one transaction with its
 * `screen.carry` audit entry (lib/monitoring/carried-decisions.ts), on DynamoDB Local: both or
 * neither, and a carry the table refuses is neither written nor recorded.
 */
let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
}, 60_000);
afterAll(async () => store.close());

const clientId = 'CLI-20261101-000000000-abcdef';
let made = 0;
/** A client's pending screen, as screening stores it (not yet stored). */
function clientScreen(tenantId: string): ScreenItem {
  made += 1;
  return newScreenItem({
    screen_id: formatScreenId('20261101', made),
    tenant_id: tenantId,
    subject: { name: 'Hjordis Quillonby' },
    subject_hash: 'h',
    types: ['sanctions'],
    risk_level: 'CLEAR',
    sanctions_result: null,
    pep_result: null,
    criminal_result: null,
    screened_at: '2026-11-01T08:00:00Z',
    created_by: { user_id: 'system', role: 'system' },
    history: [],
    origin: 'rescreen',
    client_id: clientId,
  });
}

/** The analyst's cleared on `source` (version 1), made with a key admin uz issued. */
function decidedBy(source: ScreenItem): ScreenItem {
  const decision: DecisionRecord = {
    disposition: 'cleared',
    note: 'Different person',
    author: { user_id: 'ua', role: 'analyst' },
    author_key_lineage: ['uz'],
    at: '2026-11-01T09:00:00Z',
    override: false,
    approval_requested: false,
  };
  return { ...source, disposition: decision, decision_version: 1, history: [decision], history_count: 1 };
}

async function carriesOf(tenantId: string): Promise<AuditEntry[]> {
  await chainAudit(store.table, tenantId);
  const entries: AuditEntry[] = [];
  for await (const entry of allAuditEntries(store.table, tenantId)) {
    if (entry.action === 'screen.carry') entries.push(entry);
  }
  return entries;
}

/**
 * An analyst's decided screen of a client and the client's current screen (stored; decided too
 * with `currentDecided`), and the entry of the decision carried from the one to the other.
 */
async function followUp(tenantId: string, { currentDecided = false } = {}) {
  const source = decidedBy(clientScreen(tenantId));
  const current = clientScreen(tenantId);
  await putScreen(store.table, currentDecided ? decidedBy(current) : current);
  const decision = source.disposition as DecisionRecord;
  const entry = carriedEntry(source, { decision, notes: [] }, '2026-11-02T00:00:00Z');
  const carry = (table = store.table) =>
    carryToScreen(table, current, entry, { viaScreenId: source.screen_id, replacingCarried: false });
  return { source, current, carry };
}

describe('the settled-decision follow-up: carryToScreen', () => {
  it('carries the decision with its author and one screen.carry entry by the system naming source, version and author', async () => {
    const tenantId = 'tcarry1';
    const { source, current, carry } = await followUp(tenantId);

    const carried = await carry();

    expect(carried?.disposition).toMatchObject({
      disposition: 'cleared',
      author: { user_id: 'ua', role: 'analyst' },
      author_key_lineage: ['uz'],
      carried_by: { user_id: 'system', role: 'system' },
      carried_from: { screen_id: source.screen_id, decision_version: 1, decided_at: '2026-11-01T09:00:00Z' },
    });
    expect(carried?.decision_version).toBe(1);
    expect(await carriesOf(tenantId)).toMatchObject([
      {
        outcome: 'done',
        actor: { user_id: 'system', role: 'system' },
        target: { screen_id: current.screen_id, client_id: clientId },
        details: {
          path: 'settled_decision',
          disposition: 'cleared',
          carried_from_screen_id: source.screen_id,
          carried_from_version: 1,
          decided_by: 'ua',
          decided_by_role: 'analyst',
          via_screen_id: source.screen_id,
          version: 1,
          replaces_carried: false,
        },
      },
    ]);
  });

  it('an override on the source screen replaces the decision carried from it, recorded as replacing it', async () => {
    const tenantId = 'tcarry6';
    const { source, carry } = await followUp(tenantId);
    const first = await carry();
    const overridden: DecisionRecord = {
      ...(source.disposition as DecisionRecord),
      disposition: 'confirmed_hit',
      author: { user_id: 'uz', role: 'admin' },
      author_key_lineage: [],
      override: true,
    };
    const decided = {
      ...source,
      disposition: overridden,
      decision_version: 2,
      history: [...source.history, overridden],
      history_count: 2,
    };
    const entry = {
      ...carriedEntry(decided, { decision: overridden, notes: [] }, '2026-11-03T00:00:00Z'),
      override: true,
    };

    const replaced = await carryToScreen(store.table, first as ScreenItem, entry, {
      viaScreenId: source.screen_id,
      replacingCarried: true,
    });

    expect(replaced?.disposition).toMatchObject({
      disposition: 'confirmed_hit',
      author: { user_id: 'uz', role: 'admin' },
      carried_from: { screen_id: source.screen_id, decision_version: 2 },
    });
    expect(replaced?.decision_version).toBe(2);
    expect(
      (await carriesOf(tenantId)).map((e) => [
        e.details.decided_by,
        e.details.replaces_carried,
        e.details.version,
      ]),
    ).toEqual([
      ['ua', false, 1],
      ['uz', true, 2],
    ]);
  });

  it('a screen decided since it was read: nothing carried, nothing recorded', async () => {
    const tenantId = 'tcarry2';
    const { current, carry } = await followUp(tenantId, { currentDecided: true });

    const carried = await carry();

    expect(carried).toBeUndefined();
    expect(
      (await findScreen(store.table, tenantId, current.screen_id))?.disposition?.carried_by,
    ).toBeUndefined();
    expect(await carriesOf(tenantId)).toEqual([]);
  });

  it('the carry and its entry are one transaction: refused as a whole, neither is written', async () => {
    const tenantId = 'tcarry3';
    const { current, carry } = await followUp(tenantId);
    const flaky = failOnce(store.table, (input) => Array.isArray(input.TransactItems));

    await expect(carry(flaky.table)).rejects.toThrow('store unavailable');

    expect(flaky.failed()).toBe(true);
    expect((await findScreen(store.table, tenantId, current.screen_id))?.disposition).toBeUndefined();
    expect((await carriesOf(tenantId)).map((e) => e.outcome)).toEqual(['failed']);
  });
});

describe('a re-screen that carries its baseline’s decision: storeRescreen', () => {
  it('stores the screen with one screen.carry entry; a retry of the same job finds it stored and records nothing more', async () => {
    const tenantId = 'tcarry4';
    const baseline = decidedBy(clientScreen(tenantId));
    const fresh = clientScreen(tenantId);
    const entry = carriedEntry(
      baseline,
      { decision: baseline.disposition as DecisionRecord, notes: [] },
      fresh.screened_at,
    );
    const reviewed: ScreenItem = {
      ...fresh,
      baseline_screen_id: baseline.screen_id,
      disposition: entry as DecisionRecord,
      decision_version: 1,
      history: [entry],
      history_count: 1,
    };

    expect(await storeRescreen(store.table, reviewed, 'BAT-run-1')).toEqual({ stored: true });
    const again = await storeRescreen(store.table, reviewed, 'BAT-run-1');

    expect(again).toMatchObject({ stored: false, found: { screen_id: fresh.screen_id } });
    expect((await findScreen(store.table, tenantId, fresh.screen_id))?.disposition).toMatchObject({
      author: { user_id: 'ua' },
      carried_by: { role: 'system' },
    });
    expect(await carriesOf(tenantId)).toMatchObject([
      {
        outcome: 'done',
        target: { screen_id: fresh.screen_id, client_id: clientId, run_id: 'BAT-run-1' },
        details: {
          path: 'rescreen',
          via_screen_id: baseline.screen_id,
          decided_by: 'ua',
          carried_from_version: 1,
        },
      },
    ]);
  });

  it('a re-screen that carries nothing is stored without an entry', async () => {
    const tenantId = 'tcarry5';
    const fresh = clientScreen(tenantId);

    expect(await storeRescreen(store.table, fresh, 'BAT-run-2')).toEqual({ stored: true });

    expect(await carriesOf(tenantId)).toEqual([]);
  });
});
