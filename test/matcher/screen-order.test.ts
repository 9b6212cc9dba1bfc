/**
 * A screen's result is the subject's alone: it does not depend on what the same matcher screened
 * before. The candidate selector keeps each query part's evidence across screens
 * (lib/matcher/candidates.ts), keyed by the part's fields; two parts alike in text but read from
 * different scripts must not share it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { renderName } from '../../eval/renderings.ts';
import { createMatcher } from '../../lib/matcher/screen.ts';
import { loadSnapshot } from '../../lib/matcher/snapshot-file.ts';
import type { ScreenChecks } from '../../lib/matcher/types.ts';
import { CHECK_TYPES, type WatchlistSnapshot } from '../../lib/watchlists/types.ts';

let snapshot: WatchlistSnapshot;
beforeAll(() => {
  snapshot = loadSnapshot();
}, 120_000);

/** What an analyst sees of a screen: the level, and each match's listing, level and score. */
function seen(r: ScreenChecks): string {
  const matches = [
    ...(r.sanctions_result?.matches ?? []),
    ...(r.pep_result?.matches ?? []),
    ...(r.criminal_result?.interpol_hits ?? []),
    ...(r.criminal_result?.fbi_hits ?? []),
  ];
  return JSON.stringify([r.risk_level, matches.map((m) => [m.list_id, m.entity_id, m.risk_level, m.score])]);
}

describe('the order of screens', () => {
  it('"ג\'אק ריד" (Jack Reed in Hebrew) is MEDIUM on Senator Reed after "Τζακ Ριντ" (in Greek) as on its own', () => {
    const alone = createMatcher(snapshot).screen({ name: "ג'אק ריד" }, CHECK_TYPES);
    expect(alone.pep_result?.matches[0]?.entity_id).toBe('R000122');
    expect(alone.risk_level).toBe('MEDIUM');
    const matcher = createMatcher(snapshot);
    matcher.screen({ name: 'Τζακ Ριντ' }, CHECK_TYPES);
    expect(seen(matcher.screen({ name: "ג'אק ריד" }, CHECK_TYPES))).toBe(seen(alone));
  });

  it('gives every subject the same result screened in one order or the other', () => {
    // Listed names rendered into scripts whose readings share Latin texts (eval/renderings.ts).
    const congress = snapshot.people.filter((p) => p.list_id === 'us_congress_pep').slice(0, 60);
    const names = ['hebrew', 'arabic', 'greek', 'russian', 'persian', 'latvian'].flatMap((script) =>
      congress.map((p) =>
        renderName(p.names[0].name.split(/\s+/), script as Parameters<typeof renderName>[1], true),
      ),
    );
    const forward = createMatcher(snapshot);
    const there = names.map((name) => seen(forward.screen({ name }, CHECK_TYPES)));
    const backward = createMatcher(snapshot);
    const back = [...names].reverse().map((name) => seen(backward.screen({ name }, CHECK_TYPES)));
    back.reverse();
    const differing = names.filter((_, k) => there[k] !== back[k]);
    expect(differing).toEqual([]);
  }, 120_000);
});
