/**
 * OFAC's Enhanced XML schema (Sanctions List Service): `CONS_ENHANCED.XML`, the consolidated
 * non-SDN lists, and `SDN_ENHANCED.XML`, the SDN list, share it. One parser reads both; which
 * list a file is comes from its own `publicationInfo/filters` (or the caller says so).
 *
 * `entity/@id` is OFAC's entity number, the `ent_num` of the legacy CSV files, so the same person
 * read from both formats, or from the SDN and the non-SDN file, carries the same `ofac:` shared id
 * and is linked into one match.
 */
import { XMLParser } from 'fast-xml-parser';
import { addDobs, calendarDob, monthDob, rangeDob, yearDob } from './listed-dates.ts';
import { addName, addUnique, cleanText, newPerson } from './listed-person.ts';
import { addSharedIds, ofacEntityId } from './shared-ids.ts';
import type { ListDescriptor, ListedDob, ListedPerson, ListId, ParsedList } from './types.ts';
import { child, childNodes, childText, type XmlNode } from './xml-nodes.ts';

export const OFAC_CONS_FILE = 'sanctions/ofac_cons_enhanced_2026-01-08/cons_enhanced.xml';

export const OFAC_CONS_LIST: ListDescriptor = {
  id: 'ofac_cons',
  name: 'OFAC Consolidated Sanctions List (non-SDN lists)',
  category: 'sanctions',
  publisher: 'U.S. Department of the Treasury, Office of Foreign Assets Control (OFAC)',
  licence: 'Public domain (U.S. federal government work, 17 U.S.C. 105)',
  files: [OFAC_CONS_FILE],
  source_date: '2026-01-08',
  source_date_basis: "The file's own `publicationInfo/dataAsOf` (read from the XML at build time).",
  notes: [
    'The non-SDN lists (Palestinian Legislative Council, Sectoral Sanctions Identifications, CMIC, Menu-Based, ' +
      'CAPTA) in OFAC Enhanced XML, a complete official file. People also on the SDN list are linked to their ' +
      'SDN listing by OFAC entity number.',
  ],
};

const REPEATED = new Set([
  'entity',
  'sanctionsList',
  'sanctionsProgram',
  'name',
  'translation',
  'namePart',
  'address',
  'addressPart',
  'feature',
]);

/** A date from the Enhanced XML's `valueDate` span, at the precision the span allows. */
export function enhancedDate(valueDate: XmlNode | undefined): ListedDob | undefined {
  if (!valueDate) return undefined;
  const from = childText(valueDate, 'fromDateBegin').match(/^(\d{4})-(\d{2})-(\d{2})/);
  const to = (childText(valueDate, 'toDateEnd') || childText(valueDate, 'fromDateEnd')).match(
    /^(\d{4})-(\d{2})-(\d{2})/,
  );
  if (!from) return undefined;
  const approximate = childText(valueDate, 'isApproximate') === 'true';
  const [fy, fm, fd] = [Number(from[1]), Number(from[2]), Number(from[3])];
  if (!to) return calendarDob(fy, fm, fd, approximate);
  const [ty, tm, td] = [Number(to[1]), Number(to[2]), Number(to[3])];
  if (fy === ty && fm === tm && fd === td) return calendarDob(fy, fm, fd, approximate);
  if (fy !== ty) return rangeDob(fy, ty);
  if (fm === 1 && fd === 1 && tm === 12 && td === 31) return yearDob(fy, approximate);
  if (fm === tm && fd === 1) return monthDob(fy, fm, approximate);
  return yearDob(fy, approximate);
}

/** "Ismail Abdul Salah HANIYA" from a translation's first and last names (given names first). */
function translationName(translation: XmlNode): string {
  const first = childText(translation, 'formattedFirstName');
  const last = childText(translation, 'formattedLastName');
  if (first || last) return cleanText(`${first} ${last}`);
  return cleanText(childText(translation, 'formattedFullName'));
}

function toPerson(entity: XmlNode, listId: ListId): ListedPerson | undefined {
  const id = String(entity['@_id'] ?? '');
  const names = childNodes(child(entity, 'names'), 'name');
  const primaryName = names.find((n) => childText(n, 'isPrimary') === 'true') ?? names[0];
  const primaryTranslations = childNodes(child(primaryName, 'translations'), 'translation');
  const primaryTranslation =
    primaryTranslations.find((t) => childText(t, 'isPrimary') === 'true') ?? primaryTranslations[0];
  if (!id || !primaryTranslation) return undefined;
  const person = newPerson(listId, id, translationName(primaryTranslation));
  for (const name of names) {
    const strength = childText(name, 'isLowQuality') === 'true' ? 'weak' : 'strong';
    for (const translation of childNodes(child(name, 'translations'), 'translation')) {
      addName(person.names, translationName(translation), strength);
    }
  }
  for (const feature of childNodes(child(entity, 'features'), 'feature')) {
    const type = childText(feature, 'type');
    const value = childText(feature, 'value');
    if (type === 'Birthdate') addDobs(person.dobs, enhancedDate(child(feature, 'valueDate')));
    else if (type === 'Place of Birth') addUnique(person.locations, ...value.split(/\s*,\s*/));
    else if (type === 'Nationality Country' || type === 'Citizenship Country')
      addUnique(person.nationalities, value);
    else if (type === 'Gender' && value) person.gender = value;
  }
  for (const address of childNodes(child(entity, 'addresses'), 'address')) {
    for (const translation of childNodes(child(address, 'translations'), 'translation')) {
      for (const part of childNodes(child(translation, 'addressParts'), 'addressPart')) {
        if (/^(CITY|STATE\/PROVINCE)$/.test(childText(part, 'type'))) {
          addUnique(person.locations, childText(part, 'value'));
        }
      }
    }
    addUnique(person.locations, childText(address, 'country'));
  }
  addUnique(
    person.programmes,
    ...childNodes(child(entity, 'sanctionsPrograms'), 'sanctionsProgram').map((p) => childText({ p }, 'p')),
  );
  const lists = childNodes(child(entity, 'sanctionsLists'), 'sanctionsList');
  const published = lists
    .map((l) => String(l['@_datePublished'] ?? ''))
    .filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d))
    .sort();
  if (published[0]) person.listed_on = published[0];
  const listNames = lists.map((l) => childText({ l }, 'l')).filter((n) => n && n !== 'Consolidated List');
  const remarks = [
    listNames.length ? `OFAC lists: ${listNames.join('; ')}` : '',
    cleanText(childText(child(entity, 'generalInfo'), 'remarks')),
  ]
    .filter(Boolean)
    .join('; ');
  if (remarks) person.remarks = remarks;
  person.url = `https://sanctionssearch.ofac.treas.gov/Details.aspx?id=${id}`;
  addSharedIds(person, ofacEntityId(id));
  return person;
}

export interface OfacEnhancedOptions {
  /** The list the file is; by default `ofac_sdn` when the file's filter is the SDN List, else `ofac_cons`. */
  listId?: ListId;
}

/**
 * Parses an OFAC Enhanced XML file. Individuals (`entityType` Individual) become people; every
 * entity is counted. The source date is `publicationInfo/dataAsOf`.
 */
export function parseOfacEnhanced(xml: Uint8Array | string, options: OfacEnhancedOptions = {}): ParsedList {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    isArray: (name, _path, _leaf, isAttribute) => !isAttribute && REPEATED.has(name),
  });
  const source = typeof xml === 'string' ? xml : new TextDecoder('utf-8').decode(xml);
  const root = child(parser.parse(source) as XmlNode, 'sanctionsData');
  if (!root) throw new Error('OFAC Enhanced XML: `sanctionsData` root element missing');
  const info = child(root, 'publicationInfo');
  const filters = childNodes(child(child(info, 'filters'), 'sanctionsLists'), 'sanctionsList').map((l) =>
    childText({ l }, 'l'),
  );
  const listId = options.listId ?? (filters.includes('SDN List') ? 'ofac_sdn' : 'ofac_cons');
  const entities = childNodes(child(root, 'entities'), 'entity');
  const people: ListedPerson[] = [];
  for (const entity of entities) {
    if (childText(child(entity, 'generalInfo'), 'entityType') !== 'Individual') continue;
    const person = toPerson(entity, listId);
    if (person) people.push(person);
  }
  const asOf = childText(info, 'dataAsOf');
  return {
    people,
    entityCount: entities.length,
    sourceDate: /^\d{4}-\d{2}-\d{2}/.test(asOf) ? asOf.slice(0, 10) : undefined,
  };
}
