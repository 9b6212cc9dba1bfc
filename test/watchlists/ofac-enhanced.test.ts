import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { enhancedDate, OFAC_CONS_FILE, parseOfacEnhanced } from '../../lib/watchlists/ofac-enhanced.ts';
import { defaultDataDir } from '../../lib/watchlists/snapshot.ts';

const xml = readFileSync(join(defaultDataDir(), OFAC_CONS_FILE), 'utf8');
const parsed = parseOfacEnhanced(xml);
const byId = new Map(parsed.people.map((p) => [p.entity_id, p]));

describe('OFAC Enhanced XML (CONS_ENHANCED.XML, complete official file)', () => {
  it('keeps the 79 individuals of the 442 entities, dated by dataAsOf, as the non-SDN list', () => {
    expect(parsed.entityCount).toBe(442);
    expect(parsed.people).toHaveLength(79);
    expect(parsed.people.filter((p) => p.dobs.length)).toHaveLength(74);
    expect(parsed.sourceDate).toBe('2026-01-08');
    expect(new Set(parsed.people.map((p) => p.list_id))).toEqual(new Set(['ofac_cons']));
  });

  it('reads names given-names-first, aliases, year-only birth dates, places and programmes', () => {
    const haniya = byId.get('9639');
    expect(haniya?.primary_name).toBe('Ismail Abdul Salah HANIYA');
    expect(haniya?.names.map((n) => n.name)).toEqual([
      'Ismail Abdul Salah HANIYA',
      'Ismail HANIYA',
      'Ismaeel HANIYYA',
    ]);
    expect(haniya?.dobs).toEqual([{ kind: 'year', year: 1962 }]);
    expect(haniya?.locations).toEqual(['Shati']);
    expect(haniya?.programmes).toEqual(['NS-PLC']);
    expect(haniya?.listed_on).toBe('2006-04-12');
    expect(haniya?.shared_ids).toEqual(['ofac:9639']);
    const zahhar = byId.get('9647');
    expect(zahhar?.names).toContainEqual({ name: 'Mahmoud ZAHAR', strength: 'weak' });
    expect(zahhar?.nationalities).toEqual(['Palestinian']);
    expect(zahhar?.gender).toBe('Male');
    expect(zahhar?.remarks).toContain('SDN List');
  });

  it('reads an SDN_ENHANCED.XML file as the SDN list (same schema, SDN filter)', () => {
    const sdn = parseOfacEnhanced(
      xml.replace(
        '<sanctionsList refId="91512">Consolidated List</sanctionsList>',
        '<sanctionsList refId="1550">SDN List</sanctionsList>',
      ),
    );
    expect(sdn.people).toHaveLength(79);
    expect(new Set(sdn.people.map((p) => p.list_id))).toEqual(new Set(['ofac_sdn']));
  });

  it('turns valueDate spans into dates at their precision', () => {
    const span = (from: string, to: string, approximate = false) =>
      enhancedDate({ fromDateBegin: from, toDateEnd: to, isApproximate: String(approximate) });
    expect(span('1962-01-01', '1962-12-31')).toEqual({ kind: 'year', year: 1962 });
    expect(span('1970-05-09', '1970-05-09')).toEqual({ kind: 'date', date: '1970-05-09' });
    expect(span('1970-05-01', '1970-05-31')).toEqual({ kind: 'month', year: 1970, month: 5 });
    expect(span('1960-01-01', '1962-12-31')).toEqual({ kind: 'range', from: 1960, to: 1962 });
    expect(span('1958-01-01', '1958-12-31', true)).toEqual({ kind: 'year', year: 1958, approximate: true });
  });

  it('refuses a file in another schema', () => {
    expect(() => parseOfacEnhanced('<CONSOLIDATED_LIST/>')).toThrow(/sanctionsData/);
  });
});
