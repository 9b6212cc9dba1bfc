import { describe, expect, it } from 'vitest';
import { parseInterpolRedNotices } from '../../lib/watchlists/interpol-red-notices.ts';
import { defaultDataDir } from '../../lib/watchlists/snapshot.ts';
import { readInterpolFiles } from '../../lib/watchlists/sources.ts';

const files = readInterpolFiles(defaultDataDir());
const parsed = parseInterpolRedNotices(files);
const byId = new Map(parsed.people.map((p) => [p.entity_id, p]));

describe('INTERPOL red notices', () => {
  it('merges the 7,974 rows of 203 files into 6,010 unique notices', () => {
    expect(files).toHaveLength(203);
    expect(parsed.entityCount).toBe(6010);
    expect(parsed.people).toHaveLength(6009);
  });

  it('does not screen the one notice published without a name', () => {
    expect(byId.has('2015/80480')).toBe(false);
    expect(parsed.people.every((p) => p.primary_name.length > 0 && p.names.length > 0)).toBe(true);
  });

  it('reads name, DOB, nationality as a country name and the notice link', () => {
    const notice = byId.get('2013/4157');
    expect(notice?.primary_name).toBe('WYHRI AL-QUBAISI');
    expect(notice?.dobs).toEqual([{ kind: 'date', date: '1971-07-02' }]);
    expect(notice?.nationalities).toEqual(['United Arab Emirates']);
    expect(notice?.url).toBe('https://ws-public.interpol.int/notices/v1/red/2013-4157');
  });

  it('combines the nationalities of a notice listed under several countries', () => {
    const multi = parsed.people.filter((p) => p.nationalities.length > 1);
    expect(multi.length).toBeGreaterThan(100);
  });

  it('keeps a notice without a DOB', () => {
    expect(byId.get('2004/36833')?.dobs).toEqual([]);
  });

  it('reads year-only DOBs as years', () => {
    const yearOnly = parsed.people.filter((p) => p.dobs.some((d) => d.kind === 'year'));
    expect(yearOnly).toHaveLength(147);
  });
});
