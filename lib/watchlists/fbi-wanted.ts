/**
 * FBI wanted posters (public API https://api.fbi.gov/wanted/v1/list), from a flattened CSV
 * snapshot plus one raw API page in its live shape.
 *
 * The poster feed mixes people the FBI wants with victims, missing and unidentified persons, and
 * posters about events rather than people. Flagging a customer because their name matches a
 * murder victim or a missing child would be wrong and harmful, so only posters about a named
 * person the FBI is seeking are kept (see `isWantedPersonPoster`).
 */
import { createHash } from 'node:crypto';
import { parse as parseCsv } from 'csv-parse/sync';
import { normaliseCountries } from './countries.ts';
import { addDobs, calendarDob, monthNumber, rangeDob, yearDob } from './listed-dates.ts';
import { addName, addUnique, cleanText, newPerson, splitPlaces } from './listed-person.ts';
import type { ListDescriptor, ListedDob, ListedPerson, ParsedList } from './types.ts';

export const FBI_WANTED_FILES = {
  csv: 'criminal/fbi_wanted/fbi_wanted.csv',
  apiPage: 'criminal/fbi_wanted/fbi_data.json',
} as const;

export const FBI_INCLUSION_RULE =
  'Kept: posters about a named person the FBI is seeking. Dropped: subjects "ViCAP …", "Kidnappings and ' +
  'Missing Persons", "… Victim", "ECAP"/"Endangered Child Alert Program"; descriptions naming a victim, a ' +
  'deceased individual or a missing person; titles that name an event or an unknown person rather than a ' +
  'person (UNKNOWN, JOHN/JANE DOE, HOMICIDE, ROBBERY, ARSON, SHOOTING, …, or any digit); "Seeking Information" ' +
  'posters whose description is an incident (a year, a death, a disappearance) rather than a charge; posters ' +
  'without a subject that state no charge; API items whose person_classification is not "Main" or whose poster_classification is ' +
  '"missing". "Seeking Information" posters stay only under these rules (named suspects, e.g. terrorism ' +
  'posters). Posters marked captured are kept with their status in the remarks.';

export const FBI_WANTED_LIST: ListDescriptor = {
  id: 'fbi_wanted',
  name: 'FBI Wanted',
  category: 'criminal',
  publisher: 'U.S. Federal Bureau of Investigation',
  licence: 'Public domain (U.S. federal government work); the snapshot repositories state no licence',
  files: Object.values(FBI_WANTED_FILES),
  source_date: '2023-12-07',
  source_date_basis:
    'Newest `publication` date in fbi_wanted.csv (snapshot taken between Dec 2023 and Feb 2024; computed at ' +
    'build time). fbi_data.json adds the 20 newest posters of the live API as of 2024-09-09.',
  notes: [FBI_INCLUSION_RULE],
};

/** A poster in the fields both sources share. */
export interface FbiPoster {
  title: string;
  description: string;
  subjects: string[];
  status: string;
  aliases: string[];
  publication: string;
  sex: string;
  nationality: string;
  datesOfBirthUsed: string[];
  placeOfBirth: string;
  url?: string;
  personClassification?: string;
  posterClassification?: string;
}

const EXCLUDED_SUBJECT = /ViCAP|Kidnappings and Missing Persons|Victim|\bECAP\b|Endangered Child/i;
const EXCLUDED_DESCRIPTION = /\bvictims?\b|\bdeceased\b|missing person|reported missing/i;
const NOT_A_PERSON_TITLE =
  /\b(UNKNOWN|UNIDENTIFIED|JOHN DOE|JANE DOE|VICTIMS?|DECEASED|HOMICIDES?|INVESTIGATIONS?|SHOOTINGS?|SHOOTER|BOMBINGS?|ROBBER(Y|IES|S)?|CARJACKING|CRIMES?|KIDNAPPERS|MURDERS?|ATTACKS?|ARSON|VANDALISM|LOOTING|HACKERS|MEMBERS|DEATH|FIRE|ASSAULT|SUSPECTS?|GROUP|INTERFERENCE|ELECTIONS?|ACTIVITIES|ESPIONAGE|STOLEN|CAMPAIGN|SCHEME|CONSPIRATORS|NETWORK|OPERATION|THEFT|INCIDENT|BURGLARY|TAMPERING|SUBJECTS|DEFACEMENT|RAPIST|DEVICES?|HACKING|BOMBS?|VIOLENCE|ACTORS|DERAILMENT|THREATS|SABOTAGE|SUPPORT|EXPLOSIVES?)\b|[\d$]/i;
/** An incident description ("Homicide / La Cygne, Kansas / April 3, 2004") rather than a charge. */
const INCIDENT_DESCRIPTION = /\b(1[89]|20)\d{2}\b|\b(death|disappearance|homicide|died)\b/i;
const NAME_SUFFIX = /^(JR|SR|II|III|IV|V)\.?$/i;

/**
 * Whether a poster is about a named person the FBI is seeking (rules in `FBI_INCLUSION_RULE`).
 * Victims, missing and unidentified people and event posters are not screening subjects.
 */
export function isWantedPersonPoster(poster: FbiPoster): boolean {
  if (poster.personClassification && poster.personClassification !== 'Main') return false;
  if (poster.posterClassification === 'missing') return false;
  if (poster.subjects.some((s) => EXCLUDED_SUBJECT.test(s))) return false;
  if (EXCLUDED_DESCRIPTION.test(poster.description)) return false;
  if (NOT_A_PERSON_TITLE.test(poster.title)) return false;
  const description = cleanText(poster.description);
  // "Seeking Information" posters about an incident (a date and place, a death, a disappearance)
  // name its victim or no one; those naming a suspect state a charge or nothing at all.
  const seekingInformation = poster.subjects.some((s) => /Seeking Information/i.test(s));
  if (seekingInformation && INCIDENT_DESCRIPTION.test(description)) return false;
  // Without a subject the poster must at least state a charge.
  if (!poster.subjects.length && (!description || INCIDENT_DESCRIPTION.test(description))) return false;
  return true;
}

/** Poster title without the " - CITY, STATE" suffix some posters carry. */
export function posterName(title: string): string {
  return cleanText(
    title
      .replace(/\s+-+\s+[^-]*,[^-]*$/, '')
      .replace(/\s+-+\s*$/, '')
      .replace(/^["“”]+|["“”]+$/g, ''),
  );
}

/** Aliases as the API joins them (", "), keeping "Jr." with its name and dropping quotes. */
export function splitAliases(joined: string): string[] {
  const out: string[] = [];
  for (const raw of joined.split(/,\s+/)) {
    const part = raw.trim();
    if (!part) continue;
    if (NAME_SUFFIX.test(part) && out.length) {
      out[out.length - 1] = `${out[out.length - 1]}, ${part}`;
      continue;
    }
    out.push(part);
  }
  return out;
}

const FULL_DATE = /\b([A-Z][a-z]+)\.?\s+(\d{1,2}),\s*(\d{4})\b/g;

/** DOBs from `dates_of_birth_used` entries ("November 26, 2003", "1974", "Circa 1973 - 1980"). */
export function parseFbiDobs(entries: string[]): ListedDob[] {
  const dobs: ListedDob[] = [];
  for (const entry of entries) {
    const text = cleanText(entry);
    const range = text.match(/(\d{4})\s*(?:-|to)\s*(\d{4})/);
    if (range) {
      addDobs(dobs, rangeDob(Number(range[1]), Number(range[2])));
      continue;
    }
    const approximate = /\b(circa|approximately)\b/i.test(text);
    let rest = text;
    for (const m of text.matchAll(FULL_DATE)) {
      const month = monthNumber(m[1]);
      if (month) addDobs(dobs, calendarDob(Number(m[3]), month, Number(m[2]), approximate));
      rest = rest.replace(m[0], ' ');
    }
    for (const m of rest.matchAll(/\b(1[89]\d{2}|20\d{2})\b/g))
      addDobs(dobs, yearDob(Number(m[1]), approximate));
  }
  return dobs;
}

function stableId(poster: FbiPoster): string {
  if (poster.url) return poster.url;
  const hash = createHash('sha256').update(`${poster.title}\n${poster.publication}`).digest('hex');
  return `fbi-${hash.slice(0, 16)}`;
}

function toPerson(poster: FbiPoster): ListedPerson {
  const person = newPerson('fbi_wanted', stableId(poster), posterName(poster.title));
  for (const alias of poster.aliases) {
    const name = alias.replace(/^["“”']+|["“”']+$/g, '').trim();
    if (!name || /^unknown$/i.test(name)) continue;
    // A quoted single word is a street nickname: too common to identify anyone on its own.
    const nickname = /^["“]/.test(alias) && !/\s/.test(name);
    addName(person.names, name, nickname ? 'weak' : 'strong');
  }
  person.dobs = parseFbiDobs(poster.datesOfBirthUsed);
  person.nationalities = normaliseCountries(poster.nationality);
  addUnique(person.locations, ...splitPlaces(poster.placeOfBirth));
  addUnique(person.programmes, ...poster.subjects);
  for (const charge of cleanText(poster.description).split(/;\s*/)) addUnique(person.programmes, charge);
  if (poster.sex) person.gender = poster.sex;
  if (/^\d{4}-\d{2}-\d{2}/.test(poster.publication)) person.listed_on = poster.publication.slice(0, 10);
  if (poster.url) person.url = poster.url;
  if (poster.status && poster.status !== 'na') person.remarks = `Poster status: ${poster.status}`;
  return person;
}

function csvPosters(text: string): FbiPoster[] {
  const rows = parseCsv(text, { columns: true, skip_empty_lines: true, bom: true }) as Record<
    string,
    string
  >[];
  return rows.map((row) => ({
    title: row.title ?? '',
    description: row.description ?? '',
    subjects: (row.subject ?? '')
      .split(/,\s+/)
      .map((s) => s.trim())
      .filter(Boolean),
    status: row.status ?? '',
    aliases: splitAliases(row.aliaces ?? ''),
    publication: row.publication ?? '',
    sex: row.sex ?? '',
    nationality: row.nationality ?? '',
    // The CSV joins the API list with ", " although the dates contain commas; the DOB parser
    // reads whole dates out of the joined text instead of splitting it.
    datesOfBirthUsed: row.dates_of_birth_used ? [row.dates_of_birth_used] : [],
    placeOfBirth: row.place_of_birth ?? '',
  }));
}

interface ApiItem {
  title?: string | null;
  description?: string | null;
  subjects?: string[] | null;
  status?: string | null;
  aliases?: string[] | null;
  publication?: string | null;
  sex?: string | null;
  nationality?: string | null;
  dates_of_birth_used?: string[] | null;
  place_of_birth?: string | null;
  url?: string | null;
  person_classification?: string | null;
  poster_classification?: string | null;
}

function apiPosters(text: string): FbiPoster[] {
  const page = JSON.parse(text) as { items?: ApiItem[] };
  return (page.items ?? []).map((item) => ({
    title: item.title ?? '',
    description: item.description ?? '',
    subjects: item.subjects ?? [],
    status: item.status ?? '',
    aliases: item.aliases ?? [],
    publication: item.publication ?? '',
    sex: item.sex ?? '',
    nationality: item.nationality ?? '',
    datesOfBirthUsed: item.dates_of_birth_used ?? [],
    placeOfBirth: item.place_of_birth ?? '',
    url: item.url ?? undefined,
    personClassification: item.person_classification ?? undefined,
    posterClassification: item.poster_classification ?? undefined,
  }));
}

/**
 * Parses the FBI poster CSV and, optionally, a raw API page. Only wanted persons become people
 * (`isWantedPersonPoster`); `entityCount` counts every distinct poster. A poster in both sources
 * is taken from the API page, which is newer and carries the poster URL. The source date is the
 * newest CSV publication date.
 */
export function parseFbiWanted(files: { csv: Buffer | string; apiPage?: Buffer | string }): ParsedList {
  const fromCsv = csvPosters(typeof files.csv === 'string' ? files.csv : files.csv.toString('utf8'));
  const fromApi = files.apiPage
    ? apiPosters(typeof files.apiPage === 'string' ? files.apiPage : files.apiPage.toString('utf8'))
    : [];
  const titleKey = (p: FbiPoster) => posterName(p.title).toLowerCase();
  const apiTitles = new Set(fromApi.map(titleKey));
  const posters = [...fromApi, ...fromCsv.filter((p) => !apiTitles.has(titleKey(p)))];
  return {
    people: posters.filter(isWantedPersonPoster).map(toPerson),
    entityCount: posters.length,
    sourceDate: newestPublication(fromCsv),
  };
}

/** The newest poster publication date (YYYY-MM-DD), the list's own date. */
function newestPublication(posters: readonly FbiPoster[]): string | undefined {
  const newest =
    posters
      .map((p) => p.publication)
      .sort()
      .at(-1) ?? '';
  return /^\d{4}-\d{2}-\d{2}/.test(newest) ? newest.slice(0, 10) : undefined;
}

/**
 * Parses the live API's pages alone (what a sync downloads): the list's date is the newest
 * poster publication they carry.
 */
export function parseFbiWantedApi(pages: readonly (Buffer | string)[]): ParsedList {
  const posters = pages.flatMap((page) =>
    apiPosters(typeof page === 'string' ? page : page.toString('utf8')),
  );
  return {
    people: posters.filter(isWantedPersonPoster).map(toPerson),
    entityCount: posters.length,
    sourceDate: newestPublication(posters),
  };
}
