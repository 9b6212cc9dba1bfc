/**
 * docs/scorecard.md, written by `npm run eval`: the matcher's figures for one release, with the
 * date, the commit, the matcher version and the snapshot they were measured on. Speed figures are
 * copied from the last `npm run bench` (bench/results/matcher-last.json). A test
 * (test/matcher/scorecard.test.ts) fails when the committed scorecard names another matcher
 * version than the code's.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_RESULTS } from '../bench/matcher.ts';
import { MATCHER_VERSION } from '../lib/matcher/version.ts';
import type { WatchlistSnapshot } from '../lib/watchlists/types.ts';
import type { Half } from './classes.ts';
import type { CrossScriptFigures } from './cross-script.ts';
import { type InnocentFigures, per1000 } from './innocents.ts';
import type { TokenClassFigures } from './token-classes.ts';
import type { RecallCell, VariantFigures } from './variants.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SCORECARD = join(repoRoot, 'docs', 'scorecard.md');

/** Pair-benchmark precision, recall and F1 per half. */
export type PairFigures = Record<'dev' | 'held-out' | 'all', { p: number; r: number; f1: number; n: number }>;

export interface ScorecardInput {
  snapshot: WatchlistSnapshot;
  pairs: PairFigures;
  variants: VariantFigures;
  innocents: InnocentFigures;
  /** Cross-script renderings of listed people, and the per-script control (issue 37). */
  crossScript: CrossScriptFigures;
  /** Innocents drawn from population name frequencies (issue 37). */
  populationInnocents: InnocentFigures;
  tokenClasses: TokenClassFigures;
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

function pct(k: number, n: number): string {
  return n === 0 ? '–' : `${((100 * k) / n).toFixed(1)}%`;
}

function recallRows(rows: [string, Record<Half, RecallCell>][]): string[] {
  const out = [
    '| | ≥ MEDIUM dev | ≥ MEDIUM held-out | ≥ HIGH dev | ≥ HIGH held-out | n (dev / held-out) |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const [label, c] of rows) {
    const d = c.dev;
    const h = c['held-out'];
    out.push(
      `| ${label} | ${pct(d.medium, d.n)} | ${pct(h.medium, h.n)} | ${pct(d.high, d.n)} | ${pct(h.high, h.n)} | ${d.n} / ${h.n} |`,
    );
  }
  return out;
}

function speedSection(): string[] {
  if (!existsSync(BENCH_RESULTS))
    return ['No `npm run bench` figures yet (bench/results/matcher-last.json).'];
  const b = JSON.parse(readFileSync(BENCH_RESULTS, 'utf8')) as Record<string, string | number>;
  return [
    `From the last \`npm run bench\` (${b.measured_at}, commit ${b.commit}, ${b.matcher_version}; ${b.listed_individuals} listed individuals, one core; the machine may have been shared):`,
    '',
    '| figure | value | target |',
    '|---|---:|---:|',
    `| ratio of p50, fuse.js / matcher | ${b.ratio}× | ≥ 1,500× |`,
    `| matcher p50 / p99 per screen (all three checks) | ${b.p50_us} µs / ${b.p99_us} µs | |`,
    `| mean CPU time per screen | ${b.cpu_us_per_screen} µs | |`,
    `| snapshot load + index build | ${b.load_index_ms} ms (${b.load_ms} + ${b.index_ms}) | ≤ 400 ms |`,
    `| heap after load | ${b.heap_mb} MB | ≤ 90 MB |`,
  ];
}

export function writeScorecard(input: ScorecardInput): void {
  const { snapshot, pairs, variants, innocents, populationInnocents, tokenClasses, crossScript } = input;
  const dirty = git(['status', '--porcelain', '--', 'lib/matcher', 'lib/watchlists']) !== '';
  const commit = `${git(['rev-parse', '--short', 'HEAD']) || 'unknown'}${dirty ? ' (with uncommitted matcher changes)' : ''}`;
  const lines: string[] = [
    '# Matcher scorecard',
    '',
    'Written by `npm run eval` (eval/run.ts, eval/scorecard.ts); do not edit by hand. Methods and the',
    'older figures: [benchmarks and evaluation](benchmarks-and-evaluation.md).',
    '',
    `- Date: ${new Date().toISOString().slice(0, 10)}`,
    `- Commit: ${commit}`,
    `- Matcher version: ${MATCHER_VERSION}`,
    `- Snapshot: built ${snapshot.built_at}, ${snapshot.people.length} listed individuals on ${snapshot.lists.length} lists (${snapshot.lists.map((l) => `${l.id} ${l.source_date}`).join(', ')})`,
    '',
    'Dev halves are what the matcher is tuned on; held-out halves are never looked at case by case.',
    '',
    '## Recall on listed-person variants',
    '',
    'Listed people of every list (up to 120 per list) screened under their primary name as listed,',
    'reversed, with a one-letter typo, with the middle dropped, folded, and as a Latin alias, with',
    "their date of birth when listed. A hit is the person's own listing at the level shown (eval/variants.ts).",
    '',
    '### Per list',
    '',
    ...recallRows([...variants.byList]),
    '',
    '### Per variant kind',
    '',
    ...recallRows([...variants.byKind, ['all', variants.all]]),
    '',
    '## Innocents per 1,000 screens, by script and origin',
    '',
    'Invented people (faker locales, eval/generate-innocents.ts), screened through all three checks;',
    'an alert is a screen at the level shown. "Same name": of the name-only alerts, those on a listed',
    "name that has every part of the innocent's name, spelt alike or as a known variant (Olga Volkova",
    'and Olga VOLKOVA): a namesake that no screen by name alone can tell apart.',
    '',
    '| group | half | name only ≥ MEDIUM | of which same name | name only ≥ HIGH | with DOB ≥ MEDIUM | with DOB ≥ HIGH | n |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [group, halves] of innocents) {
    for (const half of ['dev', 'held-out'] as const) {
      const a = halves[half]['name only'];
      const b = halves[half]['with DOB'];
      lines.push(
        `| ${group} | ${half} | ${per1000(a.medium, a.n)} | ${per1000(a.sameName, a.n)} | ${per1000(a.high, a.n)} | ${per1000(b.medium, b.n)} | ${per1000(b.high, b.n)} | ${a.n} |`,
      );
    }
  }
  lines.push(
    '',
    '## Innocents drawn from population name frequencies',
    '',
    'People drawn part by part with the probability of their share of the population (census, register and',
    'birth counts; the GFDL given-name classes for Arabic, South Asian, Chinese and Vietnamese given names),',
    "with each origin's naming custom (eval/generate-population-innocents.ts), screened through all three",
    'checks without nationality. "Exact namesake": a name-only alert on a listed name that is the',
    "innocent's exactly (the same parts both ways), which stays at least MEDIUM by design; the issue 37",
    'targets are on the held-out half: name only excluding exact namesakes ≤ 20 per group and ≤ 10 overall,',
    'with DOB ≤ 5 per group, ≥ HIGH ≤ 0.5 overall. The held-out half was redrawn with a new seed (37,700;',
    'dev keeps 37,000) after the first held-out draw had been looked at while tuning; it has not been tuned',
    'on since. Names recur as often as they are borne, so 719 of its 11,000 people (427 Vietnamese) bear a',
    'name that was in the retired draw too.',
    '',
    '| group | half | name only ≥ MEDIUM | exact namesakes | name only ≥ MEDIUM, exact namesakes excluded | name only ≥ HIGH | with DOB ≥ MEDIUM | with DOB ≥ HIGH | n |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const [group, halves] of populationInnocents) {
    for (const half of ['dev', 'held-out'] as const) {
      const a = halves[half]['name only'];
      const b = halves[half]['with DOB'];
      lines.push(
        `| ${group} | ${half} | ${per1000(a.medium, a.n)} | ${per1000(a.exactName, a.n)} | ${per1000(a.medium - a.exactName, a.n)} | ${per1000(a.high, a.n)} | ${per1000(b.medium, b.n)} | ${per1000(b.high, b.n)} | ${a.n} |`,
      );
    }
  }
  lines.push(
    '',
    '## Cross-script renderings of listed people',
    '',
    `The primary names of ${crossScript.people} listed Latin-script people (current US Congress members and`,
    'sanctioned people) rendered into other scripts and respelt the Baltic way by rule tables',
    '(eval/renderings.ts, eval/cross-script.ts), screened by name only; a hit is the own listing at ≥ MEDIUM.',
    'Control: English-origin innocents of the population set (held-out half) rendered alike, ≥ MEDIUM per 1,000.',
    '',
    '| script | ≥ MEDIUM dev | ≥ MEDIUM held-out | control per 1,000 | n (dev / held-out) |',
    '|---|---:|---:|---:|---:|',
  );
  for (const [script, c] of crossScript.recall) {
    const control = crossScript.control.get(script);
    lines.push(
      `| ${script} | ${pct(c.dev.hits, c.dev.n)} | ${pct(c['held-out'].hits, c['held-out'].n)} | ${control ? per1000(control.alerts, control.n) : '–'} | ${c.dev.n} / ${c['held-out'].n} |`,
    );
  }
  const a = crossScript.all;
  lines.push(
    `| all | ${pct(a.dev.hits, a.dev.n)} | ${pct(a['held-out'].hits, a['held-out'].n)} | | ${a.dev.n} / ${a['held-out'].n} |`,
  );
  const w = variants.wrongDob;
  lines.push(
    '',
    '## Wrong date of birth',
    '',
    'A listed person screened under the primary name with a date of birth 20 years off, at ≥ HIGH:',
    `dev ${pct(w.dev.high, w.dev.n)} of ${w.dev.n}, held-out ${pct(w['held-out'].high, w['held-out'].n)} of ${w['held-out'].n}.`,
    '',
    '## Variants with a date in a listed year',
    '',
    'People listed with years, a month or a range of years only (no full date), each variant above',
    'screened with a date inside the first listed one (its month, or mid-year), ≥ MEDIUM and ≥ HIGH:',
    `dev ${pct(variants.listedYear.dev.medium, variants.listedYear.dev.n)} and ${pct(variants.listedYear.dev.high, variants.listedYear.dev.n)} of ${variants.listedYear.dev.n}, held-out ${pct(variants.listedYear['held-out'].medium, variants.listedYear['held-out'].n)} and ${pct(variants.listedYear['held-out'].high, variants.listedYear['held-out'].n)} of ${variants.listedYear['held-out'].n}.`,
    '',
    '## Pair F1 on the public name benchmark',
    '',
    'Person pairs of the nomenklatura name benchmark (eval/fixtures), `compareNames` at the alert threshold:',
    '',
    '| half | precision | recall | F1 | pairs |',
    '|---|---:|---:|---:|---:|',
  );
  for (const half of ['dev', 'held-out', 'all'] as const) {
    const f = pairs[half];
    lines.push(`| ${half} | ${f.p.toFixed(3)} | ${f.r.toFixed(3)} | ${f.f1.toFixed(3)} | ${f.n} |`);
  }
  lines.push(
    '',
    '## Token classes',
    '',
    'Cases made from the listed people of the snapshot (eval/token-classes.ts): a recall case must reach',
    'the target on its listed person, a false-alert case must stay below it ("as listed": the level the',
    "person's listed spelling gets). Share of cases passing:",
    '',
    '| class | kind | target | dev | held-out | n (dev / held-out) |',
    '|---|---|---|---:|---:|---:|',
  );
  for (const { tokenClass: c, figures: f } of tokenClasses) {
    const d = f.dev;
    const h = f['held-out'];
    lines.push(
      `| ${c.title} | ${c.kind} | ${c.target} | ${pct(d.passed, d.n)} | ${pct(h.passed, h.n)} | ${d.n} / ${h.n} |`,
    );
  }
  lines.push('', '## Speed', '', ...speedSection(), '');
  writeFileSync(SCORECARD, lines.join('\n'));
  console.log(`\nscorecard written to ${SCORECARD}`);
}
