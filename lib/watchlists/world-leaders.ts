/**
 * World PEPs: heads of state, heads of government and cabinet members of every country, from the
 * CIA publication "Chiefs of State and Cabinet Members of Foreign Governments" (World Leaders),
 * as of June 2019.
 *
 * The only machine-readable copy is a third party's JSON conversion whose repository grants no
 * licence (its structure, identifiers and IRIs are the converter's work), while the facts
 * themselves (who holds which office in which country) are a U.S. government work in the public
 * domain. So the product does not ship the converter's file: `extractWorldLeaders` (run by
 * `npm run extract:world-leaders`) keeps only name, office and country, in this project's own
 * tab-separated format, and `parseWorldLeaders` reads that file.
 */
import { unzipSync } from 'fflate';
import { isDoc } from './archive.ts';
import { addName, cleanText, newPerson } from './listed-person.ts';
import type { ListDescriptor, ListedPerson, ParsedList } from './types.ts';

export const WORLD_LEADERS_FILE = 'pep/world_leaders_2019/world-leaders.tsv';

/** The CIA data's date: every office holder in it held the office on this day. */
export const WORLD_LEADERS_AS_OF = '2019-06-04';

export const WORLD_LEADERS_LIST: ListDescriptor = {
  id: 'world_leaders_pep',
  name: 'World leaders: chiefs of state and cabinet members of foreign governments',
  category: 'pep',
  publisher: 'U.S. Central Intelligence Agency (World Leaders publication)',
  licence: 'Public domain (U.S. federal government work); names, offices and countries only',
  files: [WORLD_LEADERS_FILE],
  source_date: WORLD_LEADERS_AS_OF,
  source_date_basis: 'The date the CIA publication was captured (2019-06-04), written in the extracted file.',
  notes: [
    `Every office holder was in office on ${WORLD_LEADERS_AS_OF}: tier 1 and "current" are judged on that date, ` +
      'as for every PEP list, so a result never claims the person is in office today.',
    'Extracted by this project (scripts/extract-world-leaders.ts) from a third-party JSON conversion that grants ' +
      "no licence: only the public-domain facts (name, office, country) are shipped, not the converter's file.",
    'No dates of birth: a match cannot be corroborated or ruled out by date of birth.',
  ],
};

const FOAF = 'http://xmlns.com/foaf/0.1/';
const WL = 'http://williamrobertfunk.com/ontologies/world-leaders#';
const COUNTRY = 'http://williamrobertfunk.com/ontologies/country#';
const LABEL = 'http://www.w3.org/2000/01/rdf-schema#label';

type Resource = {
  '@id'?: string;
  datatypeProperties?: Record<string, unknown>;
  objectProperties?: unknown[];
};

function linked(resource: Resource, property: string): Resource[] {
  return (resource.objectProperties ?? []).flatMap((entry) =>
    isDoc(entry) && isDoc(entry[property]) ? [entry[property] as Resource] : [],
  );
}

const prop = (resource: Resource | undefined, key: string) =>
  cleanText(String(resource?.datatypeProperties?.[key] ?? ''));

const TSV_HEADER = ['country', 'office', 'name'];

/**
 * Reads the conversion's `json.zip` (persons, government offices, countries) and returns the
 * TSV this product ships: one row per person and office, sorted, with a header comment giving
 * the date and the origin.
 */
export function extractWorldLeaders(zip: Uint8Array): string {
  const files = unzipSync(zip);
  const read = (suffix: string): Record<string, Resource> => {
    const path = Object.keys(files).find((name) => name.endsWith(suffix));
    if (!path) throw new Error(`world leaders zip: ${suffix} missing`);
    return JSON.parse(new TextDecoder().decode(files[path])) as Record<string, Resource>;
  };
  const persons = read('persons.json');
  const offices = read('government-offices.json');
  const countries = read('countries.json');
  const rows = new Set<string>();
  for (const person of Object.values(persons)) {
    const name = prop(person, `${FOAF}name`);
    if (!name) continue;
    for (const ref of linked(person, `${WL}appointedGovernmentOffice`)) {
      const office = offices[ref['@id'] ?? ''];
      const title = prop(office, `${WL}title`);
      const countryRef = office && linked(office, `${COUNTRY}hasCountry`)[0];
      const country = cleanText(
        String(
          (countryRef && (countries[countryRef['@id'] ?? ''] as Record<string, unknown>)?.[LABEL]) ?? '',
        ),
      );
      if (!title || !country) continue;
      rows.add([country, title, name].map((v) => v.replace(/[\t\n]/g, ' ')).join('\t'));
    }
  }
  return [
    `# CIA World Leaders as of ${WORLD_LEADERS_AS_OF}: name, office and country only (public domain).`,
    '# Extracted by scripts/extract-world-leaders.ts; one row per person and office.',
    TSV_HEADER.join('\t'),
    ...[...rows].sort(),
    '',
  ].join('\n');
}

/** "head_of_state", "head_of_government", "minister", ... from the office's title. */
export function officeCategory(title: string): string {
  const t = title.toLowerCase();
  if (/\b(deputy|vice)\b.*\b(prime minister|premier|chancellor)\b/.test(t))
    return 'head_of_government_deputy';
  if (/\b(vice president|crown prince)\b/.test(t)) return 'head_of_state_deputy';
  if (
    /^(president|king|queen|emir|amir|sultan|grand duke|co-prince|monarch|supreme leader|chief of state|governor general|captain regent|head of state)( \(.*\))?$/.test(
      t,
    )
  )
    return 'head_of_state';
  if (/\b(prime minister|premier|chancellor|chief executive|head of government)\b/.test(t))
    return 'head_of_government';
  if (/\b(central bank|reserve bank|national bank|monetary authority)\b/.test(t)) return 'central_bank';
  if (/\b(ambassador|permanent representative)\b/.test(t)) return 'diplomat';
  if (/\b(minister|secretary|attorney general)\b/.test(t)) return 'minister';
  return 'senior_official';
}

/**
 * Parses the shipped TSV. One person per country and name (a name in two countries is two
 * people), carrying every office they hold there. All are tier 1, current on the data's date.
 */
export function parseWorldLeaders(tsv: Uint8Array | string): ParsedList {
  const source = typeof tsv === 'string' ? tsv : new TextDecoder('utf-8').decode(tsv);
  const lines = source.split('\n').filter((line) => line && !line.startsWith('#'));
  if (lines[0] !== TSV_HEADER.join('\t'))
    throw new Error(`world leaders file: header must be "${TSV_HEADER}"`);
  const byKey = new Map<string, { person: ListedPerson; offices: string[] }>();
  for (const line of lines.slice(1)) {
    const [country, office, name] = line.split('\t');
    if (!country || !office || !name) continue;
    const key = `${country}|${name}`;
    let entry = byKey.get(key);
    if (!entry) {
      // "LEE Ta-wei (a.k.a. David LEE)": the other name is an alias, not part of the primary one.
      const aka = name.match(/^(.+?)\s*\((?:a\.k\.a\.?|aka)\s+(.+?)\)\s*$/i);
      const person = newPerson('world_leaders_pep', key, aka ? aka[1] : name);
      if (aka) addName(person.names, aka[2], 'strong');
      person.nationalities.push(country);
      person.locations.push(country);
      entry = { person, offices: [] };
      byKey.set(key, entry);
    }
    entry.offices.push(office);
  }
  const people: ListedPerson[] = [];
  for (const { person, offices } of byKey.values()) {
    const country = person.nationalities[0];
    // The first office decides the category, a head of state before a minister.
    const ranked = [...offices].sort(
      (a, b) => categoryRank(officeCategory(a)) - categoryRank(officeCategory(b)),
    );
    person.pep = {
      tier: 1,
      current: true,
      as_of: WORLD_LEADERS_AS_OF,
      category: officeCategory(ranked[0]),
      position: `${ranked.join('; ')}, ${country} (in office on ${WORLD_LEADERS_AS_OF})`,
      country,
    };
    person.programmes.push(...ranked.map((office) => `${office} (${country})`));
    people.push(person);
  }
  return { people, entityCount: lines.length - 1, sourceDate: WORLD_LEADERS_AS_OF };
}

const CATEGORY_ORDER = [
  'head_of_state',
  'head_of_government',
  'head_of_state_deputy',
  'head_of_government_deputy',
  'minister',
  'central_bank',
  'diplomat',
  'senior_official',
];

function categoryRank(category: string): number {
  const rank = CATEGORY_ORDER.indexOf(category);
  return rank < 0 ? CATEGORY_ORDER.length : rank;
}
