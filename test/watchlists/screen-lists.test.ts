/**
 * Screening real people taken from each list added in 2026 (EU, UK FCDO, OFAC non-SDN, Canada,
 * Australia, New Zealand, world leaders, international bodies) through the matcher over the full
 * shipped snapshot: each comes back as a match carrying its listing and programme, and a person on
 * several lists comes back once, with every listing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createMatcher, type Matcher } from '../../lib/matcher/screen.ts';
import { loadSnapshot } from '../../lib/matcher/snapshot-file.ts';
import type { Match, SubjectInput } from '../../lib/matcher/types.ts';
import type { ListId } from '../../lib/watchlists/types.ts';

let matcher: Matcher;
beforeAll(() => {
  matcher = createMatcher(loadSnapshot());
});

function sanctionsMatches(subject: SubjectInput): Match[] {
  return matcher.screen(subject, ['sanctions']).sanctions_result?.matches ?? [];
}

/** The match that carries the listing of `listId` with `entityId` and `programme`. */
function expectListing(matches: Match[], listId: ListId, entityId: string, programme: string): Match {
  const found = matches.filter((m) =>
    m.listings.some((l) => l.list_id === listId && l.entity_id === entityId),
  );
  expect(
    found,
    `${listId}:${entityId} not among ${JSON.stringify(matches.map((m) => m.listings))}`,
  ).toHaveLength(1);
  const [top] = found;
  const listing = top.listings.find((l) => l.list_id === listId && l.entity_id === entityId);
  expect(listing?.programmes).toContain(programme);
  expect(listing?.list_name).toMatch(/\w/);
  // A linked person's programmes are the union of its listings', one spelling each ("BELARUS" on
  // OFAC and "Belarus" on Canada's list are one programme name).
  expect(top.programmes.map((p) => p.toLowerCase())).toContain(programme.toLowerCase());
  return top;
}

describe('each new sanctions list, screened with real names from its data', () => {
  it('EU FSF', () => {
    const top = expectListing(
      sanctionsMatches({ name: 'Mudar Rifaat AL-ASSAD', dob: '1964-02-12' }),
      'eu_fsf',
      'EU.10017.93',
      'SYR',
    );
    expect(top.risk_level).toBe('CRITICAL');
  });

  it('UK Sanctions List (FCDO): no date of birth in the bundled copy, so HIGH at most', () => {
    const top = expectListing(
      sanctionsMatches({ name: 'Sami Jasim Muhammad Jaata al-Jaburi', dob: '1980-01-01' }),
      'uk_fcdo',
      'AQD0389',
      "Isil (Da'esh) and Al-Qaeda (United Nations Sanctions) (EU Exit) Regulations 2019",
    );
    expect(top.risk_level).toBe('HIGH');
    expect(top.explanation.dob.status).toBe('unknown');
  });

  it('OFAC Consolidated (non-SDN, Enhanced XML)', () => {
    expectListing(
      sanctionsMatches({ name: 'Mohammed Abu Teir', dob: '1951' }),
      'ofac_cons',
      '9640',
      'NS-PLC',
    );
  });

  it('Canada SEMA', () => {
    const top = expectListing(
      sanctionsMatches({ name: 'Vadim Dmitriyevich Ipatov', dob: '1964-10-30' }),
      'ca_sema',
      'Belarus/1, Part 1/5',
      'Belarus',
    );
    expect(top.risk_level).toBe('CRITICAL');
  });

  it('Australia DFAT', () => {
    expectListing(
      sanctionsMatches({ name: 'Mubarak Mushakhas Sanad Mubarak Al-Bathali', dob: '1960-10-01' }),
      'au_dfat',
      '597',
      '1267 Committee (ISIL & Al-Qaida)',
    );
  });

  it('New Zealand Russia Sanctions Register', () => {
    expectListing(
      sanctionsMatches({ name: 'Iskandar Kahramonovich Makhmudov', dob: '1963-12-05' }),
      'nz_russia',
      'IND-1003',
      'Russia Sanctions Act 2022',
    );
  });
});

describe('world PEPs, screened with real names from their data', () => {
  it('world leaders: a cabinet member, current on the data date', () => {
    const pep = matcher.screen({ name: 'Mohammad Farid Hamidi', nationality: 'Afghan' }, ['pep']).pep_result;
    const [top] = pep?.matches ?? [];
    expect(top.list_id).toBe('world_leaders_pep');
    expect(top.listings).toEqual([
      expect.objectContaining({
        list_id: 'world_leaders_pep',
        programmes: ['Attorney General (Afghanistan)'],
      }),
    ]);
    expect(top.pep).toMatchObject({ tier: 1, current: true, category: 'minister' });
    expect(pep?.is_pep).toBe(true);
  });

  it('international bodies: the UN Secretary-General', () => {
    const pep = matcher.screen({ name: 'António Guterres', dob: '1949-04-30' }, ['pep']).pep_result;
    const [top] = pep?.matches ?? [];
    expect(top.listings[0]).toMatchObject({ list_id: 'intl_bodies_pep', entity_id: 'Q311440' });
    expect(top.pep).toMatchObject({ tier: 1, current: true, category: 'international_organisation_leader' });
    expect(pep?.risk_level).toBe('HIGH');
  });
});

describe('one match per person across lists', () => {
  it('Ayman al-Zawahiri: one match with his OFAC, UN, EU, UK and Australian listings', () => {
    const matches = sanctionsMatches({ name: 'Ayman al-Zawahiri', dob: '1951-06-19' });
    const withZawahiri = matches.filter((m) =>
      m.listings.some((l) => l.list_id === 'un_sc' && l.entity_id === '111923'),
    );
    expect(withZawahiri).toHaveLength(1);
    const [zawahiri] = withZawahiri;
    expect(zawahiri.listings.map((l) => `${l.list_id}:${l.entity_id}`).sort()).toEqual(
      [
        'ofac_sdn:2676',
        'un_sc:111923',
        'eu_fsf:EU.3090.9',
        'uk_fcdo:AQD0126',
        'uk_ofsi:7016',
        'au_dfat:147',
      ].sort(),
    );
    expect(zawahiri.listings[0]).toMatchObject({ list_id: 'ofac_sdn', linked_by: 'primary' });
    expect(zawahiri.risk_level).toBe('CRITICAL');
    // Backward compatible: the first listing's fields stay where they were.
    expect(zawahiri).toMatchObject({ list_id: 'ofac_sdn', entity_id: '2676' });
    expect(zawahiri.listings[1]).toMatchObject({
      reference: 'QDi.006',
      list_name: 'United Nations Security Council Consolidated List',
    });
  });

  it('Vladimir Putin: one sanctions match with seven listings, and his PEP match apart', () => {
    const checks = matcher.screen({ name: 'Vladimir Putin', dob: '1952-10-07' }, ['sanctions', 'pep']);
    const sanctions = checks.sanctions_result?.matches ?? [];
    const putin = sanctions.filter((m) =>
      m.listings.some((l) => l.list_id === 'uk_fcdo' && l.entity_id === 'RUS0251'),
    );
    expect(putin).toHaveLength(1);
    expect(new Set(putin[0].listings.map((l) => l.list_id))).toEqual(
      new Set(['ofac_sdn', 'eu_fsf', 'uk_fcdo', 'uk_ofsi', 'ca_sema', 'au_dfat', 'nz_russia']),
    );
    expect(
      sanctions.filter((m) => m.listings.some((l) => l.list_id === 'eu_fsf' && l.entity_id === 'EU.7510.16')),
    ).toHaveLength(1);
    expect(checks.pep_result?.matches[0]).toMatchObject({ list_id: 'world_leaders_pep' });
  });
});
