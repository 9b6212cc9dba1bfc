import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FBI_WANTED_FILES,
  parseFbiDobs,
  parseFbiWanted,
  posterName,
  splitAliases,
} from '../../lib/watchlists/fbi-wanted.ts';
import { defaultDataDir } from '../../lib/watchlists/snapshot.ts';

const read = (path: string) => readFileSync(join(defaultDataDir(), path));
const parsed = parseFbiWanted({ csv: read(FBI_WANTED_FILES.csv), apiPage: read(FBI_WANTED_FILES.apiPage) });
const named = (name: string) => parsed.people.filter((p) => p.names.some((n) => n.name === name));

describe('FBI wanted posters', () => {
  it('counts every distinct poster and keeps wanted people only', () => {
    // 1,024 CSV rows + 20 API items, 33 posters in both.
    expect(parsed.entityCount).toBe(1011);
    expect(parsed.people.length).toBeGreaterThan(400);
    expect(parsed.people.length).toBeLessThan(parsed.entityCount / 2);
    expect(parsed.sourceDate).toBe('2023-12-07');
  });

  it('excludes ViCAP missing persons, victims and unidentified people', () => {
    expect(named('LAURIE JEAN DEPIES')).toEqual([]); // missing since 1992, no subject
    expect(named('STEPHANIE MARIE GANT-BRADY')).toEqual([]); // ViCAP Missing Persons (API page)
    expect(named('PRESTON LORD')).toEqual([]); // "Homicide Victim", Seeking Information
    expect(named('NATALEE ANN HOLLOWAY')).toEqual([]); // disappearance, Seeking Information
    expect(named('MCKENNA BUTCHER')).toEqual([]);
    const subjects = new Set(parsed.people.flatMap((p) => p.programmes));
    expect([...subjects].some((s) => /ViCAP|Missing Persons|Victim/.test(s))).toBe(false);
    expect(parsed.people.some((p) => /UNKNOWN|JOHN DOE|JANE DOE|HOMICIDE|ROBBER/.test(p.primary_name))).toBe(
      false,
    );
  });

  it('reads a fugitive with several DOBs and aliases', () => {
    const [brown] = named('JASON DEREK BROWN');
    expect(brown.dobs).toEqual([
      { kind: 'date', date: '1969-07-01' },
      { kind: 'date', date: '1971-01-17' },
    ]);
    expect(brown.names.map((n) => n.name)).toEqual(
      expect.arrayContaining(['Jason D. Brown', 'Derek Brown', 'Greg Harline Johnson']),
    );
    expect(brown.programmes).toContain(
      'Unlawful Flight to Avoid Prosecution - First Degree Murder, Armed Robbery',
    );
  });

  it('keeps named terrorism suspects sought for information', () => {
    const [haqqani] = named('SIRAJUDDIN HAQQANI');
    expect(haqqani.dobs).toEqual([{ kind: 'range', from: 1973, to: 1980 }]);
    expect(haqqani.programmes).toContain('Seeking Information - Terrorism');
  });

  it('takes posters of the API page with their URL and a demonym as a country', () => {
    const [livshits] = named('BORIS YAKOVLEVICH LIVSHITS');
    expect(livshits.url).toBe('https://www.fbi.gov/wanted/counterintelligence/boris-yakovlevich-livshits');
    expect(livshits.entity_id).toBe(livshits.url);
    expect(livshits.nationalities).toEqual(['Russia']);
  });

  it('gives CSV posters a stable id', () => {
    const again = parseFbiWanted({ csv: read(FBI_WANTED_FILES.csv) });
    const [brown] = again.people.filter((p) => p.primary_name === 'JASON DEREK BROWN');
    expect(brown.entity_id).toMatch(/^fbi-[0-9a-f]{16}$/);
    expect(brown.entity_id).toBe(named('JASON DEREK BROWN')[0].entity_id);
  });
});

describe('FBI poster fields', () => {
  it('strips the city suffix from titles', () => {
    expect(posterName('MARGARET ANN SNIEGOWSKI JR. - BOONE COUNTY, INDIANA')).toBe(
      'MARGARET ANN SNIEGOWSKI JR.',
    );
    expect(posterName('JOHN DOE - WATERLOO TOWNSHIP, MICHIGAN')).toBe('JOHN DOE');
    expect(posterName('JAMES ARTHUR MCDONALD, JR.')).toBe('JAMES ARTHUR MCDONALD, JR.');
  });

  it('keeps "Jr." with its alias', () => {
    expect(splitAliases('Jeffrey Dean McDaniel, Jr., Jeffrey D. McDaniel')).toEqual([
      'Jeffrey Dean McDaniel, Jr.',
      'Jeffrey D. McDaniel',
    ]);
  });

  it('reads DOBs whose own commas the CSV join leaves in', () => {
    expect(parseFbiDobs(['November 26, 2003, November 26, 2004'])).toEqual([
      { kind: 'date', date: '2003-11-26' },
      { kind: 'date', date: '2004-11-26' },
    ]);
    expect(parseFbiDobs(['1974'])).toEqual([{ kind: 'year', year: 1974 }]);
    expect(parseFbiDobs(['Approximately 1970 to 1971'])).toEqual([{ kind: 'range', from: 1970, to: 1971 }]);
  });
});
