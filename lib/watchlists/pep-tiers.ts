/**
 * PEP tiers: how long after leaving office someone is still treated as politically exposed.
 *
 * FATF Recommendation 12 and most regulators (e.g. the EU AMLD's 12-month minimum, the UK FCA's
 * FG17/6) expect a risk-based tail after office rather than a fixed cut-off. The product uses
 * three tiers, judged against the date of the PEP data itself (not the day of screening), so that
 * a result never claims more currency than the data has:
 *
 * - Tier 1 — holds the office on the data date.
 * - Tier 2 — left office within the 5 years before the data date.
 * - Tier 3 — left office more than 5 years before the data date, or when it cannot be told when
 *   they left.
 *
 * People who would be over 100 on the data date, or whose birth date is unknown, are treated as
 * deceased and not screened as former office holders: the sources carry no death dates, and
 * screening against the long dead only produces false alerts.
 */

export const PEP_TIER_LABELS: Readonly<Record<number, string>> = {
  1: 'Tier 1: current office holder',
  2: 'Tier 2: former office holder (left within 5 years)',
  3: 'Tier 3: former office holder (left more than 5 years ago, or date unknown)',
};

export const PEP_FORMER_TAIL_YEARS = 5;
export const PEP_MAX_AGE_YEARS = 100;

/** The tier rule in words, for /dbstatus and the README. */
export const PEP_TIER_RULE =
  'Tiers are judged against the date of the PEP data: tier 1 = in office on that date; tier 2 = left office ' +
  `within the ${PEP_FORMER_TAIL_YEARS} years before it; tier 3 = left earlier, or when it is unknown (former ` +
  `members of Congress from legislators-historical.csv, which has no term dates). Former office holders who would ` +
  `be over ${PEP_MAX_AGE_YEARS} on that date, or have no birth date, are presumed deceased and not screened.`;

function addYears(isoDate: string, years: number): string {
  const [y, rest] = [Number(isoDate.slice(0, 4)), isoDate.slice(4)];
  return `${String(y + years).padStart(4, '0')}${rest}`;
}

/** Tier of someone whose office ended on `until` (YYYY-MM-DD), judged at `referenceDate`. */
export function formerTier(until: string | undefined, referenceDate: string): 2 | 3 {
  if (!until) return 3;
  return addYears(until, PEP_FORMER_TAIL_YEARS) >= referenceDate ? 2 : 3;
}

/** Whether a former office holder born on `birthday` is plausibly alive at `referenceDate`. */
export function plausiblyAlive(birthday: string | undefined, referenceDate: string): boolean {
  if (!birthday || !/^\d{4}-\d{2}-\d{2}$/.test(birthday)) return false;
  return addYears(birthday, PEP_MAX_AGE_YEARS) > referenceDate;
}
