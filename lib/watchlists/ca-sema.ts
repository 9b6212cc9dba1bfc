/**
 * Canada: Consolidated Canadian Autonomous Sanctions List (Special Economic Measures Act and
 * Justice for Victims of Corrupt Foreign Officials Act), the official `sema-lmes.xml`.
 *
 * One `record` is one listing under one regime; a person listed under several regimes appears
 * once per regime. Records with the same name and the same stated date of birth are one person
 * here, carrying every regime as a programme.
 */
import { XMLParser } from 'fast-xml-parser';
import { addDobs, calendarDob, monthDob, rangeDob, yearDob } from './listed-dates.ts';
import { addName, addUnique, cleanText, newPerson } from './listed-person.ts';
import type { ListDescriptor, ListedDob, ListedPerson, ParsedList } from './types.ts';
import { child, childNodes, childText, type XmlNode } from './xml-nodes.ts';

export const CA_SEMA_FILE = 'sanctions/ca_sema_2025/cannada.xml';

export const CA_SEMA_LIST: ListDescriptor = {
  id: 'ca_sema',
  name: 'Consolidated Canadian Autonomous Sanctions List (SEMA, JVCFOA)',
  category: 'sanctions',
  publisher: 'Government of Canada, Global Affairs Canada',
  licence: 'Open Government Licence – Canada (where published on open.canada.ca; confirm for this file)',
  files: [CA_SEMA_FILE],
  source_date: '2025-03-20',
  source_date_basis:
    'The file states no date: the newest `DateOfListing` in it (computed at build time); the copy was taken ' +
    'between that date and 2025-05-25.',
  attribution: 'Contains information licensed under the Open Government Licence – Canada.',
  notes: [
    'One record per listing under one regime; records with the same name and date of birth are one person ' +
      'carrying every regime.',
  ],
};

/** "Russia / Russie" → "Russia": the regime, in English. */
function regime(text: string): string {
  return cleanText(text.split(' / ')[0]);
}

/** One stated date: yyyy-mm-dd, yyyy-mm, yyyy, yyyy-yyyy, or "the early 1970s". */
function oneDate(text: string): ListedDob | undefined {
  const value = text.trim();
  let m = value.match(/^(\d{4})-(\d{2})-(\d{2})$/);
  if (m) return calendarDob(Number(m[1]), Number(m[2]), Number(m[3]));
  m = value.match(/^(\d{4})-(\d{2})$/);
  if (m) return monthDob(Number(m[1]), Number(m[2]));
  m = value.match(/^(\d{4})$/);
  if (m) return yearDob(Number(m[1]));
  m = value.match(/^(\d{4})\s*-\s*(\d{4})$/);
  if (m) return rangeDob(Number(m[1]), Number(m[2]));
  m = value.match(/early (\d{3})0s/i);
  if (m) return rangeDob(Number(`${m[1]}0`), Number(`${m[1]}4`));
  return undefined;
}

/** "1963 or 1964", "1965-07-15 OR 1969-09-28": every date the cell states. */
export function semaDates(text: string): ListedDob[] {
  const out: ListedDob[] = [];
  for (const part of text.split(/\s+or\s+/i)) addDobs(out, oneDate(part));
  return out;
}

/**
 * The free-text `Aliases` cell: comma-separated names, some labelled with their language
 * ("Belarusian: …, Russian: …"), some with alternatives joined by "or".
 */
export function semaAliases(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/[,;]/)) {
    const part = cleanText(raw.replace(/^\s*[\p{L} ]+?\s*:\s*/u, ''));
    if (!part) continue;
    out.push(...orAlternatives(part.split(/\s+or\s+/i).map(cleanText)));
  }
  return out;
}

/**
 * "X or Y" as whole names: two full names stay as written; a single word after a full name is
 * another surname ("Карниенко or Карниенка"), a single word before one another given name
 * ("Katsiaryna or Katerina Smuschkovich").
 */
function orAlternatives(alternatives: string[]): string[] {
  if (alternatives.length < 2) return alternatives;
  const words = alternatives.map((a) => a.split(' '));
  if (words.every((w) => w.length >= 2)) return alternatives;
  const [first, last] = [words[0], words[words.length - 1]];
  if (first.length >= 2 && words.slice(1).every((w) => w.length === 1))
    return [alternatives[0], ...words.slice(1).map((w) => [...first.slice(0, -1), w[0]].join(' '))];
  if (last.length >= 2 && words.slice(0, -1).every((w) => w.length === 1))
    return [...words.slice(0, -1).map((w) => [w[0], ...last.slice(1)].join(' ')), alternatives.at(-1) ?? ''];
  return [alternatives.join(' or ')];
}

/**
 * Parses `sema-lmes.xml`. Records with a `LastName` or `GivenName` are individuals; every record
 * is counted. The file carries no date of its own: the source date is the newest `DateOfListing`.
 */
export function parseCaSema(xml: Uint8Array | string): ParsedList {
  const parser = new XMLParser({ parseTagValue: false, isArray: (name) => name === 'record' });
  const source = typeof xml === 'string' ? xml : new TextDecoder('utf-8').decode(xml);
  const root = child(parser.parse(source) as XmlNode, 'data-set');
  if (!root) throw new Error('Canada SEMA XML: `data-set` root element missing');
  const records = childNodes(root, 'record');
  const byKey = new Map<string, ListedPerson>();
  let newest = '';
  for (const record of records) {
    const listed = childText(record, 'DateOfListing');
    if (/^\d{4}-\d{2}-\d{2}$/.test(listed) && listed > newest) newest = listed;
    const last = cleanText(childText(record, 'LastName'));
    const given = cleanText(childText(record, 'GivenName'));
    if (!last && !given) continue;
    const dobText = cleanText(childText(record, 'DateOfBirthOrShipBuildDate'));
    const key = `${given}|${last}|${dobText}`.toLowerCase();
    const programme = regime(childText(record, 'Country'));
    let person = byKey.get(key);
    if (!person) {
      const id = `${programme}/${childText(record, 'Schedule') || '-'}/${childText(record, 'Item')}`;
      person = newPerson('ca_sema', id, cleanText(`${given} ${last}`));
      addDobs(person.dobs, ...semaDates(dobText));
      if (/^\d{4}-\d{2}-\d{2}$/.test(listed)) person.listed_on = listed;
      const title = cleanText(childText(record, 'TitleOrShip'));
      if (title) person.remarks = `Title: ${title}`;
      byKey.set(key, person);
    } else if (/^\d{4}-\d{2}-\d{2}$/.test(listed) && (!person.listed_on || listed < person.listed_on)) {
      person.listed_on = listed;
    }
    for (const alias of semaAliases(childText(record, 'Aliases'))) addName(person.names, alias, 'strong');
    addUnique(person.programmes, programme);
  }
  return { people: [...byKey.values()], entityCount: records.length, sourceDate: newest || undefined };
}
