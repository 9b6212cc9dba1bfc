import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDataDir } from '../../lib/watchlists/snapshot.ts';
import { parseWikidataPep, WIKIDATA_PEP_FILES } from '../../lib/watchlists/wikidata-pep.ts';
import {
  extractWorldLeaders,
  officeCategory,
  parseWorldLeaders,
  WORLD_LEADERS_FILE,
} from '../../lib/watchlists/world-leaders.ts';

const read = (path: string) => readFileSync(join(defaultDataDir(), path));

describe('world leaders (CIA, 2019-06-04; name, office and country extracted by this project)', () => {
  const shipped = read(WORLD_LEADERS_FILE);
  const parsed = parseWorldLeaders(shipped);

  it('has one person per country and name, all current on the data date', () => {
    expect(parsed.entityCount).toBe(5775);
    expect(parsed.people).toHaveLength(5348);
    expect(
      parsed.people.every((p) => p.pep?.tier === 1 && p.pep.current && p.pep.as_of === '2019-06-04'),
    ).toBe(true);
    expect(parsed.sourceDate).toBe('2019-06-04');
  });

  it('names the office, country and category', () => {
    const putin = parsed.people.find((p) => p.entity_id === 'Russia|Vladimir Vladimirovich PUTIN');
    expect(putin?.pep).toMatchObject({ category: 'head_of_state', country: 'Russia' });
    expect(putin?.programmes).toEqual(['President (Russia)']);
    expect(putin?.nationalities).toEqual(['Russia']);
    expect(officeCategory('Prime Minister')).toBe('head_of_government');
    expect(officeCategory('Deputy Prime Minister')).toBe('head_of_government_deputy');
    expect(officeCategory('Governor of the Central Bank')).toBe('central_bank');
    expect(officeCategory('Minister of Finance')).toBe('minister');
    expect(officeCategory('President of the Senate')).toBe('senior_official');
  });

  it('keeps an "(a.k.a. …)" out of the primary name, as a strong alias of its own', () => {
    const lee = parsed.people.find((p) => p.entity_id === 'Taiwan|LEE Ta-wei (a.k.a. David LEE)');
    expect(lee?.primary_name).toBe('LEE Ta-wei');
    expect(lee?.names).toEqual([
      { name: 'LEE Ta-wei', strength: 'primary' },
      { name: 'David LEE', strength: 'strong' },
    ]);
    expect(parsed.people.filter((p) => p.names.some((n) => /a\.k\.a/i.test(n.name)))).toEqual([]);
  });

  // The extraction script's input is not shipped (its repository grants no licence); where the
  // shared data is beside the repository, re-extracting must give the shipped file exactly.
  const zip = join(defaultDataDir(), '../../shared/data/pep/cia_world_leaders_2019/json.zip');
  const sharedZip = existsSync(zip) ? zip : '/work/shared/data/pep/cia_world_leaders_2019/json.zip';
  it.skipIf(!existsSync(sharedZip))('is exactly what the extraction script makes of the conversion', () => {
    expect(extractWorldLeaders(readFileSync(sharedZip))).toBe(shipped.toString('utf8'));
  });
});

describe('office holders of international bodies (Wikidata, 2023-01-10)', () => {
  const parsed = parseWikidataPep({
    bio: read(WIKIDATA_PEP_FILES.bio),
    legislators: read(WIKIDATA_PEP_FILES.legislators),
    leaders: read(WIKIDATA_PEP_FILES.leaders),
  });
  const byName = (name: string) => parsed.people.find((p) => p.primary_name === name);

  it('keeps living office holders with their tier and current flag', () => {
    expect(parsed.entityCount).toBe(3764);
    expect(parsed.people).toHaveLength(3424);
    expect(byName('António Guterres')?.pep).toMatchObject({
      tier: 1,
      current: true,
      category: 'international_organisation_leader',
      position: 'Secretary-General of the United Nations (2017–present)',
    });
    expect(byName('António Guterres')?.dobs).toEqual([{ kind: 'date', date: '1949-04-30' }]);
    expect(byName('Ban Ki-moon')?.pep).toMatchObject({ tier: 3, current: false, until: '2017-01-01' });
  });

  it('leaves out people with a date of death', () => {
    expect(byName('Kofi Annan')).toBeUndefined();
    expect(byName('Jakob Graf zu Eltz')).toBeUndefined();
  });
});
