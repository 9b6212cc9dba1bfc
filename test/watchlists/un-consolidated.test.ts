import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normaliseCountry } from '../../lib/watchlists/countries.ts';
import { defaultDataDir } from '../../lib/watchlists/snapshot.ts';
import { parseUnConsolidated, UN_CONSOLIDATED_FILE } from '../../lib/watchlists/un-consolidated.ts';

const parsed = parseUnConsolidated(readFileSync(join(defaultDataDir(), UN_CONSOLIDATED_FILE)));
const byReference = new Map(parsed.people.map((p) => [p.reference, p]));

describe('UN consolidated list', () => {
  it('keeps the 730 individuals and counts all 1,003 records', () => {
    expect(parsed.people).toHaveLength(730);
    expect(parsed.entityCount).toBe(1003);
  });

  it('takes the list date from dateGenerated', () => {
    expect(parsed.sourceDate).toBe('2026-02-27');
  });

  it('reads a person with good and low-quality aliases and two exact DOBs', () => {
    const mpamo = byReference.get('CDi.011');
    expect(mpamo?.entity_id).toBe('6908002');
    expect(mpamo?.names).toEqual([
      { name: 'IRUTA DOUGLAS MPAMO', strength: 'primary' },
      { name: 'Douglas Iruta Mpamo', strength: 'strong' },
      { name: 'Mpano', strength: 'weak' },
    ]);
    expect(mpamo?.dobs).toEqual([
      { kind: 'date', date: '1965-12-28' },
      { kind: 'date', date: '1965-12-29' },
    ]);
    expect(mpamo?.nationalities).toEqual(['Democratic Republic of the Congo']);
    expect(mpamo?.locations).toEqual(expect.arrayContaining(['Goma', 'Rwanda']));
    expect(mpamo?.programmes).toEqual(['DRC']);
    expect(mpamo?.listed_on).toBe('2005-11-01');
  });

  it('reads BETWEEN years as a range and APPROXIMATELY as an approximate year', () => {
    const taganda = parsed.people.find((p) => p.entity_id === '6908021');
    expect(taganda?.dobs).toEqual([{ kind: 'range', from: 1973, to: 1974 }]);
    const mujyambere = byReference.get('CDi.014');
    expect(mujyambere?.dobs).toEqual([
      { kind: 'date', date: '1962-03-17' },
      { kind: 'year', year: 1966, approximate: true },
    ]);
  });

  it('adds the name in original script as a name of the person', () => {
    const withScript = parsed.people.filter((p) => p.names.some((n) => /[\u0370-\uffff]/.test(n.name)));
    expect(withScript.length).toBeGreaterThan(300);
  });

  it('counts 615 low-quality aliases as weak, as the README states', () => {
    const weak = parsed.people.reduce(
      (sum, p) => sum + p.names.filter((n) => n.strength === 'weak').length,
      0,
    );
    expect(weak).toBe(615);
  });

  it('states nationalities the country table understands', () => {
    const stated = new Set(parsed.people.flatMap((p) => p.nationalities));
    expect([...stated].filter((n) => !normaliseCountry(n))).toEqual([]);
  });
});
