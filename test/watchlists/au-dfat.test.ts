import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AU_DFAT_FILE, dfatTextDates, parseAuDfat } from '../../lib/watchlists/au-dfat.ts';
import { defaultDataDir } from '../../lib/watchlists/snapshot.ts';

const parsed = parseAuDfat(readFileSync(join(defaultDataDir(), AU_DFAT_FILE)));
const byId = new Map(parsed.people.map((p) => [p.entity_id, p]));

describe('Australia DFAT Consolidated List (xlsx, complete official file)', () => {
  it('groups the name rows into 3,811 listings and keeps the 2,518 individuals', () => {
    expect(parsed.entityCount).toBe(3811);
    expect(parsed.people).toHaveLength(2518);
    expect(parsed.people.filter((p) => p.dobs.length)).toHaveLength(2400);
    expect(parsed.sourceDate).toBe('2026-02-24');
  });

  it('reads text DOB lists, original-script names, citizenship, committee and the UN reference', () => {
    const akhund = byId.get('2');
    expect(akhund?.primary_name).toBe('MOHAMMAD HASSAN AKHUND');
    expect(akhund?.names).toContainEqual({ name: 'محمد حسن أخوند', strength: 'strong' });
    expect(akhund?.dobs.map((d) => (d.kind === 'year' ? d.year : 0))).toEqual([
      1945, 1946, 1947, 1948, 1949, 1950, 1955, 1956, 1957, 1958,
    ]);
    expect(akhund?.nationalities).toEqual(['Afghanistan']);
    expect(akhund?.programmes).toEqual(['1988 (Taliban)']);
    expect(akhund?.shared_ids).toEqual(['un:TAI.2']);
  });

  it('reads a year typed as a number and a date typed as an Excel date', () => {
    expect(byId.get('3')?.dobs).toEqual([{ kind: 'year', year: 1963 }]);
    expect(byId.get('3')?.names).toContainEqual({ name: 'A. Kabir', strength: 'strong' });
    expect(byId.get('6678')?.primary_name).toBe('Vladimir Vladimirovich PUTIN');
    expect(byId.get('6678')?.dobs).toEqual([{ kind: 'date', date: '1952-10-07' }]);
  });

  it('keeps the listing that has only an alias row', () => {
    expect(byId.get('8495')?.names.length).toBeGreaterThan(0);
  });

  it('reads the text forms of dates the list uses', () => {
    expect(dfatTextDates('12/05/1960, 1961')).toEqual([
      { kind: 'date', date: '1960-05-12' },
      { kind: 'year', year: 1961 },
    ]);
    expect(dfatTextDates('Approximately 1960')).toEqual([{ kind: 'year', year: 1960, approximate: true }]);
    expect(dfatTextDates('Between 1960 and 1962')).toEqual([{ kind: 'range', from: 1960, to: 1962 }]);
    expect(dfatTextDates('9 May 1960, April 1961')).toEqual([
      { kind: 'date', date: '1960-05-09' },
      { kind: 'month', year: 1961, month: 4 },
    ]);
  });
});
