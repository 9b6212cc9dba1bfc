import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NZ_RUSSIA_DERIVED_FILE, parseNzRussiaDerived } from '../../lib/watchlists/nz-mfat.ts';
import { defaultDataDir } from '../../lib/watchlists/snapshot.ts';

const parsed = parseNzRussiaDerived(readFileSync(join(defaultDataDir(), NZ_RUSSIA_DERIVED_FILE)));

describe('New Zealand Russia Sanctions Register (transcription, February 2026)', () => {
  it('keeps the 1,357 individuals of the 2,058 records, dated by the newest sanction', () => {
    expect(parsed.entityCount).toBe(2058);
    expect(parsed.people).toHaveLength(1357);
    expect(parsed.people.filter((p) => p.dobs.length)).toHaveLength(1294);
    expect(parsed.sourceDate).toBe('2026-02-20');
  });

  it('reads names, DOB, title, sanction date and aliases separated by semicolons', () => {
    const putin = parsed.people.find((p) => p.entity_id === 'IND-1');
    expect(putin?.primary_name).toBe('Vladimir Vladimirovich Putin');
    expect(putin?.dobs).toEqual([{ kind: 'date', date: '1952-10-07' }]);
    expect(putin?.listed_on).toBe('2022-03-18');
    expect(putin?.remarks).toBe('Title: President of the Russian Federation');
    const lukashenko = parsed.people.find((p) =>
      p.names.some((n) => n.name === 'LUKASHENKO Halyna Rodionivna'),
    );
    expect(lukashenko?.names.map((n) => n.name)).toContain('LUKASHENKO Galina Rodionovna');
  });
});
