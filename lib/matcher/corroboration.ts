/**
 * The corroborating fields of a match: date of birth, nationality and location, each compared
 * with what the list gives and explained in words for analysts.
 */

import type { ListedDob } from '../watchlists/types.ts';
import { tokeniseName } from './normalise.ts';
import type { FieldExplanation } from './types.ts';

interface QueryDate {
  year: number;
  month?: number;
  day?: number;
}

/** Parses `YYYY-MM-DD`, `YYYY-MM` or `YYYY`; anything else is treated as no date. */
export function parseQueryDob(text: string | undefined): QueryDate | undefined {
  if (!text) return undefined;
  const m = /^\s*(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?\s*$/.exec(text);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = m[2] ? Number(m[2]) : undefined;
  const day = m[3] ? Number(m[3]) : undefined;
  if (month !== undefined && (month < 1 || month > 12)) return { year };
  return { year, month, day };
}

/** The subject's date of birth when it is a full date (`YYYY-MM-DD`), as the lists write one. */
export function fullQueryDate(text: string | undefined): string | undefined {
  const q = text?.trim();
  return q && /^\d{4}-\d{2}-\d{2}$/.test(q) ? q : undefined;
}

export function formatListedDob(dob: ListedDob): string {
  switch (dob.kind) {
    case 'date':
      return dob.date;
    case 'month':
      return `${dob.year}-${String(dob.month).padStart(2, '0')}`;
    case 'year':
      return String(dob.year);
    case 'range':
      return `${dob.from}–${dob.to}`;
  }
}

type DobVerdict = 'matched' | 'near' | 'mismatched';

function compareOneDob(q: QueryDate, dob: ListedDob): DobVerdict {
  const near = (a: number, b: number) => Math.abs(a - b) <= 1;
  switch (dob.kind) {
    case 'range':
      if (q.year >= dob.from && q.year <= dob.to) return 'matched';
      return q.year >= dob.from - 1 && q.year <= dob.to + 1 ? 'near' : 'mismatched';
    case 'year':
      if (q.year === dob.year) return 'matched';
      return near(q.year, dob.year) ? 'near' : 'mismatched';
    case 'month': {
      if (q.month === undefined)
        return q.year === dob.year ? 'matched' : near(q.year, dob.year) ? 'near' : 'mismatched';
      if (q.year === dob.year && q.month === dob.month) return 'matched';
      const offByOne =
        (q.year === dob.year && near(q.month, dob.month)) ||
        (q.month === dob.month && near(q.year, dob.year));
      return offByOne ? 'near' : 'mismatched';
    }
    case 'date': {
      const [y, m, d] = dob.date.split('-').map(Number);
      if (q.month === undefined) return q.year === y ? 'matched' : near(q.year, y) ? 'near' : 'mismatched';
      if (q.day === undefined) {
        if (q.year === y && q.month === m) return 'matched';
        return (q.year === y && near(q.month, m)) || (q.month === m && near(q.year, y))
          ? 'near'
          : 'mismatched';
      }
      if (q.year === y && q.month === m && q.day === d) return 'matched';
      // A typo in one component, or day and month swapped (US vs European order), is "near":
      // the same person is likely, and treating it as a contradiction would hide real hits.
      const sameYear = q.year === y;
      const sameMonth = q.month === m;
      const sameDay = q.day === d;
      if (sameYear && sameMonth && near(q.day, d)) return 'near';
      if (sameYear && sameDay && near(q.month, m)) return 'near';
      if (sameMonth && sameDay && near(q.year, y)) return 'near';
      if (sameYear && q.month === d && q.day === m) return 'near';
      return 'mismatched';
    }
  }
}

/** Compares the subject's date of birth with every date the list gives; the best verdict wins. */
export function compareDob(query: string | undefined, listed: readonly ListedDob[]): FieldExplanation {
  const q = parseQueryDob(query);
  if (!q) return { status: 'unknown', detail: 'no date of birth given for the subject' };
  if (listed.length === 0) return { status: 'unknown', detail: 'the list gives no date of birth' };
  let best: DobVerdict = 'mismatched';
  let bestDob = listed[0];
  for (const dob of listed) {
    const v = compareOneDob(q, dob);
    if (v === 'matched' || (v === 'near' && best === 'mismatched')) {
      best = v;
      bestDob = dob;
      if (v === 'matched') break;
    }
  }
  const shown = formatListedDob(bestDob);
  const precision =
    bestDob.kind === 'date'
      ? ''
      : bestDob.kind === 'range'
        ? ' (the list gives a range of years)'
        : ' (the list gives a partial date)';
  if (best === 'matched')
    return { status: 'matched', detail: `date of birth matches the listed ${shown}${precision}` };
  if (best === 'near')
    return { status: 'near', detail: `date of birth is one day, month or year from the listed ${shown}` };
  const all = listed.map(formatListedDob).join(', ');
  return { status: 'mismatched', detail: `date of birth differs from the listed ${all}` };
}

/**
 * Compares a normalised country (from nationality text) with the listed countries (normalised
 * the same way). `label` names the field in the detail text.
 */
export function compareCountry(
  query: string | undefined,
  queryCountry: string | undefined,
  listed: readonly string[],
  label: string,
): FieldExplanation {
  if (!query || query.trim() === '')
    return { status: 'unknown', detail: `no ${label} given for the subject` };
  if (listed.length === 0) return { status: 'unknown', detail: `the list gives no ${label}` };
  if (queryCountry === undefined)
    return { status: 'unknown', detail: `${label} "${query}" names no known country` };
  if (listed.includes(queryCountry))
    return { status: 'matched', detail: `${label} ${queryCountry} matches the list` };
  return {
    status: 'mismatched',
    detail: `${label} ${queryCountry} differs from the listed ${listed.join(', ')}`,
  };
}

/**
 * Compares a city or country of the subject with the listed places (addresses, places of birth).
 * A country is compared by canonical name; a city by its words appearing in a listed place.
 */
export function compareLocation(
  query: string | undefined,
  queryCountry: string | undefined,
  listedPlaces: readonly string[],
  listedCountries: readonly string[],
): FieldExplanation {
  if (!query || query.trim() === '')
    return { status: 'unknown', detail: 'no location given for the subject' };
  if (listedPlaces.length === 0) return { status: 'unknown', detail: 'the list gives no location' };
  if (queryCountry !== undefined) {
    if (listedCountries.includes(queryCountry))
      return { status: 'matched', detail: `location ${queryCountry} appears on the list` };
    return { status: 'mismatched', detail: `location ${queryCountry} is not among the listed places` };
  }
  const words = tokeniseName(query).map((t) => t.text);
  if (words.length === 0) return { status: 'unknown', detail: 'location not comparable' };
  for (const place of listedPlaces) {
    const placeWords = new Set(tokeniseName(place).map((t) => t.text));
    if (words.every((w) => placeWords.has(w)))
      return { status: 'matched', detail: `location ${query} appears in the listed place "${place}"` };
  }
  return { status: 'mismatched', detail: `location ${query} is not among the listed places` };
}
