/**
 * Australia: DFAT Consolidated List (persons and entities subject to targeted financial sanctions
 * or travel bans under Australian sanction laws), the official `.xlsx` workbook.
 *
 * The workbook is read with SheetJS (`@e965/xlsx`, the npm build of SheetJS Community Edition
 * 0.20.3): synchronous, so a parser stays a plain function of the file's bytes; no dependencies;
 * and it exposes each cell's type and number format, which this list needs (a date-of-birth cell
 * may be a year typed as a number, an Excel date at day or month precision, or text). The `xlsx`
 * package on npm is stuck at 0.18.5, with published advisories that 0.20.x fixes; SheetJS
 * now publishes only on its own site, and `@e965/xlsx` republishes those releases unchanged.
 */
import * as XLSX from '@e965/xlsx';
import { normaliseCountries } from './countries.ts';
import { addDobs, calendarDob, monthDob, monthNumber, rangeDob, yearDob } from './listed-dates.ts';
import { addName, addUnique, cleanText, newPerson, splitPlaces } from './listed-person.ts';
import { addSharedIds, unReferenceId } from './shared-ids.ts';
import type { ListDescriptor, ListedDob, ListedName, ListedPerson, ParsedList } from './types.ts';

export const AU_DFAT_FILE = 'sanctions/au_dfat_2026-02/Australian_Sanctions_Consolidated_List.xlsx';

export const AU_DFAT_LIST: ListDescriptor = {
  id: 'au_dfat',
  name: 'Australian Sanctions Consolidated List (DFAT)',
  category: 'sanctions',
  publisher: 'Australian Government, Department of Foreign Affairs and Trade (Australian Sanctions Office)',
  licence: 'Commonwealth of Australia, CC BY 4.0 (DFAT website content; confirm for this file)',
  files: [AU_DFAT_FILE],
  source_date: '2026-02-24',
  source_date_basis: 'The newest `Control Date` in the workbook (read at build time).',
  attribution: '© Commonwealth of Australia (Department of Foreign Affairs and Trade), CC BY 4.0',
};

const COLUMNS = {
  reference: 'Reference',
  name: 'Name of Individual or Entity',
  type: 'Type',
  nameType: 'Name Type',
  aliasStrength: 'Alias Strength',
  dob: 'Date of Birth',
  placeOfBirth: 'Place of Birth',
  citizenship: 'Citizenship',
  additional: 'Additional Information',
  listing: 'Listing Information',
  committees: 'Committees',
  controlDate: 'Control Date',
} as const;
type Column = keyof typeof COLUMNS;
type Row = Partial<Record<Column, XLSX.CellObject>>;

function excelDate(serial: number): { y: number; m: number; d: number } | undefined {
  const parsed = XLSX.SSF.parse_date_code(serial);
  return parsed ? { y: parsed.y, m: parsed.m, d: parsed.d } : undefined;
}

const TEXT_DATE =
  /(approximately\s+|circa\s+)?(?:between\s+(\d{4})\s+and\s+(\d{4})|(\d{1,2})\/(\d{1,2})\/(\d{4})|(\d{1,2})\s+([A-Za-z]+)\s+(\d{4})|([A-Za-z]+)\s+(\d{4})|(\d{1,2})\/(\d{4})|(\d{4}))/gi;

/** Every date a text cell states: "dd/mm/yyyy, yyyy", "Approximately 1960", "9 May 1960, April 1961". */
export function dfatTextDates(text: string): ListedDob[] {
  const out: ListedDob[] = [];
  for (const m of text.matchAll(TEXT_DATE)) {
    const approx = Boolean(m[1]);
    if (m[2]) addDobs(out, rangeDob(Number(m[2]), Number(m[3])));
    else if (m[6]) {
      const [d, mo, y] = [Number(m[4]), Number(m[5]), Number(m[6])];
      addDobs(out, calendarDob(y, mo, d, approx) ?? monthDob(y, mo, approx));
    } else if (m[9] && monthNumber(m[8])) {
      addDobs(out, calendarDob(Number(m[9]), monthNumber(m[8])!, Number(m[7]), approx));
    } else if (m[11] && monthNumber(m[10]))
      addDobs(out, monthDob(Number(m[11]), monthNumber(m[10])!, approx));
    else if (m[13]) addDobs(out, monthDob(Number(m[13]), Number(m[12]), approx));
    else if (m[14]) addDobs(out, yearDob(Number(m[14]), approx));
  }
  return out;
}

/**
 * A date-of-birth cell: a number in General format is a year; a number in a date format is an
 * Excel date, at month precision when the format shows no day (`mmm-yy`); text is parsed.
 */
export function dfatDob(cell: XLSX.CellObject | undefined): ListedDob[] {
  if (!cell || cell.v === undefined || cell.v === null) return [];
  if (cell.t === 'n' && typeof cell.v === 'number') {
    const format = String(cell.z ?? 'General');
    if (format === 'General' || !XLSX.SSF.is_date(format)) {
      const year = yearDob(cell.v);
      return year ? [year] : [];
    }
    const date = excelDate(cell.v);
    if (!date) return [];
    const dob = /d/i.test(format) ? calendarDob(date.y, date.m, date.d) : monthDob(date.y, date.m);
    return dob ? [dob] : [];
  }
  return dfatTextDates(String(cell.v));
}

function cellText(cell: XLSX.CellObject | undefined): string {
  if (!cell || cell.v === undefined || cell.v === null) return '';
  return cleanText(String(cell.v).replace(/\u00a0/g, ' '));
}

function nameStrength(nameType: string, aliasStrength: string): ListedName['strength'] {
  if (/^primary name$/i.test(nameType)) return 'primary';
  return /^weak$/i.test(aliasStrength) ? 'weak' : 'strong';
}

function isoOfSerial(cell: XLSX.CellObject | undefined): string | undefined {
  if (cell?.t !== 'n' || typeof cell.v !== 'number') return undefined;
  const date = excelDate(cell.v);
  const dob = date && calendarDob(date.y, date.m, date.d);
  return dob?.kind === 'date' ? dob.date : undefined;
}

/**
 * Parses the DFAT workbook: one row per name, grouped into listings by the number in
 * `Reference` (`2`, `2a`, `8495b`). Individual listings become people; every listing is counted.
 * The source date is the newest `Control Date`.
 */
export function parseAuDfat(workbook: Uint8Array): ParsedList {
  const book = XLSX.read(workbook, { type: 'buffer', cellNF: true, cellDates: false, dense: false });
  const sheet = book.Sheets[book.SheetNames[0]];
  if (!sheet?.['!ref']) throw new Error('DFAT workbook: no sheet');
  const range = XLSX.utils.decode_range(sheet['!ref']);
  const letters = new Map<Column, string>();
  for (let c = range.s.c; c <= range.e.c; c++) {
    const header = cellText(sheet[XLSX.utils.encode_cell({ r: range.s.r, c })]);
    for (const [key, name] of Object.entries(COLUMNS) as [Column, string][]) {
      if (header === name && !letters.has(key)) letters.set(key, XLSX.utils.encode_col(c));
    }
  }
  for (const [key, name] of Object.entries(COLUMNS) as [Column, string][]) {
    if (!letters.has(key)) throw new Error(`DFAT workbook: header column "${name}" missing`);
  }

  const listings = new Map<string, Row[]>();
  let newest: string | undefined;
  for (let r = range.s.r + 1; r <= range.e.r; r++) {
    const row: Row = {};
    for (const [key, letter] of letters) row[key] = sheet[`${letter}${r + 1}`];
    const id = cellText(row.reference).match(/^(\d+)/)?.[1];
    if (!id) continue;
    const control = isoOfSerial(row.controlDate);
    if (control && (!newest || control > newest)) newest = control;
    const rows = listings.get(id);
    if (rows) rows.push(row);
    else listings.set(id, [row]);
  }

  const people: ListedPerson[] = [];
  for (const [id, rows] of listings) {
    const type = rows.map((row) => cellText(row.type)).find(Boolean);
    if (type !== 'Individual') continue;
    const primary = rows.find((row) => /^primary name$/i.test(cellText(row.nameType))) ?? rows[0];
    const person = newPerson('au_dfat', id, cellText(primary.name));
    for (const row of rows) {
      addName(
        person.names,
        cellText(row.name),
        nameStrength(cellText(row.nameType), cellText(row.aliasStrength)),
      );
      addDobs(person.dobs, ...dfatDob(row.dob));
      const citizenship = cellText(row.citizenship);
      const countries = normaliseCountries(citizenship);
      addUnique(person.nationalities, ...(countries.length ? countries : [citizenship]));
      addUnique(person.locations, ...splitPlaces(cellText(row.placeOfBirth).replace(/\b[a-z]\)\s*/g, ', ')));
      addUnique(person.programmes, cellText(row.committees));
    }
    const additional = cellText(primary.additional);
    addSharedIds(person, unReferenceId(additional));
    const remarks = [additional, cellText(primary.listing)].filter(Boolean).join('; ');
    if (remarks) person.remarks = remarks;
    person.reference = id;
    people.push(person);
  }
  return { people, entityCount: listings.size, sourceDate: newest };
}
