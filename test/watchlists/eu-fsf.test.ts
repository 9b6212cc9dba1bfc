import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EU_FSF_DERIVED_FILE, parseEuFsfDerived, parseEuFsfXml } from '../../lib/watchlists/eu-fsf.ts';
import { defaultDataDir } from '../../lib/watchlists/snapshot.ts';

const read = (path: string) => readFileSync(join(defaultDataDir(), path));

describe('EU FSF XML 1.1 (the official format, on the real format excerpt)', () => {
  const parsed = parseEuFsfXml(read('sanctions/eu_fsf_format_sample/sample_eu.xml'));
  const byRef = new Map(parsed.people.map((p) => [p.entity_id, p]));

  it('reads every person once (the excerpt repeats one reference number) and the generation date', () => {
    expect(parsed.sourceDate).toBe('2020-04-15');
    expect(parsed.entityCount).toBe(6);
    expect(parsed.people).toHaveLength(6);
  });

  it('reads names, exact and circa dates of birth, places, citizenship and the programme', () => {
    const zeid = byRef.get('EU.2026.82');
    expect(zeid?.primary_name).toBe('Amor Mohamed Ghedeir');
    expect(zeid?.names.map((n) => n.name)).toEqual(
      expect.arrayContaining(['Abid Hammadou', 'Abdelhamid Abou Zeid', 'Youcef Adel']),
    );
    expect(zeid?.dobs).toEqual([
      { kind: 'date', date: '1965-12-12' },
      { kind: 'year', year: 1958, approximate: true },
    ]);
    expect(zeid?.nationalities).toEqual(['Algeria']);
    expect(zeid?.locations).toContain('Touggourt, Wilaya (province) of Ouargla');
    expect(zeid?.programmes).toEqual(['TAQA']);
    expect(zeid?.listed_on).toBe('2008-07-03');
    expect(zeid?.remarks).toContain('Reportedly deceased');
  });

  it('refuses a file that is not an FSF export', () => {
    expect(() => parseEuFsfXml('<CONSOLIDATED_LIST/>')).toThrow(/export/);
  });
});

describe('EU FSF transcription (bundled, 2026-05-01)', () => {
  const parsed = parseEuFsfDerived(read(EU_FSF_DERIVED_FILE));
  const byRef = new Map(parsed.people.map((p) => [p.entity_id, p]));

  it('keeps the 4,341 persons of the 5,860 entities, dated by the fetch', () => {
    expect(parsed.entityCount).toBe(5860);
    expect(parsed.people).toHaveLength(4341);
    expect(parsed.people.filter((p) => p.dobs.length)).toHaveLength(3668);
    expect(parsed.sourceDate).toBe('2026-05-01');
  });

  it('reads a person the same way as the XML: names in every script, partial dates, UN reference', () => {
    const rajab = byRef.get('EU.10072.9');
    expect(rajab?.names.map((n) => n.name)).toEqual(
      expect.arrayContaining(['Maulawi Rajab Salahudin', 'Maulawi Rajab']),
    );
    expect(rajab?.dobs).toEqual([{ kind: 'year', year: 1976 }]);
    expect(rajab?.nationalities).toEqual(['Afghanistan']);
    expect(rajab?.programmes).toEqual(['TAQA']);
    expect(rajab?.shared_ids).toEqual(['un:QDI.43']);
    expect(rajab?.remarks).toMatch(/Function: Senior leader/);
    const tsivilyova = parsed.people.find((p) => p.names.some((n) => n.name === 'Анна Евгеньевна ЦИВИЛЁВА'));
    expect(tsivilyova?.dobs).toEqual([{ kind: 'date', date: '1972-05-09' }]);
    expect(tsivilyova?.programmes).toEqual(['UKR']);
  });
});
