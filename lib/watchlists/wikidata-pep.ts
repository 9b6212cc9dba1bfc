/**
 * PEPs of international bodies, from Wikidata (CC0) as queried by the every-politician-scrapers
 * project on 2023-01-10: members of the Parliamentary Assembly of the Council of Europe (national
 * MPs delegated by their parliaments), the Pan-African and Andean parliaments, and the leaders of
 * the UN, the ICJ, the WTO, the OSCE and others.
 *
 * Files: `html/bio.csv` (name, gender, date of birth and death), `html/legislators.csv` and
 * `html/holders21.csv` (position, person, start, end; an empty end means still in office).
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { addDobs, calendarDob, monthDob, yearDob } from './listed-dates.ts';
import { cleanText, newPerson } from './listed-person.ts';
import { formerTier, PEP_MAX_AGE_YEARS } from './pep-tiers.ts';
import type { ListDescriptor, ListedDob, ListedPerson, ParsedList } from './types.ts';

export const WIKIDATA_PEP_FILES = {
  bio: 'pep/wikidata_international_2023/html/bio.csv',
  legislators: 'pep/wikidata_international_2023/html/legislators.csv',
  leaders: 'pep/wikidata_international_2023/html/holders21.csv',
} as const;

/** The date the data was queried; tiers are judged against it. */
export const WIKIDATA_PEP_AS_OF = '2023-01-10';

export const WIKIDATA_PEP_LIST: ListDescriptor = {
  id: 'intl_bodies_pep',
  name: 'Office holders of international bodies (PACE, Pan-African and Andean parliaments, UN, ICJ, WTO, OSCE)',
  category: 'pep',
  publisher: 'Wikidata (every-politician-scrapers/world)',
  licence: 'CC0 1.0 (Wikidata)',
  files: Object.values(WIKIDATA_PEP_FILES),
  source_date: WIKIDATA_PEP_AS_OF,
  source_date_basis: 'The date the files were last regenerated from Wikidata (2023-01-10, upstream commit).',
  notes: [
    `Tiers are judged against ${WIKIDATA_PEP_AS_OF}: tier 1 = in office (no end date); tier 2 = left within 5 ` +
      'years before it; tier 3 = earlier. People with a date of death are not screened, nor former office holders ' +
      `who would be over ${PEP_MAX_AGE_YEARS}, or whose year of birth is unknown.`,
    'Wikidata is only as complete as its editors made it: PACE membership does not show the national offices ' +
      'these MPs hold, and some end dates are missing (a term shown as running may have ended).',
  ],
};

type Row = Record<string, string>;

function readCsv(input: Uint8Array | string): Row[] {
  const text = typeof input === 'string' ? input : new TextDecoder('utf-8').decode(input);
  return parseCsv(text, { columns: true, skip_empty_lines: true, bom: true }) as Row[];
}

/** A Wikidata date at its stated precision (11 day, 10 month, 9 year); coarser ones are no DOB. */
function wikidataDate(value: string, precision: string): ListedDob | undefined {
  const m = value.match(/^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?$/);
  if (!m) return undefined;
  const p = Number(precision || (m[3] ? 11 : m[2] ? 10 : 9));
  if (p >= 11 && m[3]) return calendarDob(Number(m[1]), Number(m[2]), Number(m[3]));
  if (p >= 10 && m[2]) return monthDob(Number(m[1]), Number(m[2]));
  if (p >= 9) return yearDob(Number(m[1]));
  return undefined;
}

/** Position labels → PEP category. */
export function positionCategory(position: string): string {
  const p = position.toLowerCase();
  if (/parliament|parliamentary assembly/.test(p) && !/^president|speaker/.test(p)) return 'legislator';
  if (/court of justice/.test(p)) return 'judge';
  if (/permanent representative/.test(p)) return 'diplomat';
  return 'international_organisation_leader';
}

/** A year, or the end of a year-only date, for comparing terms ("2016" ends on 2016-12-31). */
function endDate(value: string): string {
  if (/^\d{4}$/.test(value)) return `${value}-12-31`;
  if (/^\d{4}-\d{2}$/.test(value)) return `${value}-28`;
  return value;
}

const year = (value: string) => value.slice(0, 4);

function birthYearOf(dob: ListedDob): number {
  if (dob.kind === 'date') return Number(dob.date.slice(0, 4));
  return dob.kind === 'range' ? dob.from : dob.year;
}

export interface WikidataPepFiles {
  bio: Uint8Array | string;
  legislators: Uint8Array | string;
  leaders: Uint8Array | string;
}

/**
 * Parses the three CSVs into PEPs: one person per Wikidata item with at least one position,
 * named as in `bio.csv`.
 */
export function parseWikidataPep(files: WikidataPepFiles, referenceDate = WIKIDATA_PEP_AS_OF): ParsedList {
  const bios = new Map(readCsv(files.bio).map((row) => [row.id, row]));
  const terms = new Map<string, Row[]>();
  for (const row of [...readCsv(files.leaders), ...readCsv(files.legislators)]) {
    if (!row.personID || !row.position) continue;
    const list = terms.get(row.personID);
    if (list) list.push(row);
    else terms.set(row.personID, [row]);
  }
  const people: ListedPerson[] = [];
  for (const [id, rows] of terms) {
    const bio = bios.get(id);
    const name = cleanText(bio?.name || rows[0].person);
    if (!name || bio?.dod) continue; // a date of death: not screened
    const current = rows.filter((row) => !row.end && (!row.start || row.start <= referenceDate));
    const dob = bio ? wikidataDate(bio.dob, bio.dobp) : undefined;
    const birthYear = dob ? birthYearOf(dob) : 0;
    if (!current.length && (!birthYear || Number(referenceDate.slice(0, 4)) - birthYear > PEP_MAX_AGE_YEARS))
      continue;
    // Leaders before parliament seats, then the latest term first.
    const ordered = [...(current.length ? current : rows)].sort(
      (a, b) =>
        Number(positionCategory(a.position) === 'legislator') -
          Number(positionCategory(b.position) === 'legislator') ||
        endDate(b.end || '9999').localeCompare(endDate(a.end || '9999')),
    );
    const main = ordered[0];
    const person = newPerson('intl_bodies_pep', id, name);
    addDobs(person.dobs, dob);
    if (bio?.gender) person.gender = bio.gender;
    const lastEnd = rows
      .map((row) => endDate(row.end))
      .sort()
      .at(-1);
    const span = main.start ? `${year(main.start)}–${main.end ? year(main.end) : 'present'}` : '';
    person.pep = current.length
      ? {
          tier: 1,
          current: true,
          as_of: referenceDate,
          category: positionCategory(main.position),
          position: span ? `${main.position} (${span})` : main.position,
          ...(main.start ? { since: main.start } : {}),
        }
      : {
          tier: formerTier(lastEnd, referenceDate),
          current: false,
          as_of: referenceDate,
          category: positionCategory(main.position),
          position: `Former ${main.position}${span ? ` (${span})` : ''}`,
          ...(main.start ? { since: main.start } : {}),
          ...(lastEnd ? { until: lastEnd } : {}),
        };
    const positions: string[] = [];
    for (const row of rows) if (!positions.includes(row.position)) positions.push(row.position);
    person.programmes.push(...positions);
    person.url = `https://www.wikidata.org/wiki/${id}`;
    people.push(person);
  }
  return { people, entityCount: terms.size, sourceDate: referenceDate };
}
