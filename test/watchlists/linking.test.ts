import { describe, expect, it } from 'vitest';
import {
  applyLinks,
  dobsAgree,
  findLinks,
  fullNameKey,
  perListPeople,
} from '../../lib/watchlists/linking.ts';
import { newPerson } from '../../lib/watchlists/listed-person.ts';
import { buildSnapshot, defaultDataDir } from '../../lib/watchlists/snapshot.ts';
import { LIST_SOURCES } from '../../lib/watchlists/sources.ts';
import type { ListedDob, ListedPerson, ListId } from '../../lib/watchlists/types.ts';

// Every sanctions list, linked as the shipped snapshot links them (PEP and criminal lists are
// never linked, so they are left out to keep the test quick).
const sanctions = LIST_SOURCES.filter((s) => s.descriptor.category === 'sanctions');
const snapshot = buildSnapshot(defaultDataDir(), { sources: sanctions });
const { people } = snapshot;
const personWith = (listId: ListId, entityId: string) =>
  people.filter((p) =>
    (p.listings ?? [{ list_id: p.list_id, entity_id: p.entity_id }]).some(
      (l) => l.list_id === listId && l.entity_id === entityId,
    ),
  );
const listingsOf = (person: ListedPerson | undefined) =>
  (person?.listings ?? []).map((l) => `${l.list_id}:${l.entity_id}`).sort();

describe('one person per person across the sanctions lists (real multi-listed people)', () => {
  it('links Vladimir Putin on OFAC, the EU, the UK (FCDO and the OFSI record), Canada, Australia and New Zealand', () => {
    const found = personWith('uk_fcdo', 'RUS0251');
    expect(found).toHaveLength(1);
    const [putin] = found;
    expect(putin.list_id).toBe('ofac_sdn');
    expect(listingsOf(putin)).toEqual(
      [
        'ofac_sdn:35096',
        'eu_fsf:EU.7510.16',
        'uk_fcdo:RUS0251',
        'uk_ofsi:14196',
        'au_dfat:6678',
        'nz_russia:IND-1',
      ]
        .concat(
          putin.listings?.filter((l) => l.list_id === 'ca_sema').map((l) => `ca_sema:${l.entity_id}`) ?? [],
        )
        .sort(),
    );
    expect(putin.listings?.some((l) => l.list_id === 'ca_sema')).toBe(true);
    // The FCDO transcription has no DOB; the linked person has the other lists' date.
    expect(putin.dobs).toContainEqual({ kind: 'date', date: '1952-10-07' });
    expect(putin.programmes).toEqual(
      expect.arrayContaining([
        'RUSSIA-EO14024',
        'The Russia (Sanctions) (EU Exit) Regulations 2019',
        'Autonomous (Russia)',
      ]),
    );
  });

  it('links a UN listing to the EU, UK and Australian listings that quote its UN reference', () => {
    const [person] = personWith('un_sc', findUn('QDi.334'));
    const ids = listingsOf(person);
    expect(ids).toContain('uk_fcdo:AQD0001');
    expect(ids.some((id) => id.startsWith('eu_fsf:'))).toBe(true);
    expect(ids.some((id) => id.startsWith('au_dfat:'))).toBe(true);
    expect(person.listings?.find((l) => l.list_id === 'uk_fcdo')?.linked_by).toMatch(
      /^(un:QDI\.334|name|full name)/,
    );
  });

  it('keeps every listing of a linked person on one person only', () => {
    const seen = new Set<string>();
    for (const person of people) {
      for (const l of person.listings ?? [{ list_id: person.list_id, entity_id: person.entity_id }]) {
        const key = `${l.list_id}:${l.entity_id}`;
        expect(seen.has(key), key).toBe(false);
        seen.add(key);
      }
    }
  });

  it('refuses a shared UN number between listings that share no name part (a mistyped reference)', () => {
    // The FCDO transcription gives AZIM AGHAJANI the UN number of Ahmad Vahid DASTJERDI (IRi.012).
    const [aghajani] = personWith('uk_fcdo', 'INU0279');
    expect(listingsOf(aghajani).every((id) => !id.startsWith('un_sc:'))).toBe(true);
    const [dastjerdi] = people.filter((p) => p.primary_name === 'DASTJERDI, Ahmad Vahid');
    expect(listingsOf(dastjerdi)).not.toContain('uk_fcdo:INU0279');
  });

  it('screens the retired OFSI list only through a linked FCDO designation', () => {
    expect(people.some((p) => p.list_id === 'uk_ofsi')).toBe(false);
    expect(perListPeople(snapshot).filter((p) => p.list_id === 'uk_ofsi')).toHaveLength(3662);
    const ofsi = snapshot.lists.find((l) => l.id === 'uk_ofsi');
    expect(ofsi?.individual_count).toBe(ofsi?.linked_count);
    expect(ofsi?.individual_count).toBeLessThan(3662);
  });

  it('links every FCDO designation to the OFSI record whose Group ID it carries', () => {
    // Before the OFSI parser wrote its Group ID, 1,160 of 3,852 such designations went to another
    // person than their own OFSI record (the FCDO row merged by name with a namesake).
    const where = new Map<string, number>();
    people.forEach((p, i) => {
      for (const l of p.listings ?? [{ list_id: p.list_id, entity_id: p.entity_id }])
        where.set(`${l.list_id}:${l.entity_id}`, i);
    });
    const ofsiIds = new Set(
      perListPeople(snapshot)
        .filter((p) => p.list_id === 'uk_ofsi')
        .map((p) => p.entity_id),
    );
    const split = perListPeople(snapshot)
      .filter((p) => p.list_id === 'uk_fcdo')
      .flatMap((p) => {
        const group = p.shared_ids?.find((id) => id.startsWith('ofsi:'))?.slice(5);
        if (!group || !ofsiIds.has(group)) return [];
        return where.get(`uk_fcdo:${p.entity_id}`) === where.get(`uk_ofsi:${group}`) ? [] : [p.entity_id];
      });
    expect(split).toEqual([]);
    // AQD0098, ABDELKADER LAAGOUB: FCDO and OFSI group 8685 are one person.
    expect(listingsOf(personWith('uk_fcdo', 'AQD0098')[0])).toContain('uk_ofsi:8685');
  });

  function findUn(reference: string): string {
    return (
      perListPeople(snapshot).find((p) => p.list_id === 'un_sc' && p.reference === reference)?.entity_id ?? ''
    );
  }

  it('gives a sync every list back as parsed', () => {
    const perList = perListPeople(snapshot);
    for (const list of snapshot.lists) {
      expect(perList.filter((p) => p.list_id === list.id).length, list.id).toBe(
        list.id === 'uk_ofsi' ? 3662 : list.individual_count,
      );
    }
    expect(perList.some((p) => p.listings)).toBe(false);
  });
});

describe('the linking rule', () => {
  const descriptors = new Map(LIST_SOURCES.map((s) => [s.descriptor.id, s.descriptor]));
  const person = (list: ListId, id: string, name: string, dobs: ListedDob[] = [], shared?: string[]) => {
    const p = newPerson(list, id, name);
    p.dobs = dobs;
    if (shared) p.shared_ids = shared;
    return p;
  };
  const link = (...listed: ListedPerson[]) =>
    applyLinks(listed, findLinks(listed, { descriptors }), descriptors).people;

  it('compares all name parts in any order, ignoring case, accents and punctuation', () => {
    expect(fullNameKey('PUTIN, Vladimir Vladimirovich').key).toBe(
      fullNameKey('Vladimir Vladimirovich Putin').key,
    );
    expect(fullNameKey("AL-NU'AYMI Abd").key).toBe(fullNameKey('Abd al Nuaymi').key);
    expect(fullNameKey('Vladimir Putin').key).not.toBe(fullNameKey('Vladimir Vladimirovich Putin').key);
  });

  it('treats dates as agreeing when one falls within the other', () => {
    expect(dobsAgree([{ kind: 'year', year: 1952 }], [{ kind: 'date', date: '1952-10-07' }])).toBe(true);
    expect(dobsAgree([{ kind: 'year', year: 1951, approximate: true }], [{ kind: 'year', year: 1952 }])).toBe(
      true,
    );
    expect(dobsAgree([{ kind: 'date', date: '1952-10-07' }], [{ kind: 'date', date: '1952-10-08' }])).toBe(
      false,
    );
  });

  it('links on the full name with agreeing dates, or a date on one side only (3+ parts)', () => {
    const dated = person('eu_fsf', 'e1', 'Ivan Ivanovich Petrov', [{ kind: 'date', date: '1960-01-02' }]);
    expect(
      link(dated, person('ca_sema', 'c1', 'PETROV Ivan Ivanovich', [{ kind: 'year', year: 1960 }])),
    ).toHaveLength(1);
    expect(link(dated, person('uk_fcdo', 'u1', 'Ivan Ivanovich PETROV'))).toHaveLength(1);
  });

  it('never links conflicting dates of birth, a partial name, or two undated two-part names', () => {
    const dated = person('eu_fsf', 'e1', 'Ivan Ivanovich Petrov', [{ kind: 'date', date: '1960-01-02' }]);
    expect(
      link(dated, person('ca_sema', 'c1', 'Ivan Ivanovich Petrov', [{ kind: 'year', year: 1971 }])),
    ).toHaveLength(2);
    expect(link(dated, person('uk_fcdo', 'u1', 'Ivan Petrov'))).toHaveLength(2);
    expect(link(person('eu_fsf', 'e2', 'Ivan Petrov'), person('uk_fcdo', 'u2', 'Ivan Petrov'))).toHaveLength(
      2,
    );
  });

  it('does not chain two conflicting dates through a listing without one', () => {
    const a = person('eu_fsf', 'e1', 'Ivan Ivanovich Petrov', [{ kind: 'date', date: '1960-01-02' }]);
    const undated = person('uk_fcdo', 'u1', 'Ivan Ivanovich Petrov');
    const b = person('au_dfat', 'a1', 'Ivan Ivanovich Petrov', [{ kind: 'date', date: '1975-05-05' }]);
    const linked = link(a, undated, b);
    expect(linked).toHaveLength(2);
    expect(linked.every((p) => (p.listings ?? [p]).filter((l) => l.list_id !== 'uk_fcdo').length <= 1)).toBe(
      true,
    );
  });

  it('links shared identifiers even when the names are written differently', () => {
    const un = person(
      'un_sc',
      '1',
      'ABD AL-RAHMAN BIN UMAYR AL-NUAYMI',
      [{ kind: 'year', year: 1954 }],
      ['un:QDI.334'],
    );
    const uk = person('uk_fcdo', 'AQD0001', "'Abd al-Rahman AL-NU'AIMI", [], ['un:QDI.334']);
    const [merged, ...rest] = link(un, uk);
    expect(rest).toHaveLength(0);
    expect(merged.listings?.map((l) => [l.list_id, l.linked_by])).toEqual([
      ['un_sc', 'primary'],
      ['uk_fcdo', 'un:QDI.334'],
    ]);
    expect(merged.names.map((n) => n.name)).toContain("'Abd al-Rahman AL-NU'AIMI");
  });

  it('links the OFSI Group ID first, and never lets a name-only merge override a group id', () => {
    // The FCDO row quotes a UN number and its OFSI Group ID; the UN reference's other holder (EU)
    // states another date than OFSI: the UK's own link wins.
    const fcdo = person('uk_fcdo', 'DPR1', 'KIM CHOL NAM', [], ['un:KPI.44', 'ofsi:1']);
    const eu = person(
      'eu_fsf',
      'EU.1',
      'KIM Chol Nam',
      [{ kind: 'date', date: '1970-02-12' }],
      ['un:KPI.44'],
    );
    const ofsi = person('uk_ofsi', '1', 'KIM CHOL NAM', [{ kind: 'date', date: '1970-02-19' }], ['ofsi:1']);
    const linked = link(eu, fcdo, ofsi);
    const uk = linked.find((p) => p.listings?.some((l) => l.entity_id === 'DPR1'));
    expect(uk?.listings?.map((l) => l.entity_id).sort()).toEqual(['1', 'DPR1']);
    // Two FCDO designations carrying different OFSI Group IDs stay two people, however alike their names.
    const a = person('uk_fcdo', 'A', 'Ivan Ivanovich Petrov', [], ['ofsi:2']);
    const b = person('uk_fcdo', 'B', 'Ivan Ivanovich Petrov', [], ['ofsi:3']);
    const dated = person('eu_fsf', 'e', 'Ivan Ivanovich Petrov', [{ kind: 'date', date: '1960-01-02' }]);
    expect(link(a, b, dated)).toHaveLength(2);
  });

  it('links names spelt differently under transliteration when the dates of birth agree', () => {
    const eu = person('eu_fsf', 'e', 'Aleksey Viktorovich ILINYKH', [{ kind: 'date', date: '1971-03-04' }]);
    const ofac = person('ofac_sdn', 'o', 'ILYNIKH, Alexey Viktorovich', [
      { kind: 'date', date: '1971-03-04' },
    ]);
    const canada = person('ca_sema', 'c', 'Alexei Ilinykh', [{ kind: 'date', date: '1971-03-04' }]);
    const [one, ...rest] = link(eu, ofac, canada);
    expect(rest).toHaveLength(0);
    expect(one.listings?.map((l) => l.linked_by)).toEqual([
      'primary',
      'name under transliteration and date of birth',
      'name under transliteration and date of birth',
    ]);
  });

  it('keeps transliterated namesakes apart on a conflicting date, nationality or gender, or no date', () => {
    const born = (date: string) => [{ kind: 'date', date } as ListedDob];
    const eu = person('eu_fsf', 'e', 'Aleksey Viktorovich ILINYKH', born('1971-03-04'));
    expect(link(eu, person('ofac_sdn', 'o', 'Alexey Viktorovich ILYNIKH', born('1991-03-04')))).toHaveLength(
      2,
    );
    expect(link(eu, person('uk_fcdo', 'u', 'Alexey Viktorovich ILYNIKH'))).toHaveLength(2);
    const other = person('ofac_sdn', 'o', 'Alexey Viktorovich ILYNIKH', born('1971-03-04'));
    other.nationalities = ['Kazakhstan'];
    const russian = { ...eu, nationalities: ['Russia'] };
    expect(link(russian, other)).toHaveLength(2);
    const female = person('ofac_sdn', 'f', 'Alexey Viktorovich ILYNIKH', born('1971-03-04'));
    female.gender = 'Female';
    expect(link({ ...eu, gender: 'Male' }, female)).toHaveLength(2);
    // Two parts need the same complete date, not only the same year.
    const two = person('eu_fsf', 't', 'Aleksey ILINYKH', [{ kind: 'year', year: 1971 }]);
    expect(link(two, person('ofac_sdn', 'y', 'Alexey ILYNIKH', born('1971-03-04')))).toHaveLength(2);
  });

  it('does not link PEP or criminal lists', () => {
    const a = person('world_leaders_pep', 'w', 'Vladimir Vladimirovich PUTIN');
    const b = person('eu_fsf', 'e', 'Vladimir Vladimirovich Putin', [{ kind: 'date', date: '1952-10-07' }]);
    expect(link(a, b)).toHaveLength(2);
  });
});
