/**
 * UK HM Treasury OFSI Consolidated List of Financial Sanctions Targets, 2022 column format, as
 * the Excel workbook OFSI publishes (one row per name variant, grouped by `Group ID`).
 */
import { XMLParser } from 'fast-xml-parser';
import { unzipSync } from 'fflate';
import { normaliseCountry } from './countries.ts';
import { addDobs, isoFromDayMonthYear, parseNumericDob } from './listed-dates.ts';
import { addName, addUnique, cleanText, newPerson } from './listed-person.ts';
import { addSharedIds, ofsiGroupId } from './shared-ids.ts';
import type { ListDescriptor, ListedName, ListedPerson, ParsedList } from './types.ts';
import { child, childNodes, childText, type XmlNode } from './xml-nodes.ts';

export const UK_OFSI_FILE = 'sanctions/uk/UK_Sanctions_List.xlsx';

export const UK_OFSI_LIST: ListDescriptor = {
  id: 'uk_ofsi',
  name: 'UK OFSI Consolidated List of Financial Sanctions Targets',
  category: 'sanctions',
  publisher: 'HM Treasury, Office of Financial Sanctions Implementation (OFSI)',
  licence: 'Open Government Licence v3.0',
  files: [UK_OFSI_FILE],
  source_date: '2025-04-10',
  source_date_basis:
    'The sheet\'s own "Last Updated" cell B1 (10/04/2025), read from the workbook at build time.',
  attribution: 'Contains public sector information licensed under the Open Government Licence v3.0.',
  historical: true,
  notes: [
    'Retired on 28 January 2026: the FCDO UK Sanctions List (uk_fcdo) is now the only UK designation list. This ' +
      '2025 snapshot is kept only as a dated historical source: an OFSI entry is screened only as part of the ' +
      'current FCDO designation that carries its OFSI Group ID (adding the date of birth, nationality and place of ' +
      'birth the FCDO transcription lacks), never on its own; entries no FCDO designation carries are dropped.',
  ],
};

/** Header names of row 2 the parser relies on; columns are located by these, then read by letter. */
const COLUMNS = {
  name6: 'Name 6',
  name1: 'Name 1',
  name2: 'Name 2',
  name3: 'Name 3',
  name4: 'Name 4',
  name5: 'Name 5',
  nonLatin: 'Name Non-Latin Script',
  dob: 'DOB',
  townOfBirth: 'Town of Birth',
  countryOfBirth: 'Country of Birth',
  nationality: 'Nationality',
  position: 'Position',
  country: 'Country',
  otherInformation: 'Other Information',
  groupType: 'Group Type',
  aliasType: 'Alias Type',
  aliasQuality: 'Alias Quality',
  regime: 'Regime',
  listedOn: 'Listed On',
  groupId: 'Group ID',
} as const;

type Column = keyof typeof COLUMNS;
type SheetRow = Map<string, string>;

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  trimValues: false,
  isArray: (name) => name === 'si' || name === 'r' || name === 'row' || name === 'c',
});

function readZipText(files: Record<string, Uint8Array>, path: string): string {
  const entry = files[path];
  if (!entry) throw new Error(`UK OFSI workbook: ${path} missing`);
  return new TextDecoder('utf-8').decode(entry);
}

function sharedStrings(text: string): string[] {
  const sst = child(xml.parse(text) as XmlNode, 'sst');
  return childNodes(sst, 'si').map((si) => {
    // Plain `<t>` or rich-text runs `<r><t>`; whitespace kept as written.
    if (si.t !== undefined) return childText(si, 't');
    return childNodes(si, 'r')
      .map((run) => childText(run, 't'))
      .join('');
  });
}

function sheetRows(text: string, strings: string[]): SheetRow[] {
  const sheet = child(xml.parse(text) as XmlNode, 'worksheet');
  const rows: SheetRow[] = [];
  for (const row of childNodes(child(sheet, 'sheetData'), 'row')) {
    const cells: SheetRow = new Map();
    for (const cell of childNodes(row, 'c')) {
      const ref = String(cell['@_r'] ?? '');
      const letters = ref.replace(/\d+$/, '');
      const raw = childText(cell, 'v');
      if (!letters || raw === '') continue;
      const value = cell['@_t'] === 's' ? (strings[Number(raw)] ?? '') : raw;
      cells.set(letters, value.trim());
    }
    rows.push(cells);
  }
  return rows;
}

function columnLetters(header: SheetRow): Record<Column, string> {
  const byName = new Map<string, string>();
  for (const [letter, name] of header) if (!byName.has(name)) byName.set(name, letter);
  const out = {} as Record<Column, string>;
  for (const [key, name] of Object.entries(COLUMNS) as [Column, string][]) {
    const letter = byName.get(name);
    if (!letter) throw new Error(`UK OFSI workbook: header column "${name}" missing`);
    out[key] = letter;
  }
  return out;
}

/** OFSI writes several values in one cell as "(1) Russia (2) Ukraine" or "(1) Russia. (2) Syria". */
export function splitNumbered(text: string): string[] {
  return text
    .split(/\(\d+\)/)
    .map((part) =>
      part
        .trim()
        .replace(/[.,;]$/, '')
        .trim(),
    )
    .filter((part) => part && part !== '-');
}

/**
 * Nationalities: numbered values, and the few cells that join two countries without numbers
 * ("Germany. Russia", "Estonia, Russia"), split only when every part is a country.
 */
function splitNationalities(text: string): string[] {
  return splitNumbered(text).flatMap((value) => {
    if (normaliseCountry(value)) return [value];
    const parts = value.split(/[.,]\s+/).map((part) => part.trim());
    return parts.length > 1 && parts.every((part) => normaliseCountry(part)) ? parts : [value];
  });
}

function nameStrength(aliasType: string, quality: string): ListedName['strength'] {
  if (aliasType === 'Primary name') return 'primary';
  if (quality.toLowerCase().startsWith('low')) return 'weak';
  return 'strong';
}

/**
 * Parses the OFSI workbook. Rows are grouped by `Group ID`; only `Individual` groups become people,
 * while `entityCount` counts every group (individuals, entities, ships). Name = Name 1..5 then
 * Name 6 (the surname). The source date is cell B1.
 */
export function parseUkOfsi(workbook: Buffer | Uint8Array): ParsedList {
  const files = unzipSync(workbook instanceof Uint8Array ? workbook : new Uint8Array(workbook));
  const strings = sharedStrings(readZipText(files, 'xl/sharedStrings.xml'));
  const rows = sheetRows(readZipText(files, 'xl/worksheets/sheet1.xml'), strings);
  const col = columnLetters(rows[1] ?? new Map());
  const get = (row: SheetRow, key: Column) => row.get(col[key]) ?? '';

  const groups = new Map<string, SheetRow[]>();
  for (const row of rows.slice(2)) {
    const id = get(row, 'groupId');
    if (!id) continue;
    const list = groups.get(id);
    if (list) list.push(row);
    else groups.set(id, [row]);
  }

  const people: ListedPerson[] = [];
  for (const [groupId, groupRows] of groups) {
    if (get(groupRows[0], 'groupType') !== 'Individual') continue;
    const fullName = (row: SheetRow) =>
      (['name1', 'name2', 'name3', 'name4', 'name5', 'name6'] as Column[])
        .map((key) => get(row, key))
        .filter(Boolean)
        .join(' ');
    const primaryRow = groupRows.find((row) => get(row, 'aliasType') === 'Primary name') ?? groupRows[0];
    const person = newPerson('uk_ofsi', groupId, fullName(primaryRow));
    // The FCDO designation quotes this Group ID: the publisher's own link between the two rows.
    addSharedIds(person, ofsiGroupId(groupId));
    for (const row of groupRows) {
      addName(person.names, fullName(row), nameStrength(get(row, 'aliasType'), get(row, 'aliasQuality')));
      addName(person.names, get(row, 'nonLatin'), 'strong');
      addDobs(person.dobs, parseNumericDob(get(row, 'dob')));
      addUnique(person.nationalities, ...splitNationalities(get(row, 'nationality')));
      addUnique(
        person.locations,
        ...splitNumbered(get(row, 'townOfBirth')),
        ...splitNumbered(get(row, 'countryOfBirth')),
        ...splitNumbered(get(row, 'country')),
      );
      addUnique(person.programmes, get(row, 'regime'));
    }
    const first = primaryRow;
    const info = cleanText(get(first, 'otherInformation'));
    const reference = info.match(/\(UK Sanctions List Ref\):\s*([A-Z]{2,4}\d{3,5})/);
    if (reference) person.reference = reference[1];
    const gender = info.match(/\(Gender\):\s*(\w+)/);
    if (gender) person.gender = gender[1];
    const listedOn = isoFromDayMonthYear(get(first, 'listedOn'));
    if (listedOn) person.listed_on = listedOn;
    const position = get(first, 'position');
    const remarks = [position && `Position: ${position}`, info].filter(Boolean).join('; ');
    if (remarks) person.remarks = remarks;
    people.push(person);
  }

  const lastUpdated = isoFromDayMonthYear(rows[0]?.get('B'));
  return { people, entityCount: groups.size, sourceDate: lastUpdated };
}
