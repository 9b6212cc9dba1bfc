/**
 * US politically exposed persons from the `unitedstates/congress-legislators` project: members of
 * Congress (current and former) and Presidents / Vice Presidents. Tiers follow `pep-tiers.ts`.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { parse as parseYaml } from 'yaml';
import { DAY_MS } from '../common/time.ts';
import { calendarDob } from './listed-dates.ts';
import { addName, addUnique, newPerson } from './listed-person.ts';
import { formerTier, PEP_TIER_RULE, plausiblyAlive } from './pep-tiers.ts';
import type { ListDescriptor, ListedPerson, ParsedList, PepDetails } from './types.ts';

export const US_CONGRESS_FILES = {
  current: 'pep/us_congress_legislators/legislators-current.yaml',
  historical: 'pep/us_congress_legislators/legislators-historical.csv',
} as const;
export const US_EXECUTIVE_FILE = 'pep/us_congress_legislators/executive.yaml';

/** The upstream commit the data comes from; also the reference date for PEP tiers. */
export const US_PEP_DATA_DATE = '2026-06-15';

const SOURCE_BASIS =
  'Date of the unitedstates/congress-legislators commit the files come from (dfa96222, 2026-06-15); ' +
  'the latest term start in the data is 2026-06-10.';

export const US_CONGRESS_PEP_LIST: ListDescriptor = {
  id: 'us_congress_pep',
  name: 'US Congress members (current and former)',
  category: 'pep',
  publisher: 'unitedstates/congress-legislators (compiled from official congressional sources)',
  licence: 'CC0 1.0 Universal (public domain dedication)',
  files: Object.values(US_CONGRESS_FILES),
  source_date: US_PEP_DATA_DATE,
  source_date_basis: SOURCE_BASIS,
  notes: [PEP_TIER_RULE],
};

export const US_EXECUTIVE_PEP_LIST: ListDescriptor = {
  id: 'us_executive_pep',
  name: 'US Presidents and Vice Presidents',
  category: 'pep',
  publisher: 'unitedstates/congress-legislators (compiled from official sources)',
  licence: 'CC0 1.0 Universal (public domain dedication)',
  files: [US_EXECUTIVE_FILE],
  source_date: US_PEP_DATA_DATE,
  source_date_basis: SOURCE_BASIS,
  notes: [PEP_TIER_RULE],
};

const STATES: Record<string, string> = {
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
  DC: 'the District of Columbia',
  PR: 'Puerto Rico',
  GU: 'Guam',
  VI: 'the U.S. Virgin Islands',
  AS: 'American Samoa',
  MP: 'the Northern Mariana Islands',
  DK: 'Dakota Territory',
  OL: 'Orleans Territory',
  PI: 'the Philippine Islands',
};

interface YamlName {
  first?: string;
  middle?: string;
  last?: string;
  suffix?: string;
  nickname?: string;
  official_full?: string;
}

interface YamlTerm {
  type: string;
  start: string;
  end: string;
  state?: string;
  district?: number;
  party?: string;
}

interface YamlPerson {
  id?: { bioguide?: string; govtrack?: number | string };
  name?: YamlName;
  bio?: { birthday?: string; gender?: string };
  terms?: YamlTerm[];
}

function ordinal(n: number): string {
  const mod100 = n % 100;
  if (mod100 >= 11 && mod100 <= 13) return `${n}th`;
  return `${n}${{ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th'}`;
}

/** "U.S. Senator for Vermont", "U.S. Representative for California's 12th district", ... */
export function congressRole(type: string, state: string, district?: number | string): string {
  const place = STATES[state] ?? state;
  if (type === 'sen') return `U.S. Senator for ${place}`;
  if (state === 'PR') return 'Resident Commissioner for Puerto Rico';
  if (['DC', 'GU', 'VI', 'AS', 'MP'].includes(state)) return `Delegate to the U.S. House for ${place}`;
  const d = Number(district);
  if (district === undefined || district === '' || Number.isNaN(d)) return `U.S. Representative for ${place}`;
  if (d === 0) return `U.S. Representative for ${place} (at-large)`;
  return `U.S. Representative for ${place}'s ${ordinal(d)} district`;
}

function gender(code: string | undefined): string | undefined {
  if (code === 'M') return 'Male';
  if (code === 'F') return 'Female';
  return undefined;
}

function join(...parts: (string | undefined)[]): string {
  return parts.filter(Boolean).join(' ');
}

/** The official name first, then the spoken forms people are screened under. */
function addNameForms(person: ListedPerson, name: YamlName): void {
  const suffixed = (base: string) => (name.suffix ? `${base} ${name.suffix}` : base);
  addName(person.names, suffixed(join(name.first, name.middle, name.last)), 'strong');
  addName(person.names, join(name.first, name.last), 'strong');
  if (name.nickname) addName(person.names, join(name.nickname, name.last), 'strong');
}

function displayName(name: YamlName): string {
  return name.official_full || join(name.first, name.middle, name.last, name.suffix);
}

function setBirthday(person: ListedPerson, birthday: string | undefined): void {
  const m = birthday?.match(/^(\d{4})-(\d{2})-(\d{2})$/);
  const dob = m ? calendarDob(Number(m[1]), Number(m[2]), Number(m[3])) : undefined;
  if (dob) person.dobs.push(dob);
}

/** Terms of the unbroken run of service that ends with the last term (same office, same state). */
function currentRun(terms: YamlTerm[], sameOffice: (a: YamlTerm, b: YamlTerm) => boolean): YamlTerm[] {
  const run = [terms[terms.length - 1]];
  for (let i = terms.length - 2; i >= 0; i--) {
    const next = run[0];
    const term = terms[i];
    const gapDays = (Date.parse(next.start) - Date.parse(term.end)) / DAY_MS;
    if (!sameOffice(term, next) || gapDays > 60) break;
    run.unshift(term);
  }
  return run;
}

function year(date: string): string {
  return date.slice(0, 4);
}

function readYaml(text: Buffer | string): YamlPerson[] {
  const data: unknown = parseYaml(typeof text === 'string' ? text : text.toString('utf8'));
  if (!Array.isArray(data)) throw new Error('congress-legislators YAML: expected a list of people');
  return data as YamlPerson[];
}

function entityId(person: YamlPerson): string {
  return person.id?.bioguide ?? `govtrack-${person.id?.govtrack ?? displayName(person.name ?? {})}`;
}

export interface PepParseOptions {
  /** Date the tiers are judged at; defaults to the data's own date (see `pep-tiers.ts`). */
  referenceDate?: string;
}

/**
 * Members of Congress. Everyone in legislators-current.yaml is tier 1 (`legislator`, with the
 * start of their unbroken service in the current seat). Former members from
 * legislators-historical.csv have no term dates, so they are tier 3 and only kept while plausibly
 * alive (see `pep-tiers.ts`).
 */
export function parseUsCongressPep(
  files: { current: Buffer | string; historical: Buffer | string },
  options: PepParseOptions = {},
): ParsedList {
  const referenceDate = options.referenceDate ?? US_PEP_DATA_DATE;
  const current = readYaml(files.current);
  const people: ListedPerson[] = [];
  const seen = new Set<string>();

  for (const member of current) {
    const terms = member.terms ?? [];
    if (!terms.length) continue;
    const name = member.name ?? {};
    const person = newPerson('us_congress_pep', entityId(member), displayName(name));
    addNameForms(person, name);
    setBirthday(person, member.bio?.birthday);
    const last = terms[terms.length - 1];
    const run = currentRun(terms, (a, b) => a.type === b.type && a.state === b.state);
    const since = run[0].start;
    const role = congressRole(last.type, last.state ?? '', last.district);
    const inOffice = last.start <= referenceDate && referenceDate < last.end;
    const pep: PepDetails = inOffice
      ? {
          tier: 1,
          current: true,
          as_of: referenceDate,
          category: 'legislator',
          position: `${role} (${year(since)}–present)`,
          since,
        }
      : {
          tier: formerTier(last.end, referenceDate),
          current: false,
          as_of: referenceDate,
          category: 'legislator',
          position: `Former ${role} (${year(since)}–${year(last.end)})`,
          since,
          until: last.end,
        };
    person.pep = pep;
    finishUsPerson(person, member.bio?.gender, last.state, last.party);
    seen.add(person.entity_id);
    people.push(person);
  }

  const rows = parseCsv(
    typeof files.historical === 'string' ? files.historical : files.historical.toString('utf8'),
    {
      columns: true,
      skip_empty_lines: true,
      bom: true,
    },
  ) as Record<string, string>[];
  for (const row of rows) {
    const id = row.bioguide_id || `govtrack-${row.govtrack_id}`;
    if (seen.has(id) || !plausiblyAlive(row.birthday, referenceDate)) continue;
    const name: YamlName = {
      first: row.first_name,
      middle: row.middle_name,
      last: row.last_name,
      suffix: row.suffix,
      nickname: row.nickname,
      official_full: row.full_name,
    };
    const person = newPerson('us_congress_pep', id, displayName(name));
    addNameForms(person, name);
    setBirthday(person, row.birthday);
    person.pep = {
      tier: formerTier(undefined, referenceDate),
      current: false,
      as_of: referenceDate,
      category: 'legislator',
      position: `Former ${congressRole(row.type, row.state, row.district)}`,
    };
    finishUsPerson(person, row.gender, row.state, row.party);
    seen.add(id);
    people.push(person);
  }

  return { people, entityCount: current.length + rows.length };
}

function finishUsPerson(person: ListedPerson, genderCode?: string, state?: string, party?: string): void {
  person.nationalities.push('United States');
  const place = state ? STATES[state] : undefined;
  addUnique(person.locations, place?.replace(/^the /, ''), 'United States');
  const g = gender(genderCode);
  if (g) person.gender = g;
  if (party) person.remarks = `Party: ${party}`;
  if (/^[A-Z]\d{6}$/.test(person.entity_id)) {
    person.url = `https://bioguide.congress.gov/search/bio/${person.entity_id}`;
  }
}

const EXECUTIVE_OFFICES: Record<string, { title: string; category: string }> = {
  prez: { title: 'President of the United States', category: 'head_of_state' },
  viceprez: { title: 'Vice President of the United States', category: 'head_of_government_deputy' },
};

/**
 * Presidents and Vice Presidents. In office on the reference date → tier 1 (`head_of_state` for
 * the President, `head_of_government_deputy` for the Vice President); otherwise tier 2 or 3 by
 * the end of their last term, and only while plausibly alive (see `pep-tiers.ts`).
 */
export function parseUsExecutivePep(yaml: Buffer | string, options: PepParseOptions = {}): ParsedList {
  const referenceDate = options.referenceDate ?? US_PEP_DATA_DATE;
  const records = readYaml(yaml);
  const people: ListedPerson[] = [];
  for (const record of records) {
    const terms = [...(record.terms ?? [])].sort((a, b) => a.start.localeCompare(b.start));
    if (!terms.length) continue;
    const inOfficeTerm = terms.find((t) => t.start <= referenceDate && referenceDate < t.end);
    const started = terms.filter((t) => t.start <= referenceDate);
    const last = inOfficeTerm ?? started[started.length - 1];
    if (!last) continue;
    if (!inOfficeTerm && !plausiblyAlive(record.bio?.birthday, referenceDate)) continue;
    const office = EXECUTIVE_OFFICES[last.type];
    if (!office) continue;
    const upToLast = terms.slice(0, terms.indexOf(last) + 1);
    const since = currentRun(upToLast, (a, b) => a.type === b.type)[0].start;
    const name = record.name ?? {};
    const person = newPerson('us_executive_pep', entityId(record), displayName(name));
    addNameForms(person, name);
    setBirthday(person, record.bio?.birthday);
    person.pep = inOfficeTerm
      ? {
          tier: 1,
          current: true,
          as_of: referenceDate,
          category: office.category,
          position: `${office.title} (${year(since)}–present)`,
          since,
        }
      : {
          tier: formerTier(last.end, referenceDate),
          current: false,
          as_of: referenceDate,
          category: office.category,
          position: `Former ${office.title} (${year(since)}–${year(last.end)})`,
          since,
          until: last.end,
        };
    finishUsPerson(person, record.bio?.gender, undefined, last.party);
    people.push(person);
  }
  return { people, entityCount: records.length };
}
