/**
 * INTERPOL public Red Notices, list-level records as the public notices web service returns them
 * (one JSON array per nationality queried).
 */
import { countryNameForCode } from './countries.ts';
import { addDobs, parseNumericDob } from './listed-dates.ts';
import { addUnique, newPerson } from './listed-person.ts';
import type { ListDescriptor, ListedPerson, ParsedList } from './types.ts';

export const INTERPOL_RED_NOTICES_DIR = 'criminal/interpol_red_notices/jsons';

export const INTERPOL_RED_NOTICES_LIST: ListDescriptor = {
  id: 'interpol_red',
  name: 'INTERPOL public Red Notices',
  category: 'criminal',
  publisher: 'INTERPOL (public notices web service), scraped by a university class project',
  licence: 'No licence stated; INTERPOL content',
  files: [`${INTERPOL_RED_NOTICES_DIR}/*.json`],
  source_date: '2020-12-10',
  source_date_basis:
    'Commit date of the scrape (biancapallaro/Final_Project_INTERPOL_Red_Notices 5f407d5c, 2020-12-10).',
  notes: [
    'Legal review required before production use: INTERPOL grants no open licence; red notices are personal data ' +
      'about people who are wanted, not convicted, and are often withdrawn.',
    'Stale and incomplete: a December 2020 scrape capped at 160 results per query (about 6,000 of ~7,000 public ' +
      'notices). Suitable for tests and benchmarks; a hit must be checked against the live INTERPOL site.',
  ],
};

interface NoticeRow {
  forename?: string | null;
  name?: string | null;
  date_of_birth?: string | null;
  entity_id?: string | null;
  nationalities?: string[] | null;
  _links?: { self?: { href?: string } };
}

/**
 * The notices of one file: the scrape stored bare arrays, the live web service answers
 * `{ total, _embedded: { notices: [...] } }` (what a sync downloads).
 */
function noticeRows(body: unknown): NoticeRow[] {
  if (Array.isArray(body)) return body as NoticeRow[];
  const notices = (body as { _embedded?: { notices?: unknown } } | null)?._embedded?.notices;
  if (Array.isArray(notices)) return notices as NoticeRow[];
  throw new Error('INTERPOL file is neither a notice array nor a notices web service answer');
}

/**
 * Parses the per-nationality JSON files. Notices repeat across files (several nationalities,
 * overlapping age bands), so they are merged by `entity_id` with their nationalities combined;
 * `entityCount` counts unique notices. Name = forename + family name (a notice published without
 * any name is counted but not screened); ISO alpha-2 nationalities become English country names.
 */
export function parseInterpolRedNotices(files: (Buffer | string)[]): ParsedList {
  const byId = new Map<string, ListedPerson>();
  for (const file of files) {
    const rows = noticeRows(JSON.parse(typeof file === 'string' ? file : file.toString('utf8')));
    for (const row of rows) {
      const id = row.entity_id?.trim();
      if (!id) continue;
      let person = byId.get(id);
      if (!person) {
        person = newPerson('interpol_red', id, [row.forename, row.name].filter(Boolean).join(' '));
        addDobs(person.dobs, parseNumericDob(row.date_of_birth ?? ''));
        person.programmes.push('INTERPOL Red Notice');
        const href = row._links?.self?.href;
        if (href) person.url = href;
        byId.set(id, person);
      }
      for (const code of row.nationalities ?? []) addUnique(person.nationalities, countryNameForCode(code));
    }
  }
  // A notice published without any name cannot be screened against; it still counts as a record.
  const people = [...byId.values()].filter((p) => p.primary_name !== '');
  return { people, entityCount: byId.size };
}
