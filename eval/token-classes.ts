/**
 * The token classes of issue 22 (item 4): matcher errors that come from how one name part is read
 * or paired. Each class's cases are made from the real listed people of the snapshot, rewritten as
 * a customer would write the name (the recall classes), or as an innocent person's name built from
 * listed name parts recombined (the false-alert classes); each case names the listed person and
 * the level the matcher must give that person: at least `level` (recall) or below it (false-alert).
 * A recall case with `sameAs` must reach the level the name spelt `sameAs` reaches (a spelling
 * that is the same letter must not cost a level).
 *
 * People fall in the dev or held-out half by `halfOf` (eval/classes.ts); rules are tuned on dev
 * only, and EVAL_VERBOSE prints dev failures only.
 */

import { createHash } from 'node:crypto';
import { type NameToken, nameWords, tokeniseName } from '../lib/matcher/normalise.ts';
import type { Matcher } from '../lib/matcher/screen.ts';
import { editDistance } from '../lib/matcher/string-similarity.ts';
import { type RiskLevel, riskRank } from '../lib/matcher/types.ts';
import { perListPeople } from '../lib/watchlists/linking.ts';
import type { ListedPerson, WatchlistSnapshot } from '../lib/watchlists/types.ts';
import { type ClassFigures, fullDob, type Half, halfOf, levelOn } from './classes.ts';
import { readingOrderWords } from './variants.ts';

export interface TokenCase {
  person: ListedPerson;
  name: string;
  dob?: string;
  half: Half;
  /** The level to reach (recall) or stay below (false-alert); absent with `sameAs`. */
  level?: RiskLevel;
  /** Recall: reach at least the level the person gets under this name (its listed spelling). */
  sameAs?: string;
}

export interface TokenClass {
  id: string;
  title: string;
  kind: 'recall' | 'false-alert';
  /** The target in words, for the printout and the scorecard. */
  target: string;
  cases: TokenCase[];
}

/** Cases per class at most: the first ones by the SHA-1 of list, entity and query. */
const CASES_PER_CLASS = 400;

const LATIN_RE = /^[\p{Script=Latin}\p{P}\p{Z}]+$/u;

function sha(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** Plain parts of a name: no particle, no initial. */
function plain(tokens: readonly NameToken[]): NameToken[] {
  return tokens.filter((t) => !t.particle && !t.initial);
}

/** Listed name parts borne by at least `min` listed people, by first letter (real names to recombine). */
function namePartsByLetter(people: readonly ListedPerson[], min: number): Map<string, string[]> {
  const bearers = new Map<string, number>();
  for (const p of people) {
    if (!LATIN_RE.test(p.primary_name)) continue;
    for (const t of new Set(plain(tokeniseName(p.primary_name)).map((x) => x.text)))
      bearers.set(t, (bearers.get(t) ?? 0) + 1);
  }
  const byLetter = new Map<string, string[]>();
  for (const [t, n] of [...bearers].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (n < min || t.length < 4 || !/^[a-z]+$/.test(t)) continue;
    const list = byLetter.get(t[0]) ?? [];
    list.push(t);
    byLetter.set(t[0], list);
  }
  return byLetter;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The letter at `at` moved one place on in the alphabet (a one-letter typo, deterministic). */
function typoAt(text: string, at: number): string {
  const c = text[at];
  const next = /[a-yA-Y]/.test(c) ? String.fromCharCode(c.charCodeAt(0) + 1) : c === 'z' ? 'a' : 'b';
  return text.slice(0, at) + next + text.slice(at + 1);
}

/** German umlauts as German writes them without the dots (ä → ae, ö → oe, ü → ue). */
const UMLAUTS: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', Ä: 'AE', Ö: 'OE', Ü: 'UE' };
const UMLAUT_RE = /[äöüÄÖÜ]/g;

/** The particles a customer runs together with the next part ("ELHEIT" for "EL HEIT"). */
const JOINABLE_PARTICLE_RE =
  /(^|[\s,])(al|el|ul|ad|ar|as|ash|at|az|bin|ibn|ben|de|del|da|van|von)[\s-]+(?=\p{L})/iu;

export function tokenClasses(snapshot: WatchlistSnapshot): TokenClass[] {
  const listed = perListPeople(snapshot);
  const historical = new Set(snapshot.lists.filter((l) => l.historical).map((l) => l.id));
  const people = listed.filter((p) => !historical.has(p.list_id));
  const surnamesByLetter = namePartsByLetter(people, 2);
  const classes: TokenClass[] = [
    {
      id: 'initial',
      title: 'whole surname taken for a listed initial',
      kind: 'false-alert',
      target: 'below MEDIUM',
      cases: [],
    },
    {
      id: 'reversed',
      title: 'reversed two-part name, one part a near name',
      kind: 'false-alert',
      target: 'below HIGH',
      cases: [],
    },
    {
      id: 'abdu',
      title: 'Abdu / Abdou as a given name',
      kind: 'false-alert',
      target: 'below HIGH',
      cases: [],
    },
    {
      id: 'aw',
      title: 'Somali particle Aw after Abdi',
      kind: 'false-alert',
      target: 'below MEDIUM',
      cases: [],
    },
    {
      id: 'repeated',
      title: 'repeated name part, one-letter change',
      kind: 'recall',
      target: '≥ MEDIUM',
      cases: [],
    },
    {
      id: 'umlaut',
      title: 'German ä/ö/ü written ae/oe/ue',
      kind: 'recall',
      target: 'as listed',
      cases: [],
    },
    {
      id: 'ofac-middle',
      title: 'OFAC name, middle dropped',
      kind: 'recall',
      target: '≥ MEDIUM',
      cases: [],
    },
    {
      id: 'ofac-particle',
      title: 'OFAC name, particle run together',
      kind: 'recall',
      target: '≥ MEDIUM',
      cases: [],
    },
  ];
  const candidates = new Map<string, [string, TokenCase][]>(classes.map((c) => [c.id, []]));
  const seen = new Set<string>();
  const add = (id: string, c: Omit<TokenCase, 'half'>) => {
    const key = `${id}|${c.person.list_id}|${c.person.entity_id}|${c.name}`;
    if (seen.has(key)) return;
    seen.add(key);
    candidates.get(id)?.push([sha(key), { ...c, half: halfOf(c.person) }]);
  };

  for (const person of people) {
    const dob = fullDob(person);
    const names = person.names.filter((n) => n.strength !== 'weak' && LATIN_RE.test(n.name));
    const own = new Set(names.flatMap((n) => tokeniseName(n.name).map((t) => t.text)));
    for (const n of names) {
      const tokens = tokeniseName(n.name);
      const parts = plain(tokens);
      // Given name, middle initial, surname: the given name with another listed surname that
      // starts with the initial's letter ("Elise Marchand" for "Elise M. Stefanik").
      const bare = tokens.filter((t) => !t.particle);
      if (
        bare.length === 3 &&
        bare[1].initial &&
        !bare[0].initial &&
        !bare[2].initial &&
        bare[0].text.length >= 3
      ) {
        const pool = surnamesByLetter.get(bare[1].text) ?? [];
        const pick = pool.filter((s) => !own.has(s) && editDistance(s, bare[2].text, 3) > 2);
        if (pick.length > 0) {
          const surname = pick[Number.parseInt(sha(person.entity_id).slice(0, 8), 16) % pick.length];
          add('initial', {
            person,
            name: `${capitalised(bare[0].text)} ${capitalised(surname)}`,
            level: 'MEDIUM',
          });
        }
      }
      // An "Abd al-X" name alone, written as the given name Abdu or Abdou and X.
      if (tokens.length === 1 && /^abdul[a-z]{3,}$/.test(tokens[0].text) && nameWords(n.name).length >= 2) {
        const stem = tokens[0].text.slice(5);
        const given = sha(n.name).charCodeAt(0) % 2 === 0 ? 'Abdu' : 'Abdou';
        add('abdu', { person, name: `${given} ${capitalised(stem)}`, level: 'HIGH' });
      }
      // An innocent Somali name: "Abdi Aw" and the other parts of a listed "Abdul…" name.
      const abd = parts.findIndex((t) => t.text.startsWith('abdul'));
      if (abd >= 0 && parts.length === 2) {
        const rest = parts.filter((_, k) => k !== abd).map((t) => capitalised(t.text));
        add('aw', { person, name: `Abdi Aw ${rest.join(' ')}`, level: 'MEDIUM' });
      }
    }

    const primary = person.primary_name;
    if (!LATIN_RE.test(primary)) continue;
    const tokens = tokeniseName(primary);
    const parts = plain(tokens);
    const ws = readingOrderWords(primary);
    // Two plain parts, reversed, one of them replaced by a near name another listed person bears
    // ("Lucas Franco" for "Frank Lucas").
    if (parts.length === 2 && parts.every((t) => t.text.length >= 4)) {
      const which = Number.parseInt(sha(`${person.list_id}|${person.entity_id}`).slice(8, 10), 16) % 2;
      const near = nearName(parts[which], surnamesByLetter, own);
      if (near) {
        const out = parts.map((t) => capitalised(t.text));
        out[which] = capitalised(near);
        add('reversed', { person, name: `${out[1]} ${out[0]}`, level: 'HIGH' });
      }
    }
    // A part repeated ("GOMEZ GOMEZ, Viviana"): one occurrence with a one-letter change.
    const lower = ws.map((w) => w.toLowerCase());
    const repeated = lower.findIndex((w, k) => w.length >= 4 && lower.indexOf(w) !== k);
    if (repeated >= 0) {
      const first = lower.indexOf(lower[repeated]);
      const at = sha(primary).charCodeAt(1) % 2 === 0 ? first : repeated;
      const w = ws[at];
      const changed = ws.map((x, k) => (k === at ? typoAt(w, Math.floor(w.length / 2)) : x));
      add('repeated', { person, name: changed.join(' '), dob, level: 'MEDIUM' });
    }
    // German umlauts written without the dots, no DOB: the level the listed spelling gets.
    if (UMLAUT_RE.test(primary)) {
      const spelt = ws.join(' ');
      add('umlaut', { person, name: spelt.replace(UMLAUT_RE, (c) => UMLAUTS[c]), sameAs: spelt });
    }
    if (person.list_id === 'ofac_sdn') {
      if (ws.length >= 3)
        add('ofac-middle', { person, name: `${ws[0]} ${ws[ws.length - 1]}`, level: 'MEDIUM' });
      const joined = ws
        .join(' ')
        .replace(JOINABLE_PARTICLE_RE, (_, before: string, p: string) => `${before}${p}`);
      if (joined !== ws.join(' ') && parts.length >= 2)
        add('ofac-particle', { person, name: joined, level: 'MEDIUM' });
    }
  }
  for (const c of classes) {
    const all = candidates.get(c.id) ?? [];
    c.cases = all
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .slice(0, CASES_PER_CLASS)
      .map(([, k]) => k);
  }
  return classes;
}

/**
 * A listed name part a typo away from `part` but another name (not a spelling of it: no shared
 * variant key), the first in alphabetical order; undefined when none.
 */
function nearName(part: NameToken, byLetter: Map<string, string[]>, own: Set<string>): string | undefined {
  const budget = part.text.length <= 4 ? 1 : 2;
  for (const candidate of byLetter.get(part.text[0]) ?? []) {
    if (own.has(candidate) || Math.abs(candidate.length - part.text.length) > budget) continue;
    if (editDistance(candidate, part.text, budget + 1) > budget) continue;
    const token = tokeniseName(candidate)[0];
    if (token === undefined || token.variantKeys.some((k) => part.variantKeys.includes(k))) continue;
    return candidate;
  }
  return undefined;
}

/** Whether a case passes on `matcher`. */
export function passes(matcher: Matcher, kind: TokenClass['kind'], c: TokenCase): boolean {
  const rank = riskRank(levelOn(matcher, c.person, c.name, c.dob));
  const target =
    c.sameAs !== undefined ? levelOn(matcher, c.person, c.sameAs, c.dob) : (c.level as RiskLevel);
  return kind === 'recall' ? rank >= riskRank(target) : rank < riskRank(target);
}

export type TokenClassFigures = { tokenClass: TokenClass; figures: Record<Half, ClassFigures> }[];

/** Figures per class and half; with EVAL_VERBOSE, prints the dev half's failures (never held-out's). */
export function measureTokenClasses(matcher: Matcher, snapshot: WatchlistSnapshot): TokenClassFigures {
  const out: TokenClassFigures = [];
  for (const c of tokenClasses(snapshot)) {
    const figures: Record<Half, ClassFigures> = { dev: { n: 0, passed: 0 }, 'held-out': { n: 0, passed: 0 } };
    for (const k of c.cases) {
      const ok = passes(matcher, c.kind, k);
      figures[k.half].n++;
      if (ok) figures[k.half].passed++;
      else if (k.half === 'dev' && process.env.EVAL_VERBOSE)
        console.log(
          `    dev ${c.id} fails: ${k.name}${k.dob ? ` (${k.dob})` : ''} → ${levelOn(matcher, k.person, k.name, k.dob)} on ${k.person.primary_name} [${k.person.list_id} ${k.person.entity_id}]`,
        );
    }
    out.push({ tokenClass: c, figures });
  }
  return out;
}

function pct(k: number, n: number): string {
  return n === 0 ? '–' : `${((100 * k) / n).toFixed(1)}%`;
}

/** Prints the figures (section (i) of `npm run eval`). */
export function printTokenClasses(figures: TokenClassFigures): void {
  console.log(
    '\n(i) Token classes (issue 22 item 4), cases from listed people (dev / held-out by entity hash)',
  );
  for (const { tokenClass: c, figures: f } of figures) {
    const cell = (h: Half) => `${pct(f[h].passed, f[h].n)} (${f[h].passed}/${f[h].n})`.padEnd(20);
    console.log(
      `  ${c.id.padEnd(14)} ${c.title.padEnd(46)} ${c.kind.padEnd(11)} ${c.target.padEnd(12)} dev ${cell('dev')} held-out ${cell('held-out')}`,
    );
  }
}
