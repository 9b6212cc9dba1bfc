/**
 * EU Financial Sanctions Files (FSF): the European Commission's consolidated list of persons,
 * groups and entities subject to EU financial sanctions.
 *
 * Two readers share one conversion:
 * - `parseEuFsfXml`: the official FSF XML 1.1 file (`export` root, namespace
 *   http://eu.europa.ec/fpi/fsd/export), what a sync downloads;
 * - `parseEuFsfDerived`: the bundled per-entity YAML transcription of that file (ammitto,
 *   2026-05-01), whose keys are snake_case copies of the XML attributes.
 * Both are first turned into the same attribute-shaped `FsfEntity`, so one function decides
 * names, dates and places for both.
 */
import { XMLParser } from 'fast-xml-parser';
import { type Doc, docs, isDoc, items, readTarGz, text, yamlDocuments } from './archive.ts';
import { countryNameForCode } from './countries.ts';
import { addDobs, calendarDob, monthDob, yearDob } from './listed-dates.ts';
import { addName, addUnique, cleanText, newPerson } from './listed-person.ts';
import { addSharedIds, unReferenceId } from './shared-ids.ts';
import type { ListDescriptor, ListedDob, ListedPerson, ParsedList } from './types.ts';
import { child, childNodes, childText, type XmlNode } from './xml-nodes.ts';

export const EU_FSF_DERIVED_FILE = 'sanctions/eu_fsf_derived_2026-05-01/eu-fsf-2026-05-01.tar.gz';

export const EU_FSF_LIST: ListDescriptor = {
  id: 'eu_fsf',
  name: 'EU Consolidated Financial Sanctions List (FSF)',
  category: 'sanctions',
  publisher: 'European Commission (Financial Sanctions Files)',
  licence: 'European Commission reuse policy (Decision 2011/833/EU): reuse with attribution',
  files: [EU_FSF_DERIVED_FILE],
  source_date: '2026-05-01',
  source_date_basis:
    "The transcription's `fetched_at` (2026-05-01T08:25:35Z in `_index.yaml`), read at build time; an official " +
    'FSF XML file gives its own `generationDate` instead.',
  attribution: '© European Union, https://webgate.ec.europa.eu/fsd/fsf',
  notes: [
    'Bundled data is a per-entity transcription of the official FSF XML (ammitto/data-eu, 2026-05-01), not the ' +
      'official file: entities designated after 2026-02-23 are missing (at least 142) and some delisted ones may ' +
      'remain. The official XML is read by the same code (parseEuFsfXml) when synced.',
    'Confirm with legal that the Commission reuse policy covers the FSF list; the transcription repository ' +
      'grants no licence of its own.',
  ],
};

/** One FSF `sanctionEntity`, attribute names as in the XML (camelCase), values as text. */
export interface FsfEntity {
  euReferenceNumber: string;
  logicalId: string;
  unitedNationId: string;
  designationDate: string;
  designationDetails: string;
  remark: string;
  subjectType: string;
  regulations: Record<string, string>[];
  nameAliases: Record<string, string>[];
  birthdates: Record<string, string>[];
  citizenships: Record<string, string>[];
  addresses: Record<string, string>[];
}

const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** A flat record of text values with camelCase keys; nested lists and maps are left out. */
function flat(record: Doc | XmlNode | undefined, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(record ?? {})) {
    if (prefix && !key.startsWith(prefix)) continue;
    const name = camel(key.slice(prefix.length));
    const value_ = text(value);
    if (value_) out[name] = value_;
  }
  return out;
}

/** The XML element's attributes, plus the listed child elements' texts. */
function xmlRecord(node: XmlNode, childTexts: string[] = []): Record<string, string> {
  const out = flat(node, '@_');
  for (const name of childTexts) {
    const value = childText(node, name);
    if (value) out[name] = value;
  }
  return out;
}

function fromXml(node: XmlNode): FsfEntity {
  const attrs = xmlRecord(node);
  return {
    euReferenceNumber: attrs.euReferenceNumber ?? '',
    logicalId: attrs.logicalId ?? '',
    unitedNationId: attrs.unitedNationId ?? '',
    designationDate: attrs.designationDate ?? '',
    designationDetails: attrs.designationDetails ?? '',
    remark: items(node.remark)
      .map((r) => childText({ r: r as XmlNode }, 'r'))
      .join(' '),
    subjectType: xmlRecord(child(node, 'subjectType') ?? {}).code ?? '',
    regulations: childNodes(node, 'regulation').map((n) => xmlRecord(n, ['publicationUrl'])),
    nameAliases: childNodes(node, 'nameAlias').map((n) => xmlRecord(n, ['remark'])),
    birthdates: childNodes(node, 'birthdate').map((n) => xmlRecord(n)),
    citizenships: childNodes(node, 'citizenship').map((n) => xmlRecord(n)),
    addresses: childNodes(node, 'address').map((n) => xmlRecord(n)),
  };
}

function fromDerived(doc: Doc): FsfEntity {
  const subject = isDoc(doc.subject_type) ? text(doc.subject_type.code) : '';
  return {
    euReferenceNumber: text(doc.eu_reference_number),
    logicalId: text(doc.logical_id),
    unitedNationId: text(doc.united_nation_id),
    designationDate: text(doc.designation_date),
    designationDetails: text(doc.designation_details),
    remark: text(doc.remark),
    subjectType: subject,
    regulations: docs(doc.regulations).map((d) => flat(d)),
    nameAliases: docs(doc.name_aliases).map((d) => flat(d)),
    birthdates: docs(doc.birthdates).map((d) => flat(d)),
    citizenships: docs(doc.citizenships).map((d) => flat(d)),
    addresses: docs(doc.addresses).map((d) => flat(d)),
  };
}

function aliasName(alias: Record<string, string>): string {
  return cleanText(
    alias.wholeName || [alias.firstName, alias.middleName, alias.lastName].filter(Boolean).join(' '),
  );
}

const LATIN = /^[\p{Script=Latin}\p{M}\s'’.,()-]+$/u;

/**
 * The FSF marks no alias as primary, and the transcription reorders aliases from run to run. The
 * primary name is therefore the strong Latin-script alias with the lowest `logicalId` (the
 * oldest record, normally the name the person was listed under), so it is the same every build.
 */
function primaryAlias(aliases: Record<string, string>[]): Record<string, string> | undefined {
  const named = aliases.filter((a) => aliasName(a));
  const rank = (a: Record<string, string>) =>
    (a.strong === 'false' ? 2 : 0) + (LATIN.test(aliasName(a)) ? 0 : 1);
  return [...named].sort(
    (a, b) => rank(a) - rank(b) || Number(a.logicalId ?? 0) - Number(b.logicalId ?? 0),
  )[0];
}

function birthDate(record: Record<string, string>): ListedDob | undefined {
  const approximate = record.circa === 'true';
  const full = record.birthdate?.match(/^(\d{4})-(\d{2})-(\d{2})$/);
  if (full) return calendarDob(Number(full[1]), Number(full[2]), Number(full[3]), approximate);
  const year = Number(record.year);
  if (!year) return undefined;
  const month = Number(record.monthOfYear);
  const day = Number(record.dayOfMonth);
  if (month && day) return calendarDob(year, month, day, approximate) ?? monthDob(year, month, approximate);
  if (month) return monthDob(year, month, approximate);
  return yearDob(year, approximate);
}

/** The country of a record: ISO code when known ("00" means unknown), else the description. */
function country(record: Record<string, string>): string | undefined {
  const code = record.countryIso2Code;
  if (code && code !== '00') return countryNameForCode(code) ?? record.countryDescription;
  const description = record.countryDescription;
  return description && description !== 'UNKNOWN' ? description : undefined;
}

const isPlace = (value: string | undefined) => value !== undefined && value !== '-' && value !== '';

function toPerson(entity: FsfEntity): ListedPerson | undefined {
  const primary = primaryAlias(entity.nameAliases);
  if (!primary) return undefined;
  const person = newPerson('eu_fsf', entity.euReferenceNumber, aliasName(primary));
  for (const alias of entity.nameAliases) {
    addName(person.names, aliasName(alias), alias.strong === 'false' ? 'weak' : 'strong');
    if (alias.gender && !person.gender) person.gender = alias.gender === 'M' ? 'Male' : 'Female';
  }
  for (const record of entity.birthdates) {
    addDobs(person.dobs, birthDate(record));
    addUnique(
      person.locations,
      ...[record.city, record.place, record.region].filter(isPlace),
      country(record),
    );
  }
  for (const record of entity.citizenships) addUnique(person.nationalities, country(record));
  for (const record of entity.addresses) {
    addUnique(person.locations, ...[record.city, record.region].filter(isPlace), country(record));
  }
  addUnique(person.programmes, ...entity.regulations.map((r) => r.programme));
  person.reference = entity.euReferenceNumber;
  addSharedIds(person, unReferenceId(entity.unitedNationId));
  if (/^\d{4}-\d{2}-\d{2}$/.test(entity.designationDate)) person.listed_on = entity.designationDate;
  const functions: string[] = [];
  addUnique(functions, ...entity.nameAliases.map((a) => a.function));
  const remarks = [
    functions.length ? `Function: ${functions.join('; ')}` : '',
    entity.designationDetails,
    entity.remark,
    ...entity.nameAliases.map((a) => a.remark),
  ]
    .map(cleanText)
    .filter(Boolean)
    .join('; ');
  if (remarks) person.remarks = remarks;
  return person;
}

function toParsedList(entities: FsfEntity[], sourceDate: string | undefined): ParsedList {
  const people: ListedPerson[] = [];
  const seen = new Set<string>();
  for (const entity of entities) {
    // The FSF repeats no reference number; a repeat (as in hand-made fixtures) is the same entry.
    if (entity.subjectType !== 'person' || seen.has(entity.euReferenceNumber)) continue;
    seen.add(entity.euReferenceNumber);
    const person = toPerson(entity);
    if (person) people.push(person);
  }
  return { people, entityCount: new Set(entities.map((e) => e.euReferenceNumber)).size, sourceDate };
}

const isoDay = (value: string) => (/^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : undefined);

/**
 * Parses the official FSF XML 1.1 file. Persons (`subjectType code="person"`) become people;
 * every distinct `euReferenceNumber` is counted. The source date is the root `generationDate`.
 */
export function parseEuFsfXml(xml: Uint8Array | string): ParsedList {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    isArray: (name, _path, _leaf, isAttribute) =>
      !isAttribute &&
      ['sanctionEntity', 'regulation', 'nameAlias', 'birthdate', 'citizenship', 'address', 'remark'].includes(
        name,
      ),
  });
  const source = typeof xml === 'string' ? xml : new TextDecoder('utf-8').decode(xml);
  const root = child(parser.parse(source) as XmlNode, 'export');
  if (!root) throw new Error('EU FSF XML: `export` root element missing');
  const entities = childNodes(root, 'sanctionEntity').map(fromXml);
  return toParsedList(entities, isoDay(String(root['@_generationDate'] ?? '')));
}

/**
 * Loads the bundled transcription: `processed/eu-*.yaml`, one entity per file, and
 * `processed/_index.yaml` for the fetch date.
 */
export function parseEuFsfDerived(tarGz: Uint8Array): ParsedList {
  const archive = readTarGz(tarGz);
  const entities = yamlDocuments(archive, /^processed\/eu-[^/]+\.yaml$/).map(({ doc }) => fromDerived(doc));
  const [index] = yamlDocuments(archive, /^processed\/_index\.yaml$/);
  return toParsedList(entities, isoDay(text(index?.doc.fetched_at)));
}
