import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normaliseCountry } from '../../lib/watchlists/countries.ts';
import { OFAC_SDN_FILES, parseOfacDob, parseOfacSdn } from '../../lib/watchlists/ofac-sdn.ts';
import { defaultDataDir } from '../../lib/watchlists/snapshot.ts';

const read = (path: string) => readFileSync(join(defaultDataDir(), path));
const completeSet = {
  sdn: read(OFAC_SDN_FILES.sdn),
  alt: read(OFAC_SDN_FILES.alt),
  add: read(OFAC_SDN_FILES.add),
  comments: read(OFAC_SDN_FILES.comments),
};
const set2021 = parseOfacSdn(completeSet);
const shipped = parseOfacSdn({ ...completeSet, newerSdn: read(OFAC_SDN_FILES.newerSdn) });
const byId2021 = new Map(set2021.people.map((p) => [p.entity_id, p]));
const byIdShipped = new Map(shipped.people.map((p) => [p.entity_id, p]));

describe('OFAC SDN complete 2021 set', () => {
  it('keeps the 4,620 individuals of the 8,976 records', () => {
    expect(set2021.entityCount).toBe(8976);
    expect(set2021.people).toHaveLength(4620);
  });

  it('reads DOBs from remarks, aliases from alt.csv and places from add.csv and the POB', () => {
    const nasrallah = byId2021.get('2686');
    expect(nasrallah?.primary_name).toBe('NASRALLAH, Hasan');
    expect(nasrallah?.names).toContainEqual({ name: 'NASRALLAH, Hasan Abd-al-Karim', strength: 'strong' });
    expect(nasrallah?.dobs).toEqual([
      { kind: 'date', date: '1960-08-31' },
      { kind: 'date', date: '1953-08-31' },
      { kind: 'date', date: '1955-08-31' },
      { kind: 'date', date: '1958-08-31' },
    ]);
    expect(nasrallah?.programmes).toEqual(['SDGT', 'SYRIA']);
    expect(nasrallah?.locations).toEqual(expect.arrayContaining(['Al Basuriyah', 'Lebanon']));
    expect(nasrallah?.gender).toBe('Male');
  });

  it('joins a remark continued in sdn_comments.csv mid-word', () => {
    const tian = byId2021.get('28263');
    expect(tian?.names.map((n) => n.name)).toContain('snowsjohn');
    expect(tian?.programmes).toEqual(['DPRK3', 'CYBER2']);
  });

  it('keeps a circa year as approximate', () => {
    expect(byId2021.get('7782')?.dobs).toEqual([{ kind: 'year', year: 1951, approximate: true }]);
  });

  it('skips the Ctrl-Z line and never yields an empty name', () => {
    expect(
      set2021.people.every(
        (p) => p.primary_name.length > 1 && !p.primary_name.includes(String.fromCharCode(0x1a)),
      ),
    ).toBe(true);
  });
});

describe('OFAC DOB statements', () => {
  it.each([
    ['31 Aug 1960', { kind: 'date', date: '1960-08-31' }],
    ['Aug 1960', { kind: 'month', year: 1960, month: 8 }],
    ['1960', { kind: 'year', year: 1960 }],
    ['circa 1958', { kind: 'year', year: 1958, approximate: true }],
    ['circa 01 Jan 1958', { kind: 'date', date: '1958-01-01', approximate: true }],
    ['1960 to 1962', { kind: 'range', from: 1960, to: 1962 }],
    ['01 Jan 1960 to 31 Dec 1962', { kind: 'range', from: 1960, to: 1962 }],
    ['circa 1970-1972', { kind: 'range', from: 1970, to: 1972 }],
    [': 10 October 1960', { kind: 'date', date: '1960-10-10' }],
  ])('reads "%s"', (text, expected) => {
    expect(parseOfacDob(text)).toEqual(expected);
  });

  it('refuses an impossible date rather than inventing one', () => {
    expect(parseOfacDob('31 Feb 1960')).toEqual({ kind: 'month', year: 1960, month: 2 });
  });
});

describe('OFAC SDN as shipped (2024-05-03 membership)', () => {
  it('keeps the 6,854 individuals of the 14,965 records of the 2024 file', () => {
    expect(shipped.entityCount).toBe(14965);
    expect(shipped.people).toHaveLength(6854);
  });

  it('adds people designated after 2021 with the aliases of their remarks', () => {
    const mehmood = byIdShipped.get('40076');
    expect(byId2021.has('40076')).toBe(false);
    expect(mehmood?.primary_name).toBe('MEHMOOD, Osama');
    expect(mehmood?.names.map((n) => n.name)).toEqual([
      'MEHMOOD, Osama',
      'Abu Zar',
      'Atta Ullah',
      'Zar Wali',
    ]);
    expect(mehmood?.dobs).toEqual([{ kind: 'date', date: '1980-09-02' }]);
    // OFAC gives its strong aliases as name records; those in the remarks are its weak ones.
    expect(mehmood?.names.slice(1).map((n) => n.strength)).toEqual(['weak', 'weak', 'weak']);
  });

  it('keeps the 2021 alternate names for people on both lists', () => {
    expect(byIdShipped.get('2686')?.names).toContainEqual({
      name: 'NASRALLAH, Hasan Abd-al-Karim',
      strength: 'strong',
    });
  });

  it('drops people delisted between the two files', () => {
    const delisted = set2021.people.filter((p) => !byIdShipped.has(p.entity_id));
    expect(delisted.length).toBeGreaterThan(0);
    expect(shipped.people.length).toBe(set2021.people.length - delisted.length + 2725);
  });

  it('states nationalities the country table understands', () => {
    const stated = new Set(shipped.people.flatMap((p) => p.nationalities));
    const unknown = [...stated].filter((n) => !normaliseCountry(n));
    expect(unknown).toEqual([]);
  });
});
