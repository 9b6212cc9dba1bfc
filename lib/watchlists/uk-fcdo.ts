/**
 * UK Sanctions List (FCDO), the only UK designation list since 28 January 2026.
 *
 * Two readers share one conversion:
 * - `parseUkFcdoXml`: the official `UK-Sanctions-List.xml` (`Designations/Designation`), what a
 *   sync downloads. No official file was available while writing it: the element names come from
 *   the notes in data/sanctions/uk_fcdo_derived_2026-08-22/SOURCE.md, and the test fixture was
 *   built from them. Check it against a real download before relying on it in production.
 * - `parseUkFcdoDerived`: the bundled per-designation YAML transcription (ammitto, 2026-08-22),
 *   whose keys are snake_case copies of the XML element names. It has **no dates of birth,
 *   nationalities, places of birth or positions** (the converter missed the nested
 *   `IndividualDetails/Individual` level).
 */
import { XMLParser } from 'fast-xml-parser';
import { type Doc, docs, isDoc, readTarGz, text, yamlDocuments } from './archive.ts';
import { addDobs, isoFromDayMonthYear, parseNumericDob } from './listed-dates.ts';
import { addName, addUnique, cleanText, newPerson } from './listed-person.ts';
import { addSharedIds, ofsiGroupId, unReferenceId } from './shared-ids.ts';
import type { ListDescriptor, ListedName, ListedPerson, ParsedList } from './types.ts';
import { child, childNodes, childText, type XmlNode, type XmlValue } from './xml-nodes.ts';

export const UK_FCDO_DERIVED_FILE = 'sanctions/uk_fcdo_derived_2026-08-22/uk-fcdo-2026-08-22.tar.gz';

export const UK_FCDO_NO_DOB_NOTE =
  'The bundled copy is a transcription that carries no dates of birth, nationalities, places of birth or ' +
  'positions: a UK-only designation cannot be corroborated or ruled out by date of birth (at most HIGH, never ' +
  'CRITICAL) unless the same person is linked to another list that states one (see README, one match per ' +
  'person). The official XML, read by the same code (parseUkFcdoXml) when synced, has them.';

export const UK_FCDO_LIST: ListDescriptor = {
  id: 'uk_fcdo',
  name: 'UK Sanctions List (FCDO)',
  category: 'sanctions',
  publisher: 'UK Foreign, Commonwealth & Development Office (FCDO)',
  licence: 'Open Government Licence v3.0',
  files: [UK_FCDO_DERIVED_FILE],
  source_date: '2026-08-22',
  source_date_basis:
    "The transcription's `fetched_at` (2026-08-22T06:46:55Z in `_index.yaml`), read at build time; an official " +
    'XML file gives its own `DateGenerated` instead.',
  attribution: 'Contains public sector information licensed under the Open Government Licence v3.0.',
  notes: [
    UK_FCDO_NO_DOB_NOTE,
    'Bundled data is a per-designation transcription of the official XML (ammitto/data-uk, 2026-08-22): 6,349 ' +
      'files against 6,334 designations on the list that day, so at least 15 belong to designations since removed.',
  ],
};

/** One FCDO designation in the XML's element names. */
export interface FcdoDesignation {
  uniqueId: string;
  ofsiGroupId: string;
  unReferenceNumber: string;
  type: string;
  regime: string;
  designationSource: string;
  sanctionsImposed: string;
  otherInformation: string;
  dateDesignated?: string;
  names: { parts: string[]; nameType: string; aliasStrength: string }[];
  nonLatinNames: string[];
  addressCountries: string[];
  addressTowns: string[];
  dobs: string[];
  nationalities: string[];
  positions: string[];
  birthPlaces: string[];
  genders: string[];
}

const NAME_PARTS = ['1', '2', '3', '4', '5', '6'];

function nameStrength(nameType: string, aliasStrength: string): ListedName['strength'] {
  if (/^primary name$/i.test(nameType)) return 'primary';
  return /^low/i.test(aliasStrength) ? 'weak' : 'strong';
}

function toPerson(designation: FcdoDesignation): ListedPerson | undefined {
  const fullNames = designation.names.map((n) => ({ ...n, full: cleanText(n.parts.join(' ')) }));
  const primary =
    fullNames.find((n) => /^primary name$/i.test(n.nameType) && n.full) ?? fullNames.find((n) => n.full);
  if (!primary) return undefined;
  const person = newPerson('uk_fcdo', designation.uniqueId, primary.full);
  for (const name of fullNames)
    addName(person.names, name.full, nameStrength(name.nameType, name.aliasStrength));
  for (const name of designation.nonLatinNames) addName(person.names, name, 'strong');
  for (const dob of designation.dobs) addDobs(person.dobs, parseNumericDob(dob.replace(/dd|mm/gi, '00')));
  addUnique(person.nationalities, ...designation.nationalities);
  addUnique(
    person.locations,
    ...designation.birthPlaces,
    ...designation.addressTowns,
    ...designation.addressCountries,
  );
  addUnique(person.programmes, designation.regime);
  person.reference = designation.uniqueId;
  if (designation.dateDesignated) person.listed_on = designation.dateDesignated;
  if (designation.genders[0]) person.gender = designation.genders[0];
  addSharedIds(person, unReferenceId(designation.unReferenceNumber), ofsiGroupId(designation.ofsiGroupId));
  const remarks = [
    designation.positions.length ? `Position: ${designation.positions.join('; ')}` : '',
    designation.sanctionsImposed
      ? `Sanctions imposed: ${designation.sanctionsImposed.split('|').join(', ')}`
      : '',
    designation.otherInformation,
  ]
    .map(cleanText)
    .filter(Boolean)
    .join('; ');
  if (remarks) person.remarks = remarks;
  return person;
}

function toParsedList(designations: FcdoDesignation[], sourceDate: string | undefined): ParsedList {
  const people: ListedPerson[] = [];
  for (const designation of designations) {
    if (designation.type.toLowerCase() !== 'individual') continue;
    const person = toPerson(designation);
    if (person) people.push(person);
  }
  return { people, entityCount: designations.length, sourceDate };
}

/** Texts of `wrapper/item*` (e.g. `DOBs/DOB`), plain values or elements with text. */
function wrappedTexts(node: XmlNode | undefined, wrapper: string, item: string): string[] {
  return childNodes(node, wrapper).flatMap((w) => {
    const value = w[item];
    const list: XmlValue[] = Array.isArray(value) ? value : value === undefined ? [] : [value];
    return list.map((v) => childText({ v }, 'v')).filter(Boolean);
  });
}

function fromXml(node: XmlNode): FcdoDesignation {
  const individual = child(child(node, 'IndividualDetails'), 'Individual');
  const addresses = childNodes(child(node, 'Addresses'), 'Address');
  // NonLatinNames/NonLatinName/NameNonLatinScript, or NameNonLatinScript without the level.
  const nonLatin = [
    ...childNodes(child(node, 'NonLatinNames'), 'NonLatinName').map((n) =>
      childText(n, 'NameNonLatinScript'),
    ),
    ...wrappedTexts({ w: node }, 'w', 'NameNonLatinScript'),
  ];
  return {
    uniqueId: childText(node, 'UniqueID'),
    ofsiGroupId: childText(node, 'OFSIGroupID'),
    unReferenceNumber: childText(node, 'UNReferenceNumber'),
    type: childText(node, 'IndividualEntityShip'),
    regime: cleanText(childText(node, 'RegimeName')),
    designationSource: childText(node, 'DesignationSource'),
    sanctionsImposed: childText(node, 'SanctionsImposed'),
    otherInformation: childText(node, 'OtherInformation'),
    dateDesignated: isoFromDayMonthYear(childText(node, 'DateDesignated')),
    names: childNodes(child(node, 'Names'), 'Name').map((name) => ({
      parts: NAME_PARTS.map((i) => childText(name, `Name${i}`)).filter(Boolean),
      nameType: childText(name, 'NameType'),
      aliasStrength: childText(name, 'AliasStrength'),
    })),
    nonLatinNames: nonLatin.filter(Boolean),
    addressCountries: addresses.map((a) => childText(a, 'AddressCountry')).filter(Boolean),
    addressTowns: addresses.map((a) => childText(a, 'AddressLine6')).filter(Boolean),
    dobs: wrappedTexts(individual, 'DOBs', 'DOB'),
    nationalities: wrappedTexts(individual, 'Nationalities', 'Nationality'),
    positions: wrappedTexts(individual, 'Positions', 'Position'),
    genders: wrappedTexts(individual, 'Genders', 'Gender'),
    birthPlaces: childNodes(child(individual, 'BirthDetails'), 'Location').flatMap((l) =>
      [childText(l, 'TownOfBirth'), childText(l, 'CountryOfBirth')].filter(Boolean),
    ),
  };
}

function fromDerived(doc: Doc): FcdoDesignation {
  const names = isDoc(doc.names) ? docs(doc.names.names) : [];
  const nonLatin = isDoc(doc.non_latin_names) ? docs(doc.non_latin_names.names) : [];
  const addresses = isDoc(doc.addresses) ? docs(doc.addresses.addresses) : [];
  const date = text(doc.date_designated);
  return {
    uniqueId: text(doc.unique_id),
    ofsiGroupId: text(doc.ofsi_group_id),
    unReferenceNumber: text(doc.un_reference_number),
    type: text(doc.individual_entity_ship),
    regime: cleanText(text(doc.regime_name)),
    designationSource: text(doc.designation_source),
    sanctionsImposed: text(doc.sanctions_imposed),
    otherInformation: text(doc.other_information),
    dateDesignated: /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : undefined,
    names: names.map((name) => ({
      parts: NAME_PARTS.map((i) => text(name[`name${i}`])).filter(Boolean),
      nameType: text(name.name_type),
      aliasStrength: text(name.alias_strength),
    })),
    nonLatinNames: nonLatin.map((n) => text(n.name_non_latin_script)).filter(Boolean),
    addressCountries: addresses.map((a) => text(a.address_country)).filter(Boolean),
    addressTowns: addresses.map((a) => text(a.address_line6)).filter(Boolean),
    dobs: [],
    nationalities: [],
    positions: [],
    genders: [],
    birthPlaces: [],
  };
}

/**
 * Parses the official XML. Individuals become people; every designation is counted. The source
 * date is `DateGenerated` (dd/mm/yyyy).
 */
export function parseUkFcdoXml(xml: Uint8Array | string): ParsedList {
  const parser = new XMLParser({
    ignoreAttributes: true,
    removeNSPrefix: true,
    parseTagValue: false,
    isArray: (name) =>
      [
        'Designation',
        'Name',
        'NonLatinName',
        'Address',
        'DOB',
        'Nationality',
        'Position',
        'Gender',
        'Location',
        'NameNonLatinScript',
      ].includes(name),
  });
  const source = typeof xml === 'string' ? xml : new TextDecoder('utf-8').decode(xml);
  const root = child(parser.parse(source) as XmlNode, 'Designations');
  if (!root) throw new Error('UK Sanctions List XML: `Designations` root element missing');
  const designations = childNodes(root, 'Designation').map(fromXml);
  return toParsedList(designations, isoFromDayMonthYear(childText(root, 'DateGenerated')));
}

/** Loads the bundled transcription: `processed/<unique id>.yaml` and `processed/_index.yaml`. */
export function parseUkFcdoDerived(tarGz: Uint8Array): ParsedList {
  const archive = readTarGz(tarGz);
  const designations = yamlDocuments(archive, /^processed\/(?!_)[^/]+\.yaml$/).map(({ doc }) =>
    fromDerived(doc),
  );
  const [index] = yamlDocuments(archive, /^processed\/_index\.yaml$/);
  const fetched = text(index?.doc.fetched_at);
  return toParsedList(designations, /^\d{4}-\d{2}-\d{2}/.test(fetched) ? fetched.slice(0, 10) : undefined);
}
