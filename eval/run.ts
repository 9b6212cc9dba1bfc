/**
 * Matcher evaluation (`npm run eval`). Prints:
 *  (a) precision / recall / F1 of `compareNames` on the Person pairs of the nomenklatura name
 *      benchmark (eval/fixtures, MIT) on a dev half, a held-out half and all pairs (split rule at
 *      `splitOf`), beside OpenSanctions logic-v2's frozen figures on the same pairs;
 *  (b) recall of the full matcher on the 683 UN persons of the yente fixtures (untouched,
 *      name-perturbed, DOB-perturbed), alert = a sanctions match on the right UN entity at ≥ MEDIUM;
 *  (c) false alerts per 1,000 innocent people (deterministic samples of the yente negatives, with
 *      their DOB and nationality) at ≥ MEDIUM and ≥ HIGH;
 *  plus recall on the watchman cross-script pairs and the 81 Putin name variants; (d)–(h) and
 *  (i), the token classes of eval/token-classes.ts, are described where they are printed.
 *
 * The yente, watchman and Putin fixtures are not shipped with the product: they are read from
 * EVAL_DIR (default `<repo>/../shared/eval`) and skipped with a message when absent.
 * Name-scoring mechanisms and thresholds are tuned only on the dev half of the Person pairs.
 */

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { compareNames, NAME_ALERT_THRESHOLD } from '../lib/matcher/name-score.ts';

import { tokeniseName } from '../lib/matcher/normalise.ts';
import { createMatcher, type Matcher } from '../lib/matcher/screen.ts';
import { loadSnapshot } from '../lib/matcher/snapshot-file.ts';
import { riskRank } from '../lib/matcher/types.ts';
import { perListPeople } from '../lib/watchlists/linking.ts';
import type { WatchlistSnapshot } from '../lib/watchlists/types.ts';
import { issueClasses, levelOn, measureClass } from './classes.ts';
import { measureCrossScript, printCrossScript } from './cross-script.ts';
import { POPULATION_GROUPS, POPULATION_INNOCENTS_DIR } from './generate-population-innocents.ts';
import { measureInnocents, printInnocents } from './innocents.ts';
import { personLinkingFigures } from './person-linking.ts';
import { type PairFigures, writeScorecard } from './scorecard.ts';
import { measureTokenClasses, printTokenClasses } from './token-classes.ts';
import { measureVariants, printVariants } from './variants.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const fixtures = join(repoRoot, 'eval', 'fixtures');
const evalDir = process.env.EVAL_DIR
  ? resolve(process.env.EVAL_DIR)
  : resolve(repoRoot, '..', 'shared', 'eval');

type Row = Record<string, string>;

function readCsv(path: string): Row[] {
  return parse(readFileSync(path), {
    columns: true,
    skip_empty_lines: true,
    relax_column_count: true,
  }) as Row[];
}

function pct(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

interface Confusion {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
}

function prf(c: Confusion): string {
  const p = c.tp / Math.max(1, c.tp + c.fp);
  const r = c.tp / Math.max(1, c.tp + c.fn);
  const f1 = p + r > 0 ? (2 * p * r) / (p + r) : 0;
  return `P ${p.toFixed(3)}  R ${r.toFixed(3)}  F1 ${f1.toFixed(3)}  (n=${c.tp + c.fp + c.fn + c.tn})`;
}

function count(rows: Row[], predict: (r: Row) => boolean): Confusion {
  const c: Confusion = { tp: 0, fp: 0, fn: 0, tn: 0 };
  for (const r of rows) {
    const p = predict(r);
    const m = r.is_match === 'true';
    if (p && m) c.tp++;
    else if (p) c.fp++;
    else if (m) c.fn++;
    else c.tn++;
  }
  return c;
}

/**
 * Dev / held-out split of the Person pairs. Every distinct pair (key `name1|name2`) is assigned
 * once: keys are grouped by the case_group of their first row, sorted within the group by the
 * SHA-1 of the key, and alternately given to dev (even positions) and held-out (odd positions).
 * So the split is deterministic, stratified by case_group (each group halves), and a pair listed
 * twice never straddles the halves. Mechanisms and thresholds are tuned only on dev-half errors;
 * EVAL_VERBOSE lists dev errors only, never held-out ones.
 */
function splitOf(cases: Row[]): Map<string, 'dev' | 'held-out'> {
  const keysByGroup = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const r of cases) {
    const key = pairKey(r);
    if (seen.has(key)) continue;
    seen.add(key);
    const keys = keysByGroup.get(r.case_group) ?? [];
    keys.push(key);
    keysByGroup.set(r.case_group, keys);
  }
  const side = new Map<string, 'dev' | 'held-out'>();
  const sha = (k: string) => createHash('sha1').update(k).digest('hex');
  for (const keys of keysByGroup.values()) {
    const sorted = keys.map((k) => [sha(k), k] as const).sort((a, b) => (a[0] < b[0] ? -1 : 1));
    sorted.forEach(([, k], i) => {
      side.set(k, i % 2 === 0 ? 'dev' : 'held-out');
    });
  }
  return side;
}

function pairKey(r: Row): string {
  return `${r.name1}|${r.name2}`;
}

function namePairs(): PairFigures {
  const figures = {} as PairFigures;
  console.log(
    `\n(a) Person name pairs (nomenklatura name_bench), alert at compareNames ≥ ${NAME_ALERT_THRESHOLD}`,
  );
  console.log(
    '  split: distinct name1|name2 pairs, per case_group sorted by SHA-1 of the pair, alternately dev / held-out;',
  );
  console.log('  tuned on dev only; held-out errors are never printed');
  const cases = readCsv(join(fixtures, 'nomenklatura-name-bench', 'cases.csv')).filter(
    (r) => r.schema === 'Person',
  );
  const frozen = new Map<string, boolean>();
  for (const r of readCsv(join(fixtures, 'nomenklatura-name-bench', 'logicv2-frozen.csv')))
    if (r.schema === 'Person') frozen.set(pairKey(r), r.predicted_match === 'true');
  const side = splitOf(cases);
  const scores = new Map<Row, number>(cases.map((r) => [r, compareNames(r.name1, r.name2)]));
  const groups = [...new Set(cases.map((r) => r.case_group))];
  for (const label of ['dev', 'held-out', 'all'] as const) {
    const rows = cases.filter((r) => label === 'all' || side.get(pairKey(r)) === label);
    const perGroup = groups.map((g) => `${g} ${rows.filter((r) => r.case_group === g).length}`).join(', ');
    const withFrozen = rows.filter((r) => frozen.has(pairKey(r)));
    console.log(`  ${label} (${perGroup})`);
    const ours = count(rows, (r) => (scores.get(r) ?? 0) >= NAME_ALERT_THRESHOLD);
    figures[label] = pairFigures(ours);
    console.log(`    ours      ${prf(ours)}`);
    console.log(
      `    logic-v2  ${prf(count(withFrozen, (r) => frozen.get(pairKey(r)) === true))}  (frozen run, threshold 0.70; pairs it has)`,
    );
    const strong = rows.filter((r) => r.quality === 'STRONG');
    const strongWrong = strong.filter(
      (r) => (scores.get(r) ?? 0) >= NAME_ALERT_THRESHOLD !== (r.is_match === 'true'),
    );
    console.log(`    STRONG-quality pairs wrong: ${strongWrong.length}/${strong.length}`);
  }
  if (process.env.EVAL_VERBOSE) {
    const dev = cases.filter((r) => side.get(pairKey(r)) === 'dev');
    const sweep = [0.6, 0.65, 0.7, 0.75, 0.8, 0.85]
      .map((t) => {
        const c = count(dev, (r) => (scores.get(r) ?? 0) >= t);
        const f1 = (2 * c.tp) / Math.max(1, 2 * c.tp + c.fp + c.fn);
        return `${t.toFixed(2)}→${f1.toFixed(3)}`;
      })
      .join('  ');
    console.log(`  dev F1 by threshold: ${sweep}`);
    for (const r of dev) {
      const s = scores.get(r) ?? 0;
      const wrong = s >= NAME_ALERT_THRESHOLD !== (r.is_match === 'true');
      if (!wrong) continue;
      const kind = r.is_match === 'true' ? 'FN' : 'FP';
      console.log(`    dev ${kind} ${s.toFixed(3)} ${r.quality || 'MEDIUM'}: ${r.name1} | ${r.name2}`);
    }
  }
  return figures;
}

function pairFigures(c: Confusion): PairFigures['all'] {
  const p = c.tp / Math.max(1, c.tp + c.fp);
  const r = c.tp / Math.max(1, c.tp + c.fn);
  return { p, r, f1: p + r > 0 ? (2 * p * r) / (p + r) : 0, n: c.tp + c.fp + c.fn + c.tn };
}

function unEntityIndex(snapshot: WatchlistSnapshot): Map<string, Set<string>> {
  const byName = new Map<string, Set<string>>();
  // The UN's own records (a UN listing linked with other lists' is one person in `people`).
  for (const p of perListPeople(snapshot)) {
    if (p.list_id !== 'un_sc') continue;
    for (const n of p.names) {
      const key = nameKey(n.name);
      const ids = byName.get(key) ?? new Set<string>();
      ids.add(p.entity_id);
      byName.set(key, ids);
    }
  }
  return byName;
}

function nameKey(name: string): string {
  return tokeniseName(name)
    .map((t) => t.text)
    .sort()
    .join(' ');
}

function countryFromCode(code: string | undefined): string | undefined {
  if (!code) return undefined;
  // The fixtures give ISO 3166 alpha-2 codes in lower case; the subject field takes free text,
  // and codes are recognised when written in capitals.
  return /^[a-z]{2}$/.test(code) ? code.toUpperCase() : code;
}

function unRecall(matcher: Matcher, snapshot: WatchlistSnapshot): void {
  const path = join(evalDir, 'pairs', 'yente-screening-fixtures', 'un_treated_vs_listed_pairs.csv');
  if (!existsSync(path)) {
    console.log(`\n(b) UN recall: skipped (${path} not found; set EVAL_DIR)`);
    return;
  }
  console.log(
    '\n(b) UN persons screened through the full matcher (alert = sanctions match on the right UN entity at ≥ MEDIUM)',
  );
  const rows = readCsv(path);
  const entities = unEntityIndex(snapshot);
  const buckets = new Map<string, { hits: number; total: number; misses: string[] }>();
  let unresolved = 0;
  for (const r of rows) {
    const ids = entities.get(nameKey(r.listed_name));
    if (!ids) {
      unresolved++;
      continue;
    }
    const result = matcher.screen(
      {
        name: r.query_name,
        dob: r.query_dob || undefined,
        nationality: countryFromCode(r.query_nationality),
        location: r.query_pob || undefined,
      },
      ['sanctions'],
    );
    const hit = (result.sanctions_result?.matches ?? []).some(
      (m) =>
        m.listings.some((l) => l.list_id === 'un_sc' && ids.has(l.entity_id)) &&
        riskRank(m.risk_level) >= riskRank('MEDIUM'),
    );
    const bucketNames = [
      r.name_perturbed !== 'true' && r.dob_perturbed !== 'true' ? 'untouched' : undefined,
      r.name_perturbed === 'true' ? 'name-perturbed' : undefined,
      r.dob_perturbed === 'true' ? 'DOB-perturbed' : undefined,
      'all',
    ];
    for (const b of bucketNames) {
      if (!b) continue;
      const bucket = buckets.get(b) ?? { hits: 0, total: 0, misses: [] };
      bucket.total++;
      if (hit) bucket.hits++;
      else bucket.misses.push(`${r.query_name} | ${r.listed_name} | dob ${r.query_dob} vs ${r.listed_dob}`);
      buckets.set(b, bucket);
    }
  }
  for (const [name, b] of buckets)
    console.log(`  ${name.padEnd(15)} recall ${pct(b.hits / b.total)} (${b.hits}/${b.total})`);
  if (unresolved > 0)
    console.log(`  (${unresolved} fixture rows name a UN person not found in the snapshot; not counted)`);
  const misses = buckets.get('all')?.misses ?? [];
  if (process.env.EVAL_VERBOSE) for (const m of misses) console.log(`    miss: ${m}`);
}

function falseAlerts(matcher: Matcher): void {
  const base = join(evalDir, 'pairs', 'yente-screening-fixtures');
  console.log(
    '\n(c) False alerts on innocent people (yente negatives; every 10th row, with nationality and birthplace; with and without the DOB)',
  );
  for (const file of ['negatives_global.csv', 'negatives_us.csv']) {
    const path = join(base, file);
    if (!existsSync(path)) {
      console.log(`  ${file}: skipped (not found; set EVAL_DIR)`);
      continue;
    }
    const rows = readCsv(path).filter((_, i) => i % 10 === 0);
    for (const withDob of [true, false]) {
      let medium = 0;
      let high = 0;
      const bySource = new Map<string, number>();
      const examples: string[] = [];
      for (const r of rows) {
        const result = matcher.screen(
          {
            name: r.full_name,
            dob: withDob ? r.date_of_birth : undefined,
            nationality: r.nationality,
            location: r.place_of_birth,
          },
          ['sanctions', 'pep', 'criminal'],
        );
        const rank = riskRank(result.risk_level);
        if (rank >= riskRank('MEDIUM')) {
          medium++;
          for (const check of [result.sanctions_result, result.pep_result, result.criminal_result]) {
            if (check && riskRank(check.risk_level) >= riskRank('MEDIUM')) {
              const matches =
                'matches' in check ? check.matches : [...check.interpol_hits, ...check.fbi_hits];
              const top = matches[0];
              if (top) bySource.set(top.list_id, (bySource.get(top.list_id) ?? 0) + 1);
              if (top && rank >= riskRank('HIGH') && examples.length < 8) {
                examples.push(
                  `${r.full_name} (${withDob ? r.date_of_birth : 'no DOB'}) → ${top.primary_name} [${top.list_id}] ${top.risk_level} ${top.score}`,
                );
              }
            }
          }
        }
        if (rank >= riskRank('HIGH')) high++;
      }
      const per1000 = (n: number) => ((1000 * n) / rows.length).toFixed(1);
      const label = `${file} ${withDob ? 'with DOB' : 'no DOB'}`;
      console.log(
        `  ${label.padEnd(31)} n=${rows.length}  ≥MEDIUM ${per1000(medium)}/1000  ≥HIGH ${per1000(high)}/1000`,
      );
      console.log(`    ≥MEDIUM by list: ${[...bySource].map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`);
      if (process.env.EVAL_VERBOSE) for (const e of examples) console.log(`    ≥HIGH: ${e}`);
    }
  }
}

function watchmanCrossScript(): void {
  const path = join(evalDir, 'pairs', 'watchman-cross-script', 'cross_script_pairs.csv');
  if (!existsSync(path)) {
    console.log('\nwatchman cross-script pairs: skipped (not found; set EVAL_DIR)');
    return;
  }
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'));
  let hits = 0;
  const misses: string[] = [];
  for (const line of lines) {
    const [query, expected] = line.split(',');
    const s = compareNames(query, expected);
    if (s >= NAME_ALERT_THRESHOLD) hits++;
    else misses.push(`${query}→${expected} ${s.toFixed(2)}`);
  }
  console.log(
    `\nwatchman cross-script pairs: recall ${pct(hits / lines.length)} (${hits}/${lines.length}) at compareNames ≥ ${NAME_ALERT_THRESHOLD}`,
  );
  console.log(`  misses: ${misses.join('; ')}`);
}

function putinVariants(matcher: Matcher): void {
  const path = join(evalDir, 'pairs', 'opensanctions-putin-variants', 'putin_names.txt');
  if (!existsSync(path)) {
    console.log('\nPutin variants: skipped (not found; set EVAL_DIR)');
    return;
  }
  const names = readFileSync(path, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const listed = 'PUTIN, Vladimir Vladimirovich';
  const titleOnly = (n: string) => tokeniseName(n).length === 1 && n.trim().split(/\s+/).length > 1;
  const full = names.filter((n) => !titleOnly(n));
  const titled = names.filter(titleOnly);
  const pairHits = full.filter((n) => compareNames(n, listed) >= NAME_ALERT_THRESHOLD).length;
  const screenHits = full.filter((n) =>
    (matcher.screen({ name: n }, ['sanctions']).sanctions_result?.matches ?? []).some(
      (m) => m.primary_name.toUpperCase().includes('PUTIN') && riskRank(m.risk_level) >= riskRank('MEDIUM'),
    ),
  ).length;
  console.log(
    `\nPutin variants (${names.length} names; ${titled.length} are title + surname only, reported apart)`,
  );
  console.log(
    `  pairwise vs "${listed}": recall ${pct(pairHits / full.length)} (${pairHits}/${full.length})`,
  );
  console.log(
    `  full matcher, sanctions match on Putin at ≥ MEDIUM (no DOB): ${pct(screenHits / full.length)} (${screenHits}/${full.length})`,
  );
  const titledLevels = titled.map((n) => {
    const m = (matcher.screen({ name: n }, ['sanctions']).sanctions_result?.matches ?? []).find((x) =>
      x.primary_name.toUpperCase().includes('PUTIN'),
    );
    return m ? m.risk_level : 'none';
  });
  console.log(
    `  title + surname only: levels ${titledLevels.join(', ')} (expected weak: LOW/MEDIUM, never CRITICAL)`,
  );
  const missed = full.filter((n) => compareNames(n, listed) < NAME_ALERT_THRESHOLD);
  console.log(`  pairwise misses: ${missed.join(' · ')}`);
}

/**
 * EVAL_ONLY=f2,g,i,j runs only the sections named (a, watchman, putin, b, c, d, e, h, f, f2, g, i,
 * j) and writes no scorecard: quick runs while working. Unset, every section runs and
 * docs/scorecard.md is written.
 */
const only = process.env.EVAL_ONLY
  ? new Set(process.env.EVAL_ONLY.split(',').map((x) => x.trim()))
  : undefined;

function section<T>(id: string, run: () => T): T | undefined {
  return only === undefined || only.has(id) ? run() : undefined;
}

function main(): void {
  const pairs = section('a', namePairs);
  section('watchman', watchmanCrossScript);
  const started = performance.now();
  const snapshot = loadSnapshot();
  const matcher = createMatcher(snapshot);
  console.log(
    `\nsnapshot + index ready in ${(performance.now() - started).toFixed(0)} ms (${snapshot.people.length} listed individuals)`,
  );
  section('putin', () => putinVariants(matcher));
  section('b', () => unRecall(matcher, snapshot));
  section('c', () => falseAlerts(matcher));
  section('d', () => classFigures(matcher, snapshot));
  section('e', () => ownNames(matcher, snapshot));
  section('h', () => personLinkingFigures(matcher, snapshot));
  const innocents = section('f', () => measureInnocents(matcher));
  if (innocents) printInnocents(innocents);
  const populationInnocents = section('f2', () =>
    measureInnocents(matcher, { dir: POPULATION_INNOCENTS_DIR, groups: POPULATION_GROUPS }),
  );
  if (populationInnocents)
    printInnocents(
      populationInnocents,
      '(f2) Innocents drawn from population name frequencies (eval/fixtures/population-innocents), alerts per 1,000 screens',
    );
  const variants = section('g', () => measureVariants(matcher, snapshot));
  if (variants) printVariants(variants);
  const tokenClasses = section('i', () => measureTokenClasses(matcher, snapshot));
  if (tokenClasses) printTokenClasses(tokenClasses);
  const crossScript = section('j', () => measureCrossScript(matcher, snapshot));
  if (crossScript) printCrossScript(crossScript);
  if (pairs && variants && innocents && populationInnocents && tokenClasses && crossScript)
    writeScorecard({ snapshot, pairs, variants, innocents, populationInnocents, tokenClasses, crossScript });
  else console.log(`\nEVAL_ONLY=${process.env.EVAL_ONLY}: docs/scorecard.md not written`);
}

/**
 * Each listed person of three sanctions lists screened under its own primary name without a date
 * of birth: what the common-name rule costs the people it holds down (MEDIUM instead of HIGH).
 */
function ownNames(matcher: Matcher, snapshot: WatchlistSnapshot): void {
  console.log('\n(e) Listed people screened under their own primary name, no DOB (level on that person)');
  const listed = perListPeople(snapshot);
  for (const list of ['un_sc', 'ofac_sdn', 'eu_fsf']) {
    const people = listed.filter((p) => p.list_id === list);
    let high = 0;
    let medium = 0;
    for (const p of people) {
      const rank = riskRank(levelOn(matcher, p, p.primary_name));
      if (rank >= riskRank('HIGH')) high++;
      if (rank >= riskRank('MEDIUM')) medium++;
    }
    console.log(
      `  ${list.padEnd(9)} n=${people.length}  ≥HIGH ${pct(high / people.length)}  ≥MEDIUM ${pct(medium / people.length)}`,
    );
  }
}

/** Per class of matching failure (eval/classes.ts): cases built from listed people, per half. */
function classFigures(matcher: Matcher, snapshot: WatchlistSnapshot): void {
  console.log('\n(d) Failure classes, cases generated from listed people (dev / held-out by entity hash)');
  for (const c of issueClasses(snapshot)) {
    const f = measureClass(matcher, c);
    const cell = (h: 'dev' | 'held-out') =>
      `${pct(f[h].n ? f[h].passed / f[h].n : 1)} (${f[h].passed}/${f[h].n})`.padEnd(20);
    const what = c.kind === 'recall' ? `reach ≥${c.level}` : `stay below ${c.level}`;
    console.log(
      `  ${String(c.id).padStart(2)}. ${c.title.padEnd(44)} ${what.padEnd(18)} dev ${cell('dev')} held-out ${cell('held-out')}`,
    );
  }
}

main();
