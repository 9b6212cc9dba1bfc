import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normaliseCountry } from '../../lib/watchlists/countries.ts';
import { defaultDataDir } from '../../lib/watchlists/snapshot.ts';
import { parseUkOfsi, splitNumbered, UK_OFSI_FILE } from '../../lib/watchlists/uk-ofsi.ts';

const parsed = parseUkOfsi(readFileSync(join(defaultDataDir(), UK_OFSI_FILE)));
const byGroup = new Map(parsed.people.map((p) => [p.entity_id, p]));

describe('UK OFSI consolidated list', () => {
  it('keeps the 3,662 individual groups of the 4,686 designations', () => {
    expect(parsed.people).toHaveLength(3662);
    expect(parsed.entityCount).toBe(4686);
  });

  it('takes the list date from cell B1', () => {
    expect(parsed.sourceDate).toBe('2025-04-10');
  });

  it('groups a person listed on five name rows, primary name with the surname last', () => {
    const haq = byGroup.get('15672');
    expect(haq?.primary_name).toBe('Mian Abdul HAQ');
    expect(haq?.names).toEqual([
      { name: 'Mian Abdul HAQ', strength: 'primary' },
      { name: 'Mian MITHOO', strength: 'strong' },
      { name: 'Mian MITHU', strength: 'strong' },
      { name: 'Mian MITTO', strength: 'strong' },
      { name: 'Mian MITTU', strength: 'strong' },
    ]);
    expect(haq?.reference).toBe('GHR0086');
    expect(haq?.programmes).toEqual(['Global Human Rights']);
    expect(haq?.listed_on).toBe('2022-12-09');
  });

  it('carries its Group ID as the shared id the FCDO designation quotes, so the two link', () => {
    expect(byGroup.get('15672')?.shared_ids).toEqual(['ofsi:15672']);
    expect(parsed.people.every((p) => p.shared_ids?.includes(`ofsi:${Number(p.entity_id)}`))).toBe(true);
  });

  it('splits numbered nationalities and keeps the non-Latin name', () => {
    const abramovich = byGroup.get('14212');
    expect(abramovich?.nationalities).toEqual(['Russia', 'Israel', 'Portugal']);
    expect(abramovich?.names.map((n) => n.name)).toContain('Роман Аркадьевич АБРАМОВИЧ');
    expect(abramovich?.dobs).toEqual([{ kind: 'date', date: '1966-10-24' }]);
    expect(abramovich?.locations).toEqual(expect.arrayContaining(['Saratov', 'Russia']));
  });

  it('reads DOBs with unknown parts without inventing a day or month', () => {
    const kinds = new Set(parsed.people.flatMap((p) => p.dobs.map((d) => d.kind)));
    expect(kinds).toEqual(new Set(['date', 'month', 'year']));
    const yearOnly = parsed.people.filter((p) => p.dobs.some((d) => d.kind === 'year')).length;
    expect(yearOnly).toBeGreaterThan(500);
  });

  it('marks low-quality aliases weak', () => {
    const weak = parsed.people.some((p) => p.names.some((n) => n.strength === 'weak'));
    expect(weak).toBe(true);
  });

  it('states nationalities the country table understands', () => {
    const stated = new Set(parsed.people.flatMap((p) => p.nationalities));
    expect([...stated].filter((n) => !normaliseCountry(n))).toEqual([]);
  });
});

describe('OFSI numbered cells', () => {
  it('splits "(1) Russia. (2) Syria" and drops placeholders', () => {
    expect(splitNumbered('(1) Russia. (2) Syria')).toEqual(['Russia', 'Syria']);
    expect(splitNumbered('(1) Bengasi (2) Bendasi (3) - (4) -')).toEqual(['Bengasi', 'Bendasi']);
    expect(splitNumbered('Pakistan')).toEqual(['Pakistan']);
  });
});
