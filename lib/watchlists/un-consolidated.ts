/**
 * UN Security Council Consolidated List (XML as published by the UN).
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { addDobs, calendarDob, parseNumericDob, rangeDob, yearDob } from './listed-dates.ts';
import { addName, addUnique, cleanText, newPerson } from './listed-person.ts';
import type { ListDescriptor, ListedDob, ListedName, ListedPerson, ParsedList } from './types.ts';
import { child, childNodes, childText, childValues, type XmlNode } from './xml-nodes.ts';

export const UN_CONSOLIDATED_FILE = 'sanctions/un/UN_consolidated.xml';

export const UN_CONSOLIDATED_LIST: ListDescriptor = {
  id: 'un_sc',
  name: 'United Nations Security Council Consolidated List',
  category: 'sanctions',
  publisher: 'United Nations Security Council',
  licence: 'No open licence stated; published by the UN for implementation of Security Council sanctions',
  files: [UN_CONSOLIDATED_FILE],
  source_date: '2026-02-27',
  source_date_basis: "The file's own `dateGenerated` attribute (read from the XML at build time).",
  notes: [
    'Legal review required before redistributing this file in a product: the UN states no open licence and its ' +
      'website terms allow personal, non-commercial use only.',
  ],
};

const REPEATED = new Set([
  'INDIVIDUAL',
  'ENTITY',
  'INDIVIDUAL_ALIAS',
  'INDIVIDUAL_ADDRESS',
  'INDIVIDUAL_DATE_OF_BIRTH',
  'INDIVIDUAL_PLACE_OF_BIRTH',
  'INDIVIDUAL_DOCUMENT',
  'ENTITY_ALIAS',
  'ENTITY_ADDRESS',
  'VALUE',
  'NATIONALITY',
  'TITLE',
  'DESIGNATION',
]);

/** UN alias quality: "Low" aliases are weak identifiers; "Good" and unqualified ones are not. */
function aliasStrength(quality: string): ListedName['strength'] {
  return quality.toLowerCase() === 'low' ? 'weak' : 'strong';
}

/** The list writes "na" where a value is not available. */
function isStated(value: string): boolean {
  return !/^(na|n\/a|unknown)$/i.test(value.trim());
}

function dateOfBirth(node: XmlNode): ListedDob | undefined {
  const type = childText(node, 'TYPE_OF_DATE').toUpperCase();
  const approximate = type === 'APPROXIMATELY';
  const from = Number(childText(node, 'FROM_YEAR'));
  const to = Number(childText(node, 'TO_YEAR'));
  if (from && to) return rangeDob(from, to);
  const date = childText(node, 'DATE');
  if (date) {
    const m = date.match(/^(\d{4})-(\d{2})-(\d{2})/);
    if (m) {
      const exact = calendarDob(Number(m[1]), Number(m[2]), Number(m[3]), approximate);
      return exact ?? parseNumericDob(`${m[1]}-${m[2]}-${m[3]}`);
    }
  }
  const year = Number(childText(node, 'YEAR'));
  if (year) return yearDob(year, approximate);
  return undefined;
}

function toPerson(node: XmlNode): ListedPerson {
  const fullName = ['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME']
    .map((key) => childText(node, key))
    .filter(Boolean)
    .join(' ');
  const person = newPerson('un_sc', childText(node, 'DATAID'), fullName);
  for (const alias of childNodes(node, 'INDIVIDUAL_ALIAS')) {
    addName(person.names, childText(alias, 'ALIAS_NAME'), aliasStrength(childText(alias, 'QUALITY')));
  }
  // The name in its original script is the listed name itself, only written differently.
  addName(person.names, childText(node, 'NAME_ORIGINAL_SCRIPT'), 'strong');
  for (const dob of childNodes(node, 'INDIVIDUAL_DATE_OF_BIRTH')) addDobs(person.dobs, dateOfBirth(dob));
  addUnique(person.nationalities, ...childValues(node, 'NATIONALITY').filter(isStated));
  for (const place of [
    ...childNodes(node, 'INDIVIDUAL_PLACE_OF_BIRTH'),
    ...childNodes(node, 'INDIVIDUAL_ADDRESS'),
  ]) {
    const parts = [childText(place, 'CITY'), childText(place, 'STATE_PROVINCE'), childText(place, 'COUNTRY')];
    addUnique(person.locations, ...parts.filter(isStated));
  }
  addUnique(person.programmes, childText(node, 'UN_LIST_TYPE'));
  const reference = childText(node, 'REFERENCE_NUMBER');
  if (reference) person.reference = reference;
  const listedOn = childText(node, 'LISTED_ON');
  if (listedOn) person.listed_on = listedOn.slice(0, 10);
  const gender = childText(node, 'GENDER');
  if (gender) person.gender = gender;
  const designation = childValues(node, 'DESIGNATION').join('; ');
  const comments = cleanText(childText(node, 'COMMENTS1'));
  const remarks = [designation && `Designation: ${designation}`, comments].filter(Boolean).join('; ');
  if (remarks) person.remarks = remarks;
  return person;
}

/**
 * Parses the UN consolidated XML. Every `INDIVIDUAL` becomes a person (full name = FIRST to
 * FOURTH_NAME in that positional order); entities are counted. The source date is the file's
 * `dateGenerated`.
 */
export function parseUnConsolidated(xml: Buffer | string): ParsedList {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    isArray: (name) => REPEATED.has(name),
  });
  const text = typeof xml === 'string' ? xml : xml.toString('utf8');
  // The parser is lenient (it closes what a cut file left open); a downloaded file must be whole.
  const wellFormed = XMLValidator.validate(text);
  if (wellFormed !== true) {
    throw new Error(
      `UN consolidated list: not well-formed XML (${wellFormed.err.msg}, line ${wellFormed.err.line})`,
    );
  }
  const doc = parser.parse(text) as XmlNode;
  const root = child(doc, 'CONSOLIDATED_LIST');
  if (!root) throw new Error('UN consolidated list: CONSOLIDATED_LIST root element missing');
  const individuals = childNodes(child(root, 'INDIVIDUALS'), 'INDIVIDUAL');
  const entities = childNodes(child(root, 'ENTITIES'), 'ENTITY');
  const generated = String(root['@_dateGenerated'] ?? '');
  return {
    people: individuals.map(toPerson),
    entityCount: individuals.length + entities.length,
    sourceDate: /^\d{4}-\d{2}-\d{2}/.test(generated) ? generated.slice(0, 10) : undefined,
  };
}
