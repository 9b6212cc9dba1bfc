/**
 * Reading the dates lists write in free text ("31 Aug 1960", "November 26, 2003", "circa 1958",
 * "1960 to 1962", "00/05/1961") into `ListedDob` values without inventing precision the list
 * does not give.
 */
import type { ListedDob } from './types.ts';

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

/** Month number for an English month name or its abbreviation ("Aug", "August", "Sept."). */
export function monthNumber(name: string): number | undefined {
  const key = name.toLowerCase().replace(/\.$/, '');
  return MONTHS[key] ?? MONTHS[key.slice(0, 3)];
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/** A `date` DOB when day, month and year form a real calendar date; undefined otherwise. */
export function calendarDob(
  year: number,
  month: number,
  day: number,
  approximate = false,
): ListedDob | undefined {
  if (!Number.isInteger(year) || year < 1000 || year > 2100) return undefined;
  if (month < 1 || month > 12) return undefined;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return undefined;
  const dob: ListedDob = { kind: 'date', date: `${year}-${pad2(month)}-${pad2(day)}` };
  if (approximate) dob.approximate = true;
  return dob;
}

export function yearDob(year: number, approximate = false): ListedDob | undefined {
  if (!Number.isInteger(year) || year < 1000 || year > 2100) return undefined;
  return approximate ? { kind: 'year', year, approximate: true } : { kind: 'year', year };
}

export function monthDob(year: number, month: number, approximate = false): ListedDob | undefined {
  if (!Number.isInteger(year) || year < 1000 || year > 2100 || month < 1 || month > 12) return undefined;
  return approximate ? { kind: 'month', year, month, approximate: true } : { kind: 'month', year, month };
}

export function rangeDob(from: number, to: number): ListedDob | undefined {
  if (!Number.isInteger(from) || !Number.isInteger(to) || from < 1000 || to > 2100) return undefined;
  if (from === to) return { kind: 'year', year: from };
  return from < to ? { kind: 'range', from, to } : { kind: 'range', from: to, to: from };
}

/** Identity of a DOB, to drop duplicates a list repeats across rows or aliases. */
export function dobKey(dob: ListedDob): string {
  switch (dob.kind) {
    case 'date':
      return `d${dob.date}`;
    case 'month':
      return `m${dob.year}-${dob.month}`;
    case 'year':
      return `y${dob.year}`;
    case 'range':
      return `r${dob.from}-${dob.to}`;
  }
}

/** Appends DOBs not already present (a precise entry and an approximate one of the same value count as one). */
export function addDobs(target: ListedDob[], ...dobs: (ListedDob | undefined)[]): void {
  for (const dob of dobs) {
    if (!dob) continue;
    const key = dobKey(dob);
    if (!target.some((existing) => dobKey(existing) === key)) target.push(dob);
  }
}

/**
 * "dd/mm/yyyy", "mm/yyyy" or "yyyy" with `00` for unknown parts (the UK OFSI convention), or an
 * ISO "yyyy-mm-dd" / "yyyy/mm/dd" with `00` parts.
 */
export function parseNumericDob(text: string): ListedDob | undefined {
  const value = text.trim();
  let m = value.match(/^(\d{1,2})\/(\d{1,2})\/(\d{4})$/);
  if (m) return fromParts(Number(m[3]), Number(m[2]), Number(m[1]));
  m = value.match(/^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$/);
  if (m) return fromParts(Number(m[1]), Number(m[2]), Number(m[3]));
  m = value.match(/^(\d{1,2})\/(\d{4})$/);
  if (m) return fromParts(Number(m[2]), Number(m[1]), 0);
  m = value.match(/^(\d{4})$/);
  if (m) return yearDob(Number(m[1]));
  return undefined;
}

function fromParts(year: number, month: number, day: number): ListedDob | undefined {
  if (year === 0) return undefined;
  if (month === 0) return yearDob(year);
  if (day === 0) return monthDob(year, month);
  return calendarDob(year, month, day) ?? monthDob(year, month);
}

/** "dd/mm/yyyy" → "yyyy-mm-dd" for complete dates (list/designation dates); undefined otherwise. */
export function isoFromDayMonthYear(text: string | undefined): string | undefined {
  const m = text?.trim().match(/^(\d{1,2})\/(\d{1,2})\/(\d{4})$/);
  if (!m) return undefined;
  const dob = calendarDob(Number(m[3]), Number(m[2]), Number(m[1]));
  return dob?.kind === 'date' ? dob.date : undefined;
}
