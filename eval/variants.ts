/**
 * Recall on listed-person variants, per list and per variant kind: listed people of every list
 * (up to PER_LIST per list, in the order of the SHA-1 of their list and entity id) screened under
 * their own primary name rewritten as a customer might (as listed, parts reversed, a one-letter
 * typo, the middle dropped, lower case without accents, a Latin alias), with their date of birth
 * when the list gives one. A hit is the person's own listing at ≥ MEDIUM (and, apart, ≥ HIGH).
 * Also the wrong-DOB rate: the primary name with a date of birth 20 years off, which should not be
 * HIGH. Halves as eval/classes.ts (`halfOf`). A historical list (retired OFSI) is left out: its
 * entries are screened only as part of a linked current listing.
 */

import { createHash } from 'node:crypto';
import { foldText, tokeniseName } from '../lib/matcher/normalise.ts';
import type { Matcher } from '../lib/matcher/screen.ts';
import { riskRank } from '../lib/matcher/types.ts';
import { perListPeople } from '../lib/watchlists/linking.ts';
import type { ListedDob, ListedPerson, WatchlistSnapshot } from '../lib/watchlists/types.ts';
import { fullDob, type Half, halfOf, levelOn } from './classes.ts';

const PER_LIST = 120;
const LATIN_RE = /^[\p{Script=Latin}\p{P}\p{Z}\p{N}]+$/u;

export const VARIANT_KINDS = ['as listed', 'reversed', 'typo', 'middle dropped', 'folded', 'alias'] as const;
export type VariantKind = (typeof VARIANT_KINDS)[number];

export interface RecallCell {
  n: number;
  medium: number;
  high: number;
}

export interface VariantFigures {
  /** list id → half → counts. */
  byList: Map<string, Record<Half, RecallCell>>;
  /** variant kind → half → counts. */
  byKind: Map<VariantKind, Record<Half, RecallCell>>;
  all: Record<Half, RecallCell>;
  /** Primary name with a DOB 20 years off: screens, and how many came back HIGH or above. */
  wrongDob: Record<Half, { n: number; high: number }>;
  /**
   * People listed with years, a month or a range only (no full date): every variant screened with
   * a date inside the first listed one (`dateInside`), as a customer who knows the birthday gives it.
   */
  listedYear: Record<Half, RecallCell>;
}

/** A date inside a listed date that is not a full one: its month's 15th, or mid-year. */
export function dateInside(dob: ListedDob): string | undefined {
  if (dob.kind === 'month') return `${dob.year}-${String(dob.month).padStart(2, '0')}-15`;
  if (dob.kind === 'year') return `${dob.year}-06-15`;
  if (dob.kind === 'range') return `${dob.from}-06-15`;
  return undefined;
}

function cells(): Record<Half, RecallCell> {
  return { dev: { n: 0, medium: 0, high: 0 }, 'held-out': { n: 0, medium: 0, high: 0 } };
}

/** Display words of a name in reading order ("SURNAME, Given" → "Given SURNAME"). */
export function readingOrderWords(name: string): string[] {
  const parts = name.split(',');
  const ordered = parts.length === 2 ? `${parts[1]} ${parts[0]}` : name;
  return ordered.split(/\s+/).filter((w) => w !== '');
}

/** The letter at the middle of the longest word moved one place on in the alphabet. */
function withTypo(ws: string[]): string {
  let at = 0;
  for (let k = 1; k < ws.length; k++) if (ws[k].length > ws[at].length) at = k;
  const w = ws[at];
  const i = Math.floor(w.length / 2);
  const c = w[i];
  const next = /[a-yA-Y]/.test(c) ? String.fromCharCode(c.charCodeAt(0) + 1) : c === 'z' ? 'a' : 'b';
  return ws.map((x, k) => (k === at ? x.slice(0, i) + next + x.slice(i + 1) : x)).join(' ');
}

export function variantsOf(person: ListedPerson): [VariantKind, string][] {
  const name = person.primary_name;
  if (!LATIN_RE.test(name) || tokeniseName(name).length < 2) return [];
  const ws = readingOrderWords(name);
  const out: [VariantKind, string][] = [['as listed', name]];
  if (ws.length >= 2) out.push(['reversed', [...ws].reverse().join(' ')]);
  if (ws.some((w) => w.length >= 5)) out.push(['typo', withTypo(ws)]);
  if (ws.length >= 3) out.push(['middle dropped', `${ws[0]} ${ws[ws.length - 1]}`]);
  const folded = foldText(ws.join(' '));
  if (folded !== ws.join(' ').toLowerCase() || /[A-Z]{2}/.test(name)) out.push(['folded', folded]);
  const alias = person.names.find(
    (n) => n.name !== name && LATIN_RE.test(n.name) && tokeniseName(n.name).length >= 2,
  );
  if (alias) out.push(['alias', alias.name]);
  return out;
}

function shiftYears(date: string, years: number): string {
  return `${Number(date.slice(0, 4)) + years}${date.slice(4)}`;
}

export function measureVariants(matcher: Matcher, snapshot: WatchlistSnapshot): VariantFigures {
  const figures: VariantFigures = {
    byList: new Map(),
    byKind: new Map(VARIANT_KINDS.map((k) => [k, cells()])),
    all: cells(),
    wrongDob: { dev: { n: 0, high: 0 }, 'held-out': { n: 0, high: 0 } },
    listedYear: cells(),
  };
  const byList = new Map<string, ListedPerson[]>();
  // A historical list (the retired OFSI list) is screened only through a linked current listing.
  const historical = new Set(snapshot.lists.filter((l) => l.historical).map((l) => l.id));
  for (const p of perListPeople(snapshot)) {
    if (historical.has(p.list_id)) continue;
    const list = byList.get(p.list_id) ?? [];
    list.push(p);
    byList.set(p.list_id, list);
  }
  const sha = (p: ListedPerson) => createHash('sha1').update(`${p.list_id}|${p.entity_id}`).digest('hex');
  for (const [listId, people] of [...byList].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const listCells = cells();
    figures.byList.set(listId, listCells);
    const sample = people
      .filter((p) => variantsOf(p).length > 0)
      .map((p) => [sha(p), p] as const)
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .slice(0, PER_LIST)
      .map(([, p]) => p);
    for (const person of sample) {
      const half = halfOf(person);
      const dob = fullDob(person);
      for (const [kind, name] of variantsOf(person)) {
        const rank = riskRank(levelOn(matcher, person, name, dob));
        // Dev misses only: the held-out half is never looked at case by case.
        if (half === 'dev' && rank < riskRank('MEDIUM') && process.env.EVAL_VERBOSE)
          console.log(
            `    dev variant miss (${kind}): ${name}${dob ? ` ${dob}` : ''} → ${person.primary_name} [${listId}]`,
          );
        for (const c of [
          listCells[half],
          (figures.byKind.get(kind) as Record<Half, RecallCell>)[half],
          figures.all[half],
        ]) {
          c.n++;
          if (rank >= riskRank('MEDIUM')) c.medium++;
          if (rank >= riskRank('HIGH')) c.high++;
        }
      }
      if (dob) {
        const rank = riskRank(levelOn(matcher, person, person.primary_name, shiftYears(dob, 20)));
        figures.wrongDob[half].n++;
        if (rank >= riskRank('HIGH')) figures.wrongDob[half].high++;
      }
      const inside = person.dobs.length > 0 && !dob ? dateInside(person.dobs[0]) : undefined;
      for (const [kind, name] of inside ? variantsOf(person) : []) {
        const rank = riskRank(levelOn(matcher, person, name, inside));
        if (half === 'dev' && rank < riskRank('MEDIUM') && process.env.EVAL_VERBOSE)
          console.log(
            `    dev listed-year variant miss (${kind}): ${name} ${inside} → ${person.primary_name} [${listId}]`,
          );
        const c = figures.listedYear[half];
        c.n++;
        if (rank >= riskRank('MEDIUM')) c.medium++;
        if (rank >= riskRank('HIGH')) c.high++;
      }
    }
  }
  return figures;
}

function pct(k: number, n: number): string {
  return n === 0 ? '–' : `${((100 * k) / n).toFixed(1)}%`;
}

export function printVariants(f: VariantFigures): void {
  console.log("\n(g) Listed-person variants, recall of the person's own listing (dev / held-out)");
  const row = (label: string, c: Record<Half, RecallCell>) =>
    console.log(
      `  ${label.padEnd(20)} ≥MEDIUM dev ${pct(c.dev.medium, c.dev.n).padStart(6)} held-out ${pct(c['held-out'].medium, c['held-out'].n).padStart(6)}   ≥HIGH dev ${pct(c.dev.high, c.dev.n).padStart(6)} held-out ${pct(c['held-out'].high, c['held-out'].n).padStart(6)}   n ${c.dev.n}/${c['held-out'].n}   misses ≥MEDIUM ${c.dev.n - c.dev.medium}/${c['held-out'].n - c['held-out'].medium}`,
    );
  for (const [list, c] of f.byList) row(list, c);
  for (const [kind, c] of f.byKind) row(kind, c);
  row('all', f.all);
  row('with a listed year', f.listedYear);
  const w = f.wrongDob;
  console.log(
    `  DOB 20 years off, ≥HIGH: dev ${pct(w.dev.high, w.dev.n)} (${w.dev.n}) held-out ${pct(w['held-out'].high, w['held-out'].n)} (${w['held-out'].n})`,
  );
}
