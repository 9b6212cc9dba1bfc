/**
 * A date of birth the listing agrees with never lowers a match below its level by name alone.
 * Many listings give only a year, several years or a range (UN, OFAC); a customer's date in one
 * of them matches only that far, and a common name's bearers born that year are many
 * (results.ts, the year rule). The year may then fail to lift the name, but it may not leave the
 * listed person LOW ("likely a different person") where the name alone is MEDIUM: a customer who
 * gives more of the truth must not get less of an alert.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { levelOn, matchOn } from '../../eval/classes.ts';
import { dateInside, variantsOf } from '../../eval/variants.ts';
import { createMatcher, type Matcher } from '../../lib/matcher/screen.ts';
import { loadSnapshot } from '../../lib/matcher/snapshot-file.ts';
import { riskRank } from '../../lib/matcher/types.ts';
import { perListPeople } from '../../lib/watchlists/linking.ts';
import type { ListedPerson, WatchlistSnapshot } from '../../lib/watchlists/types.ts';

let snapshot: WatchlistSnapshot;
let matcher: Matcher;
beforeAll(() => {
  snapshot = loadSnapshot();
  matcher = createMatcher(snapshot);
}, 120_000);

function listing(listId: string, entityId: string): ListedPerson {
  const person = perListPeople(snapshot).find((p) => p.list_id === listId && p.entity_id === entityId);
  if (!person) throw new Error(`${listId} ${entityId} is not listed`);
  return person;
}

describe('a date of birth the listing agrees with only by its year', () => {
  it('leaves "SARWAR, Muhammad" born 1966 MEDIUM on SARWAR, Muhammad, listed as born 1966-1968 (it had been LOW)', () => {
    const sarwar = listing('ofac_sdn', '21283');
    expect(levelOn(matcher, sarwar, 'SARWAR, Muhammad')).toBe('MEDIUM');
    const m = matchOn(matcher, sarwar, 'SARWAR, Muhammad', '1966-06-15');
    expect(m?.risk_level).toBe('MEDIUM');
    expect(m?.explanation.dob.detail).toContain('held at MEDIUM, the level by name alone');
    // A year outside the listed range still contradicts him.
    expect(riskRank(levelOn(matcher, sarwar, 'SARWAR, Muhammad', '1980-06-15'))).toBeLessThan(
      riskRank('MEDIUM'),
    );
  });

  it('leaves a listed name with its middle left out at its level by name alone: "Abu Hassan" born 1981 on HASSAN, Abu Yasir', () => {
    const abu = listing('ofac_sdn', '31373');
    expect(levelOn(matcher, abu, 'Abu HASSAN', '1981-06-15')).toBe(levelOn(matcher, abu, 'Abu HASSAN'));
  });

  it('never lowers any variant of 400 listed people dated only by year, month or range', () => {
    const people = perListPeople(snapshot)
      .filter((p) => p.dobs.length > 0 && p.dobs.every((d) => d.kind !== 'date'))
      .slice(0, 400);
    expect(people.length).toBe(400);
    const lowered: string[] = [];
    for (const p of people) {
      const date = dateInside(p.dobs[0]);
      if (date === undefined) continue;
      for (const [kind, name] of variantsOf(p)) {
        const alone = levelOn(matcher, p, name);
        const withDate = levelOn(matcher, p, name, date);
        if (riskRank(withDate) < riskRank(alone))
          lowered.push(`${kind} "${name}" ${date} on ${p.list_id} ${p.entity_id}: ${alone} → ${withDate}`);
      }
    }
    expect(lowered).toEqual([]);
  });
});
