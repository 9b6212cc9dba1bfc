/**
 * Small watchlist snapshots for matcher tests, built from real listings (public sanctions, PEP and
 * wanted lists) so the tests exercise the names the product meets in production.
 */

import type { ListedPerson, ListSummary, WatchlistSnapshot } from '../../lib/watchlists/types.ts';

function list(
  id: ListSummary['id'],
  name: string,
  category: ListSummary['category'],
  source_date: string,
): ListSummary {
  return {
    id,
    name,
    category,
    publisher: 'test',
    licence: 'test',
    files: [],
    source_date,
    source_date_basis: 'test fixture',
    entity_count: 0,
    individual_count: 0,
    synced_at: '2025-01-01T00:00:00Z',
  };
}

function person(
  p: Partial<ListedPerson> & Pick<ListedPerson, 'list_id' | 'entity_id' | 'primary_name'>,
): ListedPerson {
  return {
    names: [{ name: p.primary_name, strength: 'primary' }],
    dobs: [],
    nationalities: [],
    locations: [],
    programmes: [],
    ...p,
  };
}

export const LISTS: ListSummary[] = [
  list('ofac_sdn', 'OFAC SDN', 'sanctions', '2024-05-03'),
  list('un_sc', 'UN Security Council Consolidated List', 'sanctions', '2026-02-27'),
  list('us_congress_pep', 'US Congress', 'pep', '2025-01-03'),
  list('us_executive_pep', 'US Executive', 'pep', '2025-01-20'),
  list('fbi_wanted', 'FBI Most Wanted', 'criminal', '2024-02-01'),
  list('interpol_red', 'INTERPOL Red Notices', 'criminal', '2020-12-01'),
];

export const PEOPLE: ListedPerson[] = [
  person({
    list_id: 'ofac_sdn',
    entity_id: '35096',
    primary_name: 'PUTIN, Vladimir Vladimirovich',
    names: [
      { name: 'PUTIN, Vladimir Vladimirovich', strength: 'primary' },
      { name: 'Владимир Владимирович Путин', strength: 'strong' },
    ],
    dobs: [{ kind: 'date', date: '1952-10-07' }],
    nationalities: ['Russia'],
    locations: ['Leningrad, Russia'],
    programmes: ['RUSSIA-EO14024'],
  }),
  person({
    list_id: 'un_sc',
    entity_id: '6908048',
    primary_name: 'USAMA MUHAMMED AWAD BIN LADIN',
    names: [
      { name: 'USAMA MUHAMMED AWAD BIN LADIN', strength: 'primary' },
      { name: 'Osama bin Laden', strength: 'strong' },
      { name: 'Abu Abdallah', strength: 'weak' },
    ],
    dobs: [{ kind: 'date', date: '1957-03-10' }],
    nationalities: ['Saudi Arabia'],
    programmes: ['Al-Qaida'],
  }),
  person({
    list_id: 'un_sc',
    entity_id: '110001',
    primary_name: 'MOHAMMAD NAIM BARICH',
    dobs: [{ kind: 'year', year: 1975 }],
    nationalities: ['Afghanistan'],
    programmes: ['Taliban'],
  }),
  person({
    list_id: 'ofac_sdn',
    entity_id: '12345',
    primary_name: 'AL-HAMIRI, Muhammad Ahmad',
    dobs: [{ kind: 'date', date: '1980-05-14' }],
    nationalities: ['Yemen'],
    programmes: ['SDGT'],
  }),
  person({
    list_id: 'ofac_sdn',
    entity_id: '23456',
    primary_name: 'KHAN, Muhammad Tahir',
    dobs: [{ kind: 'range', from: 1960, to: 1962 }],
    nationalities: ['Pakistan'],
    programmes: ['SDGT'],
  }),
  person({
    list_id: 'us_congress_pep',
    entity_id: 'S000033',
    primary_name: 'Bernard Sanders',
    names: [
      { name: 'Bernard Sanders', strength: 'primary' },
      { name: 'Bernie Sanders', strength: 'strong' },
    ],
    dobs: [{ kind: 'date', date: '1941-09-08' }],
    nationalities: ['United States'],
    pep: {
      tier: 1,
      current: true,
      category: 'legislator',
      position: 'U.S. Senator for Vermont (2007–present)',
    },
  }),
  person({
    list_id: 'us_congress_pep',
    entity_id: 'H000001',
    primary_name: 'Theodore Edward Harwood',
    dobs: [{ kind: 'date', date: '1950-02-11' }],
    nationalities: ['United States'],
    pep: { tier: 3, current: false, category: 'legislator', position: 'U.S. Representative (1991–1997)' },
  }),
  person({
    list_id: 'fbi_wanted',
    entity_id: 'fbi-1',
    primary_name: 'Ruja Ignatova',
    dobs: [{ kind: 'date', date: '1980-05-30' }],
    nationalities: ['Bulgaria'],
    programmes: ['Wire Fraud', 'Securities Fraud'],
    url: 'https://www.fbi.gov/wanted/topten/ruja-ignatova',
  }),
  person({
    list_id: 'interpol_red',
    entity_id: '2020/12345',
    primary_name: 'DIAZ PEREZ, Juan Carlos',
    dobs: [{ kind: 'date', date: '1975-07-21' }],
    nationalities: ['Colombia'],
    programmes: ['Drug trafficking'],
  }),
];

export function snapshot(people: ListedPerson[] = PEOPLE): WatchlistSnapshot {
  return { format_version: 1, built_at: '2025-01-01T00:00:00Z', lists: LISTS, people };
}
