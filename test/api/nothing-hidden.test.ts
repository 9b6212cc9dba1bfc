/**
 * Nothing hidden (issue 39): a check whose matches were cut to the strongest says so in its
 * narrative, and a screen made on stale lists carries `lists_stale`, through the local stack.
 */
import { describe, expect, it } from 'vitest';
import { listsStaleAt } from '../../lib/screening/lists-stale.ts';
import { narrativeOfCut } from '../../lib/screening/match-narrative.ts';
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
