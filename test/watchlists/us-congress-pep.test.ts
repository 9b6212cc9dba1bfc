import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formerTier, plausiblyAlive } from '../../lib/watchlists/pep-tiers.ts';
import { defaultDataDir } from '../../lib/watchlists/snapshot.ts';
import {
  congressRole,
  parseUsCongressPep,
  parseUsExecutivePep,
  US_CONGRESS_FILES,
  US_EXECUTIVE_FILE,
} from '../../lib/watchlists/us-congress-pep.ts';

const read = (path: string) => readFileSync(join(defaultDataDir(), path));
const congress = parseUsCongressPep({
  current: read(US_CONGRESS_FILES.current),
  historical: read(US_CONGRESS_FILES.historical),
});
const executive = parseUsExecutivePep(read(US_EXECUTIVE_FILE));
const member = (id: string) => congress.people.find((p) => p.entity_id === id);
const officeHolder = (name: string) => executive.people.find((p) => p.primary_name === name);

describe('US Congress PEPs', () => {
  it('makes all 537 sitting members tier 1 legislators', () => {
    const tier1 = congress.people.filter((p) => p.pep?.tier === 1);
    expect(tier1).toHaveLength(537);
    expect(tier1.every((p) => p.pep?.category === 'legislator' && p.dobs.length === 1)).toBe(true);
    expect(congress.entityCount).toBe(537 + 12230);
  });

  it('describes a current senator with the start of unbroken service', () => {
    const sanders = member('S000033');
    expect(sanders?.primary_name).toBe('Bernard Sanders');
    expect(sanders?.names.map((n) => n.name)).toContain('Bernie Sanders');
    expect(sanders?.pep).toEqual({
      tier: 1,
      current: true,
      as_of: '2026-06-15',
      category: 'legislator',
      position: 'U.S. Senator for Vermont (2007–present)',
      since: '2007-01-04',
    });
    expect(sanders?.dobs).toEqual([{ kind: 'date', date: '1941-09-08' }]);
    expect(sanders?.nationalities).toEqual(['United States']);
  });

  it('keeps plausibly living former members as tier 3 and drops those born over 100 years before the data', () => {
    const former = congress.people.filter((p) => p.pep?.tier !== 1);
    expect(former.length).toBeGreaterThan(1000);
    expect(former.every((p) => p.pep?.tier === 3 && p.pep.position.startsWith('Former '))).toBe(true);
    expect(member('B000226')).toBeUndefined(); // Richard Bassett, born 1745
    expect(member('C001127')?.pep?.position).toBe("Former U.S. Representative for Florida's 20th district");
  });
});

describe('US Presidents and Vice Presidents', () => {
  it('makes the sitting President and Vice President tier 1', () => {
    expect(officeHolder('Donald J. Trump')?.pep).toMatchObject({
      tier: 1,
      category: 'head_of_state',
      since: '2025-01-20',
    });
    expect(officeHolder('J.D. Vance')?.pep).toMatchObject({ tier: 1, category: 'head_of_government_deputy' });
  });

  it('makes those who left within five years tier 2 and earlier ones tier 3', () => {
    expect(officeHolder('Joseph Robinette Biden Jr.')?.pep).toMatchObject({
      tier: 2,
      current: false,
      until: '2025-01-20',
    });
    expect(officeHolder('Kamala D. Harris')?.pep?.tier).toBe(2);
    expect(officeHolder('Barack Hussein Obama')?.pep).toMatchObject({ tier: 3, category: 'head_of_state' });
  });

  it('does not screen office holders born over 100 years before the data', () => {
    expect(executive.entityCount).toBe(80);
    expect(executive.people.find((p) => p.primary_name.includes('Carter'))).toBeUndefined();
    expect(executive.people.find((p) => p.primary_name.includes('Lincoln'))).toBeUndefined();
  });
});

describe('PEP tier rule', () => {
  it('counts five years from leaving office', () => {
    expect(formerTier('2021-06-15', '2026-06-15')).toBe(2);
    expect(formerTier('2021-06-14', '2026-06-15')).toBe(3);
    expect(formerTier(undefined, '2026-06-15')).toBe(3);
  });

  it('presumes people over 100 or without a birth date deceased', () => {
    expect(plausiblyAlive('1926-06-16', '2026-06-15')).toBe(true);
    expect(plausiblyAlive('1926-06-15', '2026-06-15')).toBe(false);
    expect(plausiblyAlive('', '2026-06-15')).toBe(false);
  });

  it('names House seats the way Congress does', () => {
    expect(congressRole('rep', 'VT', 0)).toBe('U.S. Representative for Vermont (at-large)');
    expect(congressRole('rep', 'CA', 12)).toBe("U.S. Representative for California's 12th district");
    expect(congressRole('rep', 'NY', 11)).toBe("U.S. Representative for New York's 11th district");
    expect(congressRole('rep', 'DC', 0)).toBe('Delegate to the U.S. House for the District of Columbia');
  });
});
