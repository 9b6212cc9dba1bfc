/**
 * Cross-script renderings of listed Latin-script people (issue 37, item 3): each person's primary
 * name, in reading order, rendered into Greek, Cyrillic (Russian, Ukrainian, Bulgarian,
 * Macedonian), Hebrew, Arabic, Persian, Armenian and Georgian, and respelt the Latvian and
 * Lithuanian way (eval/renderings.ts), and screened by name only. A hit is the person's own
 * listing at ≥ MEDIUM.
 *
 * The people: current US Congress members (a PEP in office is MEDIUM on a partial name match)
 * and listed people of the sanctions lists whose primary name is Latin-script, two to four plain
 * parts of three letters or more, in the order of the SHA-1 of list and entity id; halves as
 * eval/classes.ts (`halfOf`).
 *
 * The per-script false-alert control: the English-origin innocents of the population set
 * (eval/generate-population-innocents.ts, held-out half), rendered the same way, screened by name
 * only; an alert is a screen at ≥ MEDIUM.
 */

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { tokeniseName } from '../lib/matcher/normalise.ts';
import type { Matcher } from '../lib/matcher/screen.ts';
import { riskRank } from '../lib/matcher/types.ts';
import { perListPeople } from '../lib/watchlists/linking.ts';
import type { ListedPerson, WatchlistSnapshot } from '../lib/watchlists/types.ts';
import { CHECK_TYPES } from '../lib/watchlists/types.ts';
import { type Half, halfOf, levelOn } from './classes.ts';
import { POPULATION_INNOCENTS_DIR } from './generate-population-innocents.ts';
import { RENDER_SCRIPTS, type RenderScript, renderName } from './renderings.ts';
import { readingOrderWords } from './variants.ts';

/** Listed people per source: current Congress members, and sanctions-listed people. */
const PER_SOURCE = 60;
/** Innocents of the control, rendered into each script. */
const CONTROL_PEOPLE = 300;
const PLAIN_LATIN_RE = /^[A-Za-z' ,.-]+$/;
const SANCTIONS_LISTS = new Set(['ofac_sdn', 'eu_fsf', 'uk_fcdo', 'un_sc', 'au_dfat', 'ca_sema']);

export interface CrossScriptFigures {
  /** script → half → cases, and those at ≥ MEDIUM on the person's own listing. */
  recall: Map<RenderScript, Record<Half, { n: number; hits: number }>>;
  all: Record<Half, { n: number; hits: number }>;
  /** script → innocents screened, and those at ≥ MEDIUM. */
  control: Map<RenderScript, { n: number; alerts: number }>;
  people: number;
}

function sha(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** The words of a plain Latin-script name (2..4 parts of 3+ letters), or undefined. */
function plainWords(person: ListedPerson): string[] | undefined {
  if (!PLAIN_LATIN_RE.test(person.primary_name)) return undefined;
  const words = readingOrderWords(person.primary_name).map((w) => w.replace(/[.,]/g, ''));
  if (words.length < 2 || words.length > 4) return undefined;
  const tokens = tokeniseName(words.join(' '));
  if (tokens.length !== words.length || tokens.some((t) => t.particle || t.initial || t.text.length < 3))
    return undefined;
  return words;
}

/** The people rendered: per source, the first PER_SOURCE by hash. */
export function crossScriptPeople(snapshot: WatchlistSnapshot): { person: ListedPerson; words: string[] }[] {
  const listed = perListPeople(snapshot);
  const pick = (keep: (p: ListedPerson) => boolean) =>
    listed
      .filter(keep)
      .map((p) => ({ person: p, words: plainWords(p), key: sha(`${p.list_id}|${p.entity_id}`) }))
      .filter((x): x is { person: ListedPerson; words: string[]; key: string } => x.words !== undefined)
      .sort((a, b) => (a.key < b.key ? -1 : 1))
      .slice(0, PER_SOURCE);
  return [
    ...pick((p) => p.list_id === 'us_congress_pep' && p.pep?.current === true),
    ...pick((p) => SANCTIONS_LISTS.has(p.list_id)),
  ];
}

export function measureCrossScript(matcher: Matcher, snapshot: WatchlistSnapshot): CrossScriptFigures {
  const people = crossScriptPeople(snapshot);
  const cells = () => ({ dev: { n: 0, hits: 0 }, 'held-out': { n: 0, hits: 0 } });
  const recall = new Map<RenderScript, Record<Half, { n: number; hits: number }>>();
  const all = cells();
  const verbose: string[] = [];
  for (const script of RENDER_SCRIPTS) {
    const cell = cells();
    recall.set(script, cell);
    for (const { person, words } of people) {
      const half = halfOf(person);
      const name = renderName(words, script, person.list_id === 'us_congress_pep');
      const level = levelOn(matcher, person, name);
      const hit = riskRank(level) >= riskRank('MEDIUM');
      for (const c of [cell[half], all[half]]) {
        c.n++;
        if (hit) c.hits++;
      }
      if (!hit && half === 'dev' && process.env.EVAL_VERBOSE)
        verbose.push(
          `    dev miss ${script}: ${name} for ${person.primary_name} [${person.list_id}] ${level}`,
        );
    }
  }
  for (const v of verbose) console.log(v);
  const innocents = (
    parse(readFileSync(join(POPULATION_INNOCENTS_DIR, 'held-out.csv')), { columns: true }) as {
      group: string;
      name: string;
    }[]
  )
    .filter((r) => r.group === 'english')
    .slice(0, CONTROL_PEOPLE);
  const control = new Map<RenderScript, { n: number; alerts: number }>();
  for (const script of RENDER_SCRIPTS) {
    const c = { n: 0, alerts: 0 };
    for (const r of innocents) {
      const result = matcher.screen({ name: renderName(r.name.split(' '), script, true) }, CHECK_TYPES);
      c.n++;
      if (riskRank(result.risk_level) >= riskRank('MEDIUM')) c.alerts++;
    }
    control.set(script, c);
  }
  return { recall, all, control, people: people.length };
}

function pct(hits: number, n: number): string {
  return n === 0 ? '–' : `${((100 * hits) / n).toFixed(1)}%`;
}

/** Prints the figures (section j of `npm run eval`). */
export function printCrossScript(f: CrossScriptFigures): void {
  console.log(
    `\n(j) Cross-script renderings of ${f.people} listed Latin-script people, name only, own listing at ≥ MEDIUM; control: English-origin innocents rendered alike, ≥ MEDIUM per 1,000`,
  );
  for (const [script, c] of f.recall) {
    const control = f.control.get(script);
    console.log(
      `  ${script.padEnd(11)} dev ${pct(c.dev.hits, c.dev.n).padStart(6)} (${c.dev.hits}/${c.dev.n})  held-out ${pct(c['held-out'].hits, c['held-out'].n).padStart(6)} (${c['held-out'].hits}/${c['held-out'].n})  control ${control ? ((1000 * control.alerts) / control.n).toFixed(1) : '–'}/1000`,
    );
  }
  console.log(
    `  ${'all'.padEnd(11)} dev ${pct(f.all.dev.hits, f.all.dev.n).padStart(6)} (${f.all.dev.hits}/${f.all.dev.n})  held-out ${pct(f.all['held-out'].hits, f.all['held-out'].n).padStart(6)} (${f.all['held-out'].hits}/${f.all['held-out'].n})`,
  );
}
