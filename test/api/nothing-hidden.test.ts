/**
 * Nothing hidden (issue 39): a check whose matches were cut to the strongest says so in its
 * narrative, and a screen made on stale lists carries `lists_stale`, through the local stack.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { getServices } from '../../lib/runtime/services.ts';
import { listsStaleAt } from '../../lib/screening/lists-stale.ts';
import { narrativeOfCut } from '../../lib/screening/match-narrative.ts';
import { keys } from '../../lib/store/schema.ts';
import { useLocalStack } from '../support/api-client.ts';

const local = useLocalStack();
const adminKey = () =>
  local.stack.demoKeys.find((key) => key.plan === 'enterprise' && key.role === 'admin')!.api_key;

describe('a result cut to its strongest matches', { timeout: 120_000 }, () => {
  it('says "Showing the 10 strongest of N" where the matcher kept 10 of more', async () => {
    const { status, body } = await local.api.post('/screen', adminKey(), {
      name: 'Mohammed Ali',
      force: true,
    });
    expect(status).toBe(200);
    const cut = [body.sanctions_result, body.pep_result, body.criminal_result].filter(
      (result) => result?.truncated,
    );
    expect(cut.length).toBeGreaterThan(0);
    for (const result of cut) {
      const shown = (result.matches ?? [...result.interpol_hits, ...result.fbi_hits]).length;
      expect(result.narrative).toContain(
        `Showing the ${shown} strongest of ${result.total} possible matches`,
      );
      expect(result.narrative).not.toMatch(new RegExp(`\\. ${shown} possible matches`));
    }
    // Read back, the stored screen says the same.
    const stored = (await local.api.get(`/screens/${body.screen_id}`, adminKey())).body;
    expect(stored.sanctions_result.narrative).toBe(body.sanctions_result.narrative);
  });

  it('leaves a narrative alone when nothing was cut, and says it when the wording differs', () => {
    expect(narrativeOfCut('HIGH: x. 3 possible matches on y.', 3, 3, false)).toBe(
      'HIGH: x. 3 possible matches on y.',
    );
    expect(narrativeOfCut('HIGH: x. 10 possible matches on y.', 10, 11, true)).toBe(
      'HIGH: x. Showing the 10 strongest of 11 possible matches on y.',
    );
    expect(narrativeOfCut('Something else.', 10, 12, true)).toBe(
      'Something else. Showing the 10 strongest of 12 possible matches.',
    );
  });
});

const analystKey = () =>
  local.stack.demoKeys.find((key) => key.plan === 'enterprise' && key.role === 'analyst')!.api_key;
const otherTenantKey = () => local.stack.demoKeys.find((key) => key.plan === 'starter')!.api_key;
const keyOf = (match: { list_id: string; entity_id: string }) => `${match.list_id}#${match.entity_id}`;

describe('GET /screens/{screen_id}/matches: the rest of a cut check', { timeout: 180_000 }, () => {
  it('pages the matches beyond the stored 10, strongest first, none of them stored, total consistent', async () => {
    const { body: screen } = await local.api.post('/screen', adminKey(), {
      name: 'Mohammed Ali',
      force: true,
    });
    const checks = { sanctions: screen.sanctions_result, pep: screen.pep_result } as const;
    const [check, result] = Object.entries(checks).find(([, r]) => r?.truncated) ?? [];
    expect(check, 'a check of "Mohammed Ali" is cut').toBeDefined();
    const before = (await local.api.get('/me', analystKey())).body;

    // An analyst reads it as they read the screen; one row a page, to walk the cursor.
    const seen: { list_id: string; entity_id: string; risk_level: string; score: number }[] = [];
    let cursor: string | null = '';
    let pages = 0;
    while (cursor !== null) {
      const { status, body } = await local.api.get(
        `/screens/${screen.screen_id}/matches?check=${check}&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        analystKey(),
      );
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.total).toBe(result.total);
      expect(body.stored).toBe(result.matches.length);
      expect(body.same_matcher).toBe(true);
      expect(body.snapshot_version).toBe(screen.receipt.snapshot.version);
      seen.push(...body.matches);
      cursor = body.next_cursor;
      pages += 1;
    }
    expect(seen).toHaveLength(result.total - result.matches.length);
    expect(pages).toBe(seen.length);
    const stored = new Set(result.matches.map(keyOf));
    expect(seen.filter((match) => stored.has(keyOf(match)))).toEqual([]);
    expect(new Set(seen.map(keyOf)).size).toBe(seen.length);
    // Strongest first, and none stronger than the weakest stored match.
    const rank = (level: string) => ['CLEAR', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'].indexOf(level);
    const order = (a: (typeof seen)[0], b: (typeof seen)[0]) =>
      rank(b.risk_level) - rank(a.risk_level) || b.score - a.score;
    expect([...seen].sort(order)).toEqual(seen);
    const weakest = result.matches.at(-1);
    expect(order(weakest, seen[0])).toBeLessThanOrEqual(0);

    // The same page twice is the same page (computed again, deterministically); nothing charged.
    const again = await local.api.get(`/screens/${screen.screen_id}/matches?check=${check}`, adminKey());
    expect(again.body.matches).toEqual(seen);
    expect(again.body.next_cursor).toBeNull();
    const after = (await local.api.get('/me', analystKey())).body;
    expect(after.usage).toEqual(before.usage);

    // A receipt naming a snapshot the service no longer has: 410 naming it, nothing guessed.
    const { table } = getServices();
    const tenantId = local.stack.demoKeys.find((key) => key.plan === 'enterprise')!.tenant_id;
    await table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: keys.screen(tenantId, screen.screen_id),
        UpdateExpression: 'SET receipt.#snapshot.#version = :gone',
        ExpressionAttributeNames: { '#snapshot': 'snapshot', '#version': 'version' },
        ExpressionAttributeValues: { ':gone': 'bundled-0000000000000000' },
      }),
    );
    const gone = await local.api.get(`/screens/${screen.screen_id}/matches?check=${check}`, adminKey());
    expect(gone.status).toBe(410);
    expect(gone.body.detail).toMatch(
      /snapshot bundled-0000000000000000, which was the snapshot shipped with an earlier release/,
    );
  });

  it('answers an empty page for a check that was not cut, 409 for a check not run, 404 to another tenant, 400 for a foreign cursor', async () => {
    const { body: screen } = await local.api.post('/screen', adminKey(), {
      name: 'Jane Quillonby-Uncut',
      types: 'sanctions',
      force: true,
    });
    const uncut = await local.api.get(`/screens/${screen.screen_id}/matches`, adminKey());
    expect(uncut.status).toBe(200);
    expect(uncut.body).toMatchObject({
      check: 'sanctions',
      matches: [],
      next_cursor: null,
      snapshot_version: null,
    });
    expect(uncut.body.total).toBe(screen.sanctions_result.matches.length);

    const notRun = await local.api.get(`/screens/${screen.screen_id}/matches?check=pep`, adminKey());
    expect(notRun.status).toBe(409);
    expect(notRun.body.detail).toMatch(/ran sanctions, not pep/);

    const other = await local.api.get(`/screens/${screen.screen_id}/matches`, otherTenantKey());
    expect(other.status).toBe(404);

    const badCheck = await local.api.get(`/screens/${screen.screen_id}/matches?check=fraud`, adminKey());
    expect(badCheck.status).toBe(400);
    expect(badCheck.body.detail).toMatch(/check/);

    const foreign = Buffer.from(JSON.stringify({ l: 'matches', t: 'x', id: '1', s: 'y' })).toString(
      'base64url',
    );
    const badCursor = await local.api.get(
      `/screens/${screen.screen_id}/matches?cursor=${foreign}`,
      adminKey(),
    );
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.detail).toMatch(/cursor/);
  });
});

describe('lists_stale', { timeout: 120_000 }, () => {
  it('names the stale lists a screen used, as /dbstatus judged them when it was made', async () => {
    const { body: screen } = await local.api.post('/screen', adminKey(), {
      name: 'Jane Quillonby-Stale',
      types: 'sanctions',
      force: true,
    });
    const status = (await local.api.get('/dbstatus', adminKey())).body;
    const sanctionsLists = new Set(
      status.lists
        .filter((list: { category: string }) => list.category === 'sanctions')
        .map((list: { id: string }) => list.id),
    );
    const staleSanctions = status.stale_lists.filter((id: string) => sanctionsLists.has(id));
    const read = (await local.api.get(`/screens/${screen.screen_id}`, adminKey())).body;
    expect(Array.isArray(read.lists_stale)).toBe(true);
    expect(read.lists_stale.map((list: { id: string }) => list.id).sort()).toEqual(
      [...staleSanctions].sort(),
    );
    expect(screen.lists_stale).toEqual(read.lists_stale);
    for (const list of read.lists_stale) expect(list.reasons.length).toBeGreaterThan(0);
  });

  it('judges each list at the screen’s time, only the lists of its check types', () => {
    const list = (id: string, source_date: string | null, synced_at = '2026-03-10T00:00:00Z') => ({
      id,
      source_date,
      synced_at,
      content_hash: null,
      individual_count: 1,
    });
    const receipt = {
      snapshot: {
        version: 'v',
        built_at: '2026-03-10T00:00:00Z',
        lists: [
          list('ofac_sdn', '2026-03-08'),
          list('un_sc', '2026-02-20'),
          list('uk_fcdo', null),
          list('world_leaders_pep', '2025-01-01'),
          list('eu_fsf', '2026-03-09', '2026-03-01T00:00:00Z'),
        ],
      },
      matcher: { version: 'm', config: {} },
    } as unknown as Parameters<typeof listsStaleAt>[0];
    const stale = listsStaleAt(receipt, ['sanctions'], '2026-03-10T12:00:00Z') ?? [];
    expect(stale.map((entry) => entry.id)).toEqual(['un_sc', 'uk_fcdo', 'eu_fsf']);
    expect(stale[0].reasons).toEqual(['published 18 days ago (limit 7)']);
    expect(stale[2].reasons[0]).toMatch(/^last synced 228 hours ago/);
    expect(listsStaleAt(receipt, ['pep'], '2026-03-10T12:00:00Z')?.map((entry) => entry.id)).toEqual([
      'world_leaders_pep',
    ]);
    expect(listsStaleAt(undefined, ['sanctions'], '2026-03-10T12:00:00Z')).toBeUndefined();
  });
});
