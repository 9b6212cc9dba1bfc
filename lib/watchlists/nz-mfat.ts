/**
 * New Zealand: MFAT Russia Sanctions Register (Russia Sanctions Act 2022).
 *
 * The official file is a workbook (`Russia-Sanctions-Register.xlsx`) that was not available; the
 * bundled data is a per-record YAML transcription of it (ammitto, February 2026), flat records
 * whose keys look like snake_case copies of the register's column headings.
 */
import { type Doc, readTarGz, text, yamlDocuments } from './archive.ts';
import { addDobs, parseNumericDob } from './listed-dates.ts';
import { addName, addUnique, cleanText, newPerson } from './listed-person.ts';
import type { ListDescriptor, ListedPerson, ParsedList } from './types.ts';

export const NZ_RUSSIA_DERIVED_FILE = 'sanctions/nz_russia_derived_2026-02/nz-mfat-russia-2026-02.tar.gz';

export const NZ_RUSSIA_LIST: ListDescriptor = {
  id: 'nz_russia',
  name: 'New Zealand Russia Sanctions Register (MFAT)',
  category: 'sanctions',
  publisher: 'New Zealand Ministry of Foreign Affairs and Trade (MFAT)',
  licence: 'CC BY 4.0 (MFAT website content; confirm for the register)',
  files: [NZ_RUSSIA_DERIVED_FILE],
  source_date: '2026-02-20',
  source_date_basis:
    'The register states no date in this copy: the newest `date_of_sanction` or `date_of_additional_sanction` ' +
    '(computed at build time); the transcription was written on 2026-02-25.',
  attribution: 'Source: New Zealand Ministry of Foreign Affairs and Trade, licensed under CC BY 4.0.',
  notes: [
    'Bundled data is a per-record transcription of the official workbook (ammitto/data, February 2026), not ' +
      'the workbook itself; its keys were not checked against the official file.',
  ],
};

const isoDate = (value: string) => (/^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined);

function toPerson(doc: Doc): ListedPerson | undefined {
  const id = text(doc.unique_identifier);
  const name = cleanText([text(doc.first_name), text(doc.middle_names), text(doc.last_name)].join(' '));
  if (!id || !name) return undefined;
  const person = newPerson('nz_russia', id, name);
  // "LUKASHENKO Galina Rodionovna; LUKASHENKO Halyna Rodionivna": aliases separated by ";".
  for (const alias of text(doc.alias_alternate_spellings).split(';')) addName(person.names, alias, 'strong');
  addDobs(person.dobs, parseNumericDob(text(doc.dob)));
  addUnique(person.nationalities, text(doc.citizenship), text(doc.citizenship_2), text(doc.citizenship_3));
  addUnique(person.locations, text(doc.place_of_birth));
  addUnique(person.programmes, 'Russia Sanctions Act 2022');
  person.reference = id;
  const listed = isoDate(text(doc.date_of_sanction));
  if (listed) person.listed_on = listed;
  const title = cleanText(text(doc.title));
  const rationale = cleanText(text(doc.general_rationale_for_sanction));
  const remarks = [title && `Title: ${title}`, rationale !== title ? rationale : '']
    .filter(Boolean)
    .join('; ');
  if (remarks) person.remarks = remarks;
  return person;
}

/** Loads the bundled transcription: `entities/nz/nz-{ind,ent,shp}-N.yaml`, individuals kept. */
export function parseNzRussiaDerived(tarGz: Uint8Array): ParsedList {
  const records = yamlDocuments(readTarGz(tarGz), /^entities\/nz\/nz-[a-z]+-\d+\.yaml$/).map(
    ({ doc }) => doc,
  );
  const people: ListedPerson[] = [];
  let newest = '';
  for (const doc of records) {
    for (const date of [text(doc.date_of_sanction), text(doc.date_of_additional_sanction)]) {
      if (isoDate(date) && date > newest) newest = date;
    }
    if (text(doc.type) !== 'Individual') continue;
    const person = toPerson(doc);
    if (person) people.push(person);
  }
  return { people, entityCount: records.length, sourceDate: newest || undefined };
}
