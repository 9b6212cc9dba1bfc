/**
 * False alerts on invented people by script and origin (eval/generate-innocents.ts writes them):
 * each person screened through all three checks, once by name only and once with the date of
 * birth, per half. An alert is a screen whose level is ≥ MEDIUM (and, apart, ≥ HIGH).
 * EVAL_VERBOSE prints the dev half's alerts (never the held-out half's).
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { scoreTokens } from '../lib/matcher/name-score.ts';
import { tokeniseName } from '../lib/matcher/normalise.ts';
import type { Matcher } from '../lib/matcher/screen.ts';
import { type Match, riskRank } from '../lib/matcher/types.ts';
import { CHECK_TYPES } from '../lib/watchlists/types.ts';
import { INNOCENT_GROUPS, INNOCENTS_DIR } from './generate-innocents.ts';

export type Half = 'dev' | 'held-out';
export type DobMode = 'name only' | 'with DOB';

export interface InnocentCell {
  n: number;
  medium: number;
  high: number;
  /**
   * Alerts (≥ MEDIUM) on a listed name that has every part of the innocent's name, each spelt
   * alike or as a known variant of it: a namesake no name-only screen can tell apart.
   */
  sameName: number;
  /**
   * Alerts (≥ MEDIUM) on a listed name that is the innocent's name exactly: the same parts both
   * ways, each spelt alike or as a known variant ("exact namesakes", kept apart in issue 37's
   * figures: a screen by name alone cannot and should not tell them apart).
   */
  exactName: number;
}

/** group (or "overall") → half → DOB mode → counts. */
export type InnocentFigures = Map<string, Record<Half, Record<DobMode, InnocentCell>>>;

interface Innocent {
  group: string;
  name: string;
  dob: string;
}

function read(dir: string, half: Half): Innocent[] {
  return parse(readFileSync(join(dir, `${half}.csv`)), { columns: true }) as Innocent[];
}

function emptyCell(): InnocentCell {
  return { n: 0, medium: 0, high: 0, sameName: 0, exactName: 0 };
}

/** Aligned at least this similar, two name parts are one name (spelt alike, or known variants). */
const SAME_PART = 0.95;

/** Whether every part of `name` is on `listed`, spelt alike or as a known variant. */
function hasEveryPart(name: string, listed: string): boolean {
  const score = scoreTokens(tokeniseName(name), tokeniseName(listed));
  return score.unmatchedQuery.length === 0 && score.pairs.every((p) => p.similarity >= SAME_PART);
}

/**
 * Aligned at least this similar, two parts are one name for an exact namesake: as the matcher's
 * exact-namesake rule reads them (results.ts `EXACT_PAIR`), a rendering of another script included.
 */
const EXACT_PART = 0.93;

/**
 * Whether `name` and `listed` have the same parts both ways, each spelt alike, as a known variant
 * or as another script renders it ("Сергей Семенов" and Sergey SEMENOV).
 */
export function isExactNamesake(name: string, listed: string): boolean {
  const score = scoreTokens(tokeniseName(name), tokeniseName(listed));
  return (
    score.unmatchedQuery.length === 0 &&
    score.unmatchedListed.length === 0 &&
    score.pairs.length >= 2 &&
    score.pairs.every((p) => p.similarity >= EXACT_PART && p.query.length > 1 && p.listed.length > 1)
  );
}

/** A screen's matches in every check, highest level first. */
export function matchesOf(result: ReturnType<Matcher['screen']>): Match[] {
  const matches: Match[] = [];
  for (const r of [result.sanctions_result, result.pep_result]) if (r) matches.push(...r.matches);
  if (result.criminal_result)
    matches.push(...result.criminal_result.interpol_hits, ...result.criminal_result.fbi_hits);
  return matches.sort((a, b) => riskRank(b.risk_level) - riskRank(a.risk_level));
}

/** Innocents to screen: the faker set (default) or the population-drawn one. */
export interface InnocentSet {
  dir: string;
  groups: readonly string[];
}

export const FAKER_INNOCENTS: InnocentSet = { dir: INNOCENTS_DIR, groups: INNOCENT_GROUPS };

export function measureInnocents(matcher: Matcher, set: InnocentSet = FAKER_INNOCENTS): InnocentFigures {
  const figures: InnocentFigures = new Map();
  const cellsOf = (group: string) => {
    let c = figures.get(group);
    if (!c) {
      const modes = () => ({ 'name only': emptyCell(), 'with DOB': emptyCell() });
      c = { dev: modes(), 'held-out': modes() };
      figures.set(group, c);
    }
    return c;
  };
  for (const g of set.groups) cellsOf(g);
  const verbose: string[] = [];
  for (const half of ['dev', 'held-out'] as const) {
    for (const p of read(set.dir, half)) {
      for (const mode of ['name only', 'with DOB'] as const) {
        const result = matcher.screen(
          { name: p.name, dob: mode === 'with DOB' ? p.dob : undefined },
          CHECK_TYPES,
        );
        const rank = riskRank(result.risk_level);
        const alerts = rank >= riskRank('MEDIUM') ? matchesOf(result) : [];
        const top = alerts[0];
        const sameName = top !== undefined && hasEveryPart(p.name, top.matched_name);
        const exactName = alerts.some(
          (m) => m.risk_level === top.risk_level && isExactNamesake(p.name, m.matched_name),
        );
        for (const cell of [cellsOf(p.group)[half][mode], cellsOf('overall')[half][mode]]) {
          cell.n++;
          if (rank >= riskRank('MEDIUM')) cell.medium++;
          if (rank >= riskRank('HIGH')) cell.high++;
          if (sameName) cell.sameName++;
          if (exactName) cell.exactName++;
        }
        if (half === 'dev' && top !== undefined && process.env.EVAL_VERBOSE) {
          verbose.push(
            `    dev ${p.group} ${mode}${exactName ? ' exact' : ''}: ${p.name} → ${top.matched_name} [${top.list_id}] ${top.risk_level} ${top.name_score} ${top.explanation.name.detail}`,
          );
        }
      }
    }
  }
  for (const v of verbose) console.log(v);
  return figures;
}

export function per1000(count: number, n: number): string {
  return n === 0 ? '–' : ((1000 * count) / n).toFixed(1);
}

/** Prints the figures (section f of `npm run eval`, or f2 with another title). */
export function printInnocents(
  figures: InnocentFigures,
  title = '(f) Invented innocents by script and origin (faker; eval/fixtures/innocents), alerts per 1,000 screens',
): void {
  console.log(`\n${title}`);
  console.log(
    `  ${'group'.padEnd(22)} ${'half'.padEnd(9)} ${'name only ≥MED'.padStart(15)} ${'same name'.padStart(10)} ${'excl. exact'.padStart(12)} ${'≥HIGH'.padStart(7)} ${'with DOB ≥MED'.padStart(15)} ${'≥HIGH'.padStart(7)}   n`,
  );
  for (const [group, halves] of figures) {
    for (const half of ['dev', 'held-out'] as const) {
      const a = halves[half]['name only'];
      const b = halves[half]['with DOB'];
      console.log(
        `  ${group.padEnd(22)} ${half.padEnd(9)} ${per1000(a.medium, a.n).padStart(15)} ${per1000(a.sameName, a.n).padStart(10)} ${per1000(a.medium - a.exactName, a.n).padStart(12)} ${per1000(a.high, a.n).padStart(7)} ${per1000(b.medium, b.n).padStart(15)} ${per1000(b.high, b.n).padStart(7)}   ${a.n}`,
      );
    }
  }
}
