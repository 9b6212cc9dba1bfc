import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CA_SEMA_FILE, parseCaSema, semaAliases, semaDates } from '../../lib/watchlists/ca-sema.ts';
import { defaultDataDir } from '../../lib/watchlists/snapshot.ts';

const parsed = parseCaSema(readFileSync(join(defaultDataDir(), CA_SEMA_FILE)));

describe('Canada SEMA XML (sema-lmes.xml, complete official file)', () => {
  it('counts the 4,759 records and keeps 3,328 people from the 3,334 individual records', () => {
    expect(parsed.entityCount).toBe(4759);
    expect(parsed.people).toHaveLength(3328);
    expect(parsed.sourceDate).toBe('2025-03-20');
  });

  it('reads a listing: given names first, DOB, regime, listing date and labelled aliases', () => {
    const barsukov = parsed.people.find((p) => p.primary_name === 'Aleksandr Petrovich Barsukov');
    expect(barsukov?.dobs).toEqual([{ kind: 'date', date: '1965-04-29' }]);
    expect(barsukov?.programmes).toEqual(['Belarus']);
    expect(barsukov?.listed_on).toBe('2020-09-28');
    const mashadziyeu = parsed.people.find((p) => p.primary_name === 'Ruslan Khikmetavich MASHADZIYEU');
    expect(mashadziyeu?.names.map((n) => n.name)).toEqual(
      expect.arrayContaining(['Ruslan Khikmetovich MASHADIYEV', 'Руслан Хикметович МАШАДИЕВ']),
    );
  });

  it('makes one person of the records of one person under several regimes', () => {
    const multi = parsed.people.filter((p) => p.programmes.length > 1);
    expect(multi.length).toBeGreaterThan(0);
    expect(new Set(parsed.people.map((p) => p.entity_id)).size).toBe(parsed.people.length);
  });

  it('reads the free-text dates and aliases', () => {
    expect(semaDates('1963 or 1964')).toEqual([
      { kind: 'year', year: 1963 },
      { kind: 'year', year: 1964 },
    ]);
    expect(semaDates('1965-07-15 OR 1969-09-28')).toHaveLength(2);
    expect(semaDates('born in the early 1970s')).toEqual([{ kind: 'range', from: 1970, to: 1974 }]);
    expect(semaDates('Sep-99')).toEqual([]);
    expect(
      semaAliases('Siarhei Karcheusky, Belarusian: Сяргей Карчэўскi,  Russian: Сергей Карчевский'),
    ).toEqual(['Siarhei Karcheusky', 'Сяргей Карчэўскi', 'Сергей Карчевский']);
  });

  it('splits "X or Y" where one side is a single surname or given name', () => {
    expect(semaAliases('Александр Владимирович Карниенко or Карниенка')).toEqual([
      'Александр Владимирович Карниенко',
      'Александр Владимирович Карниенка',
    ]);
    expect(semaAliases('Katsiaryna or Katerina Smuschkovich')).toEqual([
      'Katsiaryna Smuschkovich',
      'Katerina Smuschkovich',
    ]);
    // Left as written: one alias giving alternatives for three slots at once ("Nikolay or Nikolai /
    // Vasilievich or Vasilyevich Maximavich or …").
    expect(
      parsed.people.flatMap((p) => p.names).filter((n) => /\sor\s/.test(n.name) && !n.name.includes(' / ')),
    ).toEqual([]);
  });
});
