/**
 * OFAC Specially Designated Nationals (SDN) list, legacy CSV format (sdn.csv, alt.csv, add.csv,
 * sdn_comments.csv sharing the key `ent_num`).
 *
 * The product ships the last complete four-file set (on or before 2021-07-07) and the newer
 * primary file of 2024-05-03, which has no companion files. The newer file decides who is on the
 * list: someone OFAC removed between the two dates is no longer sanctioned and must not be
 * screened as such, and someone added since has only the aliases the 2024 remarks carry.
 */
import { parse } from 'csv-parse/sync';
import { addDobs, calendarDob, monthDob, monthNumber, rangeDob, yearDob } from './listed-dates.ts';
import { addName, addUnique, cleanText, newPerson, splitPlaces } from './listed-person.ts';
import { addSharedIds, ofacEntityId } from './shared-ids.ts';
import type { ListDescriptor, ListedDob, ListedPerson, ParsedList } from './types.ts';

export const OFAC_SDN_FILES = {
  sdn: 'sanctions/ofac_sdn/sdn.csv',
  alt: 'sanctions/ofac_sdn/alt.csv',
  add: 'sanctions/ofac_sdn/add.csv',
  comments: 'sanctions/ofac_sdn/sdn_comments.csv',
  newerSdn: 'sanctions/ofac_sdn_2024-05-03_sdn_only/sdn.csv',
} as const;

export const OFAC_SDN_LIST: ListDescriptor = {
  id: 'ofac_sdn',
  name: 'OFAC Specially Designated Nationals and Blocked Persons List (SDN)',
  category: 'sanctions',
  publisher: 'U.S. Department of the Treasury, Office of Foreign Assets Control',
  licence: 'Public domain (U.S. federal government work, 17 U.S.C. 105)',
  files: Object.values(OFAC_SDN_FILES),
  source_date: '2024-05-03',
  source_date_basis:
    'Membership, primary names and remarks come from the sdn.csv scraped from OFAC on 2024-05-03 ' +
    '(commit "Latest sdn data: Fri May 3 18:43:23 UTC 2024"). Alternate names and addresses come from the ' +
    'last complete four-file set, dated on or before 2021-07-07 (the files carry no date).',
  notes: [
    'Entries removed by OFAC between the 2021 set and the 2024-05-03 file are not screened (delisted).',
    'Entries added after the 2021 set have only the aliases stated in their 2024 remarks (a.k.a./f.k.a./n.k.a.).',
  ],
};

type Row = string[];

export interface OfacSdnFiles {
  sdn: Buffer | string;
  alt?: Buffer | string;
  add?: Buffer | string;
  comments?: Buffer | string;
  /** A newer sdn.csv without companion files; when given it decides list membership. */
  newerSdn?: Buffer | string;
}

/** OFAC's spec allows Latin-1; the files carry no BOM or encoding marker. */
function decode(input: Buffer | string): string {
  return typeof input === 'string' ? input : input.toString('latin1');
}

const CTRL_Z = String.fromCharCode(0x1a);

/** Null marker is `-0-`, usually with a trailing space. */
function field(value: string | undefined): string {
  const trimmed = (value ?? '').trim();
  return trimmed === '-0-' ? '' : trimmed;
}

function readRows(input: Buffer | string | undefined): Row[] {
  if (input === undefined) return [];
  const rows = parse(decode(input), {
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
  }) as Row[];
  // The final line holds only Ctrl-Z (0x1A).
  return rows.filter((row) => !(row.length === 1 && row[0].replaceAll(CTRL_Z, '').trim() === ''));
}

function groupByEntity(rows: Row[]): Map<string, Row[]> {
  const map = new Map<string, Row[]>();
  for (const row of rows) {
    const key = row[0].trim();
    const list = map.get(key);
    if (list) list.push(row);
    else map.set(key, [row]);
  }
  return map;
}

const DATE_TOKEN = /^(?:(\d{1,2})\s+)?(?:([A-Za-z]{3,9})\.?\s+)?(\d{4})$/;

function dobFromToken(token: string, approximate: boolean): ListedDob | undefined {
  const m = token.trim().match(DATE_TOKEN);
  if (!m) return undefined;
  const year = Number(m[3]);
  const month = m[2] ? monthNumber(m[2]) : undefined;
  if (m[2] && !month) return undefined;
  if (month && m[1])
    return calendarDob(year, month, Number(m[1]), approximate) ?? monthDob(year, month, approximate);
  if (month) return monthDob(year, month, approximate);
  return yearDob(year, approximate);
}

function yearOf(token: string): number | undefined {
  const m = token.match(/(\d{4})\s*$/);
  return m ? Number(m[1]) : undefined;
}

/**
 * One DOB statement from OFAC remarks, after "DOB": "31 Aug 1960", "Aug 1960", "1960",
 * "circa 1958", "circa 01 Jan 1958", "1960 to 1962", "01 Jan 1960 to 31 Dec 1962", "1970-1972".
 */
export function parseOfacDob(text: string): ListedDob | undefined {
  let value = cleanText(text)
    .replace(/^[:\s]+/, '')
    .replace(/\.$/, '');
  const approximate = /^circa\b/i.test(value);
  if (approximate) value = value.replace(/^circa\s*/i, '');
  const range = value.match(/^(.+?)\s*(?:\bto\b|-)\s*(.+)$/);
  if (range) {
    const from = yearOf(range[1]);
    const to = yearOf(range[2]);
    return from && to ? rangeDob(from, to) : undefined;
  }
  return dobFromToken(value, approximate);
}

interface RemarkFacts {
  dobs: ListedDob[];
  nationalities: string[];
  placesOfBirth: string[];
  aliases: { name: string; strength: 'weak' }[];
  gender?: string;
}

/** Reads the `;`-separated facts of an SDN remark. */
export function parseOfacRemarks(remarks: string): RemarkFacts {
  const facts: RemarkFacts = { dobs: [], nationalities: [], placesOfBirth: [], aliases: [] };
  for (const raw of remarks.split(';')) {
    const part = raw.trim().replace(/\.$/, '');
    let m = part.match(/^(?:alt\.\s+)?DOB\b(.*)$/);
    if (m) {
      addDobs(facts.dobs, parseOfacDob(m[1]));
      continue;
    }
    m = part.match(/^(?:alt\.\s+)?(?:nationality|citizen)\s+(.+)$/);
    if (m) {
      addUnique(facts.nationalities, m[1]);
      continue;
    }
    m = part.match(/^(?:alt\.\s+)?POB\s+(.+)$/);
    if (m) {
      addUnique(facts.placesOfBirth, m[1]);
      continue;
    }
    m = part.match(/^Gender\s+(\w+)/);
    if (m) {
      facts.gender = m[1];
      continue;
    }
    // Quotes delimit the alias, which may itself hold apostrophes: a.k.a. 'ABU-'UMAR'. OFAC
    // states its strong aliases as name records (alt.csv) and its weak ones (nicknames, noms de
    // guerre, a title with one name) only in the remarks, so an alias read here is weak.
    m = part.match(/^[afn]\.k\.a\.,?\s+'(.+)'$/);
    const alias = m?.[1].trim();
    if (alias) facts.aliases.push({ name: alias, strength: 'weak' });
  }
  return facts;
}

function splitPrograms(program: string): string[] {
  return program
    .split(/\]\s*\[/)
    .map((p) => p.replace(/[[\]]/g, '').trim())
    .filter(Boolean);
}

/** Remarks of one entry, with any continuation from sdn_comments.csv (which resumes mid-word). */
function fullRemarks(row: Row, comments: Map<string, Row[]>): string {
  const extra = (comments.get(row[0].trim()) ?? []).map((r) => r[1] ?? '').join('');
  return field(row[11]) + extra;
}

function buildPerson(row: Row, remarks: string, alts: Row[], adds: Row[]): ListedPerson {
  const entNum = row[0].trim();
  const person = newPerson('ofac_sdn', entNum, field(row[1]));
  const facts = parseOfacRemarks(remarks);
  for (const alt of alts) {
    // OFAC qualifies aliases only as aka/fka/nka; weak aliases are marked in the remarks column.
    const weak = /weak/i.test(field(alt[4]));
    addName(person.names, field(alt[3]), weak ? 'weak' : 'strong');
  }
  for (const alias of facts.aliases) addName(person.names, alias.name, alias.strength);
  person.dobs = facts.dobs;
  person.nationalities = facts.nationalities;
  for (const pob of facts.placesOfBirth) addUnique(person.locations, ...splitPlaces(pob));
  for (const add of adds) {
    addUnique(person.locations, field(add[3]), field(add[4]));
  }
  person.programmes = splitPrograms(field(row[3]));
  if (facts.gender) person.gender = facts.gender;
  person.url = `https://sanctionssearch.ofac.treas.gov/Details.aspx?id=${entNum}`;
  addSharedIds(person, ofacEntityId(entNum));
  const title = field(row[4]);
  const text = [title && `Title: ${title}`, remarks].filter(Boolean).join('; ');
  if (text) person.remarks = text;
  return person;
}

/**
 * Parses an OFAC SDN file set into screening subjects. Only `SDN_Type = individual` records
 * become people; `entityCount` counts every record of the list (entities, vessels, aircraft).
 * With `newerSdn`, the newer file's records define the list (see the module comment); for
 * entries in both, the newer primary name, programmes and remarks are used with the older
 * set's alternate names and addresses, and an older primary name that changed is kept as an alias.
 */
export function parseOfacSdn(files: OfacSdnFiles): ParsedList {
  const base = readRows(files.sdn);
  const alts = groupByEntity(readRows(files.alt));
  const adds = groupByEntity(readRows(files.add));
  const comments = groupByEntity(readRows(files.comments));
  const isIndividual = (row: Row) => field(row[2]).toLowerCase() === 'individual';

  if (files.newerSdn === undefined) {
    const people = base.filter(isIndividual).map((row) => {
      const key = row[0].trim();
      return buildPerson(row, fullRemarks(row, comments), alts.get(key) ?? [], adds.get(key) ?? []);
    });
    return { people, entityCount: base.length };
  }

  const older = new Map(base.map((row) => [row[0].trim(), row]));
  const newer = readRows(files.newerSdn);
  const people = newer.filter(isIndividual).map((row) => {
    const key = row[0].trim();
    const previous = older.get(key);
    const person = buildPerson(row, field(row[11]), alts.get(key) ?? [], adds.get(key) ?? []);
    // A primary name OFAC has since corrected is still a name the person is known by.
    if (previous) addName(person.names, field(previous[1]), 'strong');
    return person;
  });
  return { people, entityCount: newer.length };
}
