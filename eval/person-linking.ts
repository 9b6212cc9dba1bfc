/**
 * One match per real person (issue 22, items 2 and 3), measured on the listed people themselves:
 *
 * - **Spelt differently, same date of birth**: listings on two or more sanctions lists that state
 *   the same complete date of birth and whose primary names are alike (`compareNames` ≥ 0.90) but
 *   not spelt alike part for part (ILINYKH / ILYNIKH, Alexey / Aleksey). Each group is screened
 *   with one listing's name and the date; it passes when every listing of the group comes back in
 *   one match.
 * - **A 20-year-wrong date of birth**: a listed person with a complete date of birth screened
 *   under its primary name and that date 20 years off; it fails when the sanctions check is HIGH
 *   or above anyway (a DOB-less duplicate of the same person that nothing contradicts).
 *
 * Cases fall in the dev or held-out half by the SHA-1 of their listing ids (eval/classes.ts
 * `halfOf`); the rules are tuned on dev only.
 */

import { createHash } from 'node:crypto';
import { compareNames } from '../lib/matcher/name-score.ts';
import type { Matcher } from '../lib/matcher/screen.ts';
import { riskRank } from '../lib/matcher/types.ts';
import { fullNameKey, perListPeople } from '../lib/watchlists/linking.ts';
import type { ListedPerson, WatchlistSnapshot } from '../lib/watchlists/types.ts';
import { type Half, halfOf } from './classes.ts';

const SANCTIONS = new Set([
  'ofac_sdn',
  'ofac_cons',
  'un_sc',
  'eu_fsf',
  'uk_fcdo',
  'uk_ofsi',
  'ca_sema',
  'au_dfat',
  'nz_russia',
]);
/** Alike enough to be one person's name spelt two ways (the strong band of lib/matcher/risk.ts). */
const ALIKE = 0.9;
const WRONG_BY_YEARS = 20;

const idOf = (p: ListedPerson) => `${p.list_id}:${p.entity_id}`;

function fullDates(p: ListedPerson): string[] {
  return p.dobs.flatMap((d) => (d.kind === 'date' ? [d.date] : []));
}

export interface SpeltApartCase {
  listings: ListedPerson[];
  half: Half;
}

/** Groups of listings of one person, spelt differently on different lists, with one full date. */
export function speltApartCases(snapshot: WatchlistSnapshot): SpeltApartCase[] {
  const listed = perListPeople(snapshot).filter((p) => SANCTIONS.has(p.list_id) && p.list_id !== 'uk_ofsi');
  const byDate = new Map<string, ListedPerson[]>();
  for (const p of listed) for (const d of fullDates(p)) byDate.set(d, [...(byDate.get(d) ?? []), p]);
  const cases = new Map<string, SpeltApartCase>();
  for (const [, born] of byDate) {
    if (born.length < 2 || born.length > 40) continue; // 1 January and the like: placeholder dates
    for (const a of born) {
      const group = born.filter(
        (b) =>
          b.list_id !== a.list_id &&
          fullNameKey(b.primary_name).key !== fullNameKey(a.primary_name).key &&
          compareNames(a.primary_name, b.primary_name) >= ALIKE,
      );
      if (!group.length) continue;
      const listings = [a, ...group].sort((x, y) => (idOf(x) < idOf(y) ? -1 : 1));
      const key = listings.map(idOf).join('|');
      if (cases.has(key)) continue;
      const hex = createHash('sha1').update(key).digest('hex');
      cases.set(key, { listings, half: Number.parseInt(hex.slice(0, 8), 16) % 2 === 0 ? 'dev' : 'held-out' });
    }
  }
  return [...cases.values()];
}

/** Matches of one sanctions screen that hold some listing of the case. */
function matchesHolding(matcher: Matcher, c: SpeltApartCase): number {
  const [first] = c.listings;
  const dob =
    fullDates(first).find((d) => c.listings.every((p) => fullDates(p).includes(d))) ?? fullDates(first)[0];
  const ids = new Set(c.listings.map(idOf));
  const matches =
    matcher.screen({ name: first.primary_name, dob }, ['sanctions']).sanctions_result?.matches ?? [];
  return matches.filter((m) => m.listings.some((l) => ids.has(`${l.list_id}:${l.entity_id}`))).length;
}

function shiftYears(date: string, years: number): string {
  const year = Number(date.slice(0, 4)) + years;
  return `${year}${date.slice(4)}`.replace(/-02-29$/, '-02-28');
}

function pct(n: number, d: number): string {
  return `${d ? ((100 * n) / d).toFixed(1) : '100.0'}% (${n}/${d})`;
}

/** Prints both figures per half (section (h) of `npm run eval`). */
export function personLinkingFigures(matcher: Matcher, snapshot: WatchlistSnapshot): void {
  console.log('\n(h) One match per person (dev / held-out by hash of the listing ids)');
  const cases = speltApartCases(snapshot);
  for (const half of ['dev', 'held-out'] as const) {
    const mine = cases.filter((c) => c.half === half);
    const counts = mine.map((c) => matchesHolding(matcher, c));
    const one = counts.filter((n) => n === 1).length;
    const mean = counts.reduce((a, b) => a + b, 0) / Math.max(1, counts.length);
    console.log(
      `  spelt differently, same full DOB, one match: ${half.padEnd(8)} ${pct(one, mine.length)}, ${mean.toFixed(2)} matches per person`,
    );
    if (process.env.EVAL_VERBOSE && half === 'dev')
      mine.forEach((c, i) => {
        if (counts[i] !== 1)
          console.log(
            `    dev split (${counts[i]}): ${c.listings.map((p) => `${idOf(p)} ${p.primary_name}`).join(' | ')}`,
          );
      });
  }
  const dated = perListPeople(snapshot).filter(
    (p) => SANCTIONS.has(p.list_id) && p.list_id !== 'uk_ofsi' && fullDates(p).length > 0,
  );
  const sample = dated.filter((_, i) => i % 5 === 0);
  for (const half of ['dev', 'held-out'] as const) {
    const mine = sample.filter((p) => halfOf(p) === half);
    let high = 0;
    for (const p of mine) {
      const [date] = fullDates(p);
      const shifted = shiftYears(
        date,
        Number(date.slice(0, 4)) + WRONG_BY_YEARS > 2010 ? -WRONG_BY_YEARS : WRONG_BY_YEARS,
      );
      const level = matcher.screen({ name: p.primary_name, dob: shifted }, ['sanctions']).sanctions_result
        ?.risk_level;
      if (level && riskRank(level) >= riskRank('HIGH')) {
        high++;
        if (process.env.EVAL_VERBOSE && half === 'dev')
          console.log(`    dev HIGH: ${idOf(p)} ${p.primary_name} ${shifted}`);
      }
    }
    console.log(
      `  own name, DOB ${WRONG_BY_YEARS} years off, sanctions ≥HIGH:  ${half.padEnd(8)} ${pct(high, mine.length)}`,
    );
  }
}
