import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDataDir } from '../../lib/watchlists/snapshot.ts';
import { parseUkFcdoDerived, parseUkFcdoXml, UK_FCDO_DERIVED_FILE } from '../../lib/watchlists/uk-fcdo.ts';

const fixture = readFileSync(new URL('./fixtures/uk-fcdo-sample.xml', import.meta.url));

describe('UK Sanctions List XML (official format, fixture built from its element names)', () => {
  const parsed = parseUkFcdoXml(fixture);
  const [putin, alNuaymi] = parsed.people;

  it('keeps individuals, counts every designation and reads DateGenerated', () => {
    expect(parsed.entityCount).toBe(3);
    expect(parsed.people.map((p) => p.entity_id)).toEqual(['RUS0251', 'AQD0001']);
    expect(parsed.sourceDate).toBe('2026-08-22');
  });

  it('reads the nested individual details: DOBs (with dd/mm placeholders), nationality, birthplace, position', () => {
    expect(putin.primary_name).toBe('Vladimir Vladimirovich PUTIN');
    expect(putin.names.map((n) => n.name)).toContain('владимир владимирович путин');
    expect(putin.dobs).toEqual([{ kind: 'date', date: '1952-10-07' }]);
    expect(putin.nationalities).toEqual(['Russia']);
    expect(putin.locations).toEqual(['St Petersburg (then Leningrad)', 'Russia', 'Moscow']);
    expect(putin.programmes).toEqual(['The Russia (Sanctions) (EU Exit) Regulations 2019']);
    expect(putin.listed_on).toBe('2022-02-25');
    expect(putin.gender).toBe('Male');
    expect(putin.remarks).toMatch(/^Position: President of the Russian Federation/);
    expect(putin.shared_ids).toEqual(['ofsi:14196']);
    expect(alNuaymi.dobs).toEqual([{ kind: 'year', year: 1954 }]);
    expect(alNuaymi.shared_ids).toEqual(['un:QDI.334', 'ofsi:13131']);
  });

  it('folds the NameType spellings and keeps low-quality aliases weak', () => {
    expect(alNuaymi.names).toEqual([
      { name: "ABD AL-RAHMAN BIN UMAYR AL-NU'AYMI", strength: 'primary' },
      { name: 'Abdulrahman Omair al Neaimi', strength: 'strong' },
      { name: 'A. Rahman al-Naimi', strength: 'weak' },
    ]);
  });

  it('accepts non-Latin names with or without the NonLatinName level', () => {
    const flat = fixture
      .toString('utf8')
      .replace(
        /<NonLatinNames>\s*<NonLatinName>\s*(<NameNonLatinScript>[^<]*<\/NameNonLatinScript>)\s*<\/NonLatinName>\s*<\/NonLatinNames>/,
        '$1',
      );
    expect(flat).not.toContain('<NonLatinNames>');
    expect(parseUkFcdoXml(flat).people[0].names.map((n) => n.name)).toContain('владимир владимирович путин');
  });

  it('refuses a file that is not the UK Sanctions List', () => {
    expect(() => parseUkFcdoXml('<export/>')).toThrow(/Designations/);
  });
});

describe('UK Sanctions List transcription (bundled, 2026-08-22)', () => {
  const parsed = parseUkFcdoDerived(readFileSync(join(defaultDataDir(), UK_FCDO_DERIVED_FILE)));

  it('keeps the 4,036 individuals of the 6,349 designation files; no dates of birth at all', () => {
    expect(parsed.entityCount).toBe(6349);
    expect(parsed.people).toHaveLength(4036);
    expect(parsed.people.filter((p) => p.dobs.length || p.nationalities.length)).toHaveLength(0);
    expect(parsed.sourceDate).toBe('2026-08-22');
  });

  it('reads the same fields as the XML and carries the OFSI group and UN reference', () => {
    const putin = parsed.people.find((p) => p.entity_id === 'RUS0251');
    expect(putin?.names.map((n) => n.name)).toEqual([
      'Vladimir Vladimirovich PUTIN',
      'Vladimir Putin',
      'владимир владимирович путин',
    ]);
    expect(putin?.shared_ids).toEqual(['ofsi:14196']);
    const alNuaymi = parsed.people.find((p) => p.entity_id === 'AQD0001');
    expect(alNuaymi?.shared_ids).toEqual(['un:QDI.334', 'ofsi:13131']);
    expect(parsed.people.filter((p) => p.shared_ids?.some((id) => id.startsWith('ofsi:')))).toHaveLength(
      3852,
    );
  });
});
