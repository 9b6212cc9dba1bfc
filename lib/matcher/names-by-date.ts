/**
 * The listed names by full date of birth: a subject's full date of birth makes the names of the
 * listed people born that day candidates whatever their spelling (at most a few dozen per date).
 * Compiled with the snapshot (compiled-index.ts).
 */

import type { ListedDob, ListedPerson } from '../watchlists/types.ts';

/**
 * Name ids by full date of birth in flat typed arrays (about 13,000 dates, 47,000 names): the
 * names born on `dates[k]` are `nameIds` from `start[k]` to `start[k + 1]`, ascending. A map of
 * date strings to arrays held 2 MB of heap for the same.
 */
export interface NamesByDate {
  /** Dates as the number YYYYMMDD, ascending. */
  dates: Int32Array;
  start: Int32Array;
  nameIds: Int32Array;
}

const FULL_DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const NO_NAME_IDS = new Int32Array(0);

/** `YYYY-MM-DD` as the number YYYYMMDD (the caller checks the shape). */
function dateNumber(date: string): number {
  return Number(date.slice(0, 4)) * 10000 + Number(date.slice(5, 7)) * 100 + Number(date.slice(8, 10));
}

/** The full dates (`YYYY-MM-DD`) among a listed person's dates of birth, as YYYYMMDD numbers. */
function fullDatesOf(dobs: readonly ListedDob[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < dobs.length; k++) {
    const d = dobs[k];
    // Only a date of this shape can equal a subject's full date (`fullQueryDate`).
    if (d.kind === 'date' && FULL_DATE_RE.test(d.date)) out.push(dateNumber(d.date));
  }
  return out;
}

/** Name ids below this fit beside the date in one sort key (`namesByDate`). */
const NAME_ID_SPAN = 2 ** 24;

/** The names of `namePerson` (person per name id) by their people's full dates of birth. */
export function namesByDate(people: readonly ListedPerson[], namePerson: Int32Array): NamesByDate {
  // One number per (date, name): date × span + name id, so a numeric sort orders by date, then name.
  if (namePerson.length > NAME_ID_SPAN) throw new Error(`more than ${NAME_ID_SPAN} listed names`);
  const keys: number[] = [];
  // A person's names are mostly consecutive ids: their dates are read once per run of them.
  let person = -1;
  let personDates: number[] = [];
  for (let nameId = 0; nameId < namePerson.length; nameId++) {
    if (namePerson[nameId] !== person) {
      person = namePerson[nameId];
      personDates = fullDatesOf(people[person].dobs);
    }
    for (let k = 0; k < personDates.length; k++) keys.push(personDates[k] * NAME_ID_SPAN + nameId);
  }
  const sorted = Float64Array.from(keys).sort();
  const dates: number[] = [];
  const start: number[] = [];
  const nameIds: number[] = [];
  for (let k = 0; k < sorted.length; k++) {
    if (k > 0 && sorted[k] === sorted[k - 1]) continue;
    const date = Math.floor(sorted[k] / NAME_ID_SPAN);
    if (dates[dates.length - 1] !== date) {
      dates.push(date);
      start.push(nameIds.length);
    }
    nameIds.push(sorted[k] % NAME_ID_SPAN);
  }
  start.push(nameIds.length);
  return { dates: Int32Array.from(dates), start: Int32Array.from(start), nameIds: Int32Array.from(nameIds) };
}

/** Name ids of the listed people born on the full date `date` (`YYYY-MM-DD`), ascending. */
export function namesBornOnDate(byDate: NamesByDate, date: string): Int32Array {
  const { dates, start, nameIds } = byDate;
  const key = dateNumber(date);
  let lo = 0;
  let hi = dates.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (dates[mid] < key) lo = mid + 1;
    else if (dates[mid] > key) hi = mid - 1;
    else return nameIds.subarray(start[mid], start[mid + 1]);
  }
  return NO_NAME_IDS;
}
