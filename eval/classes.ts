/**
 * Test cases per class of matching failure, generated from the real listed people of the
 * snapshot (never invented names): each class takes the listed people its rule applies to,
 * rewrites their listed name as a customer would (a clipped given name, the surname alone, the
 * parts run together, a Polish or Czech spelling, heavy typos, a weak alias alone, the given name
 * and patronymic without the surname, a title in front), and checks the level the matcher gives
 * that same listed person.
 *
 * Each person falls in the dev or the held-out half by the SHA-1 of its list and entity id; fixes
 * are tuned on dev only, and held-out figures are printed apart.
 */

import { createHash } from 'node:crypto';
import { type NameToken, tokeniseName } from '../lib/matcher/normalise.ts';
import type { Matcher } from '../lib/matcher/screen.ts';
import { createMatcher } from '../lib/matcher/screen.ts';
import { isPatronymic } from '../lib/matcher/token-similarity.ts';
import { type Match, type RiskLevel, riskRank } from '../lib/matcher/types.ts';
import { perListPeople } from '../lib/watchlists/linking.ts';
import { parseOfacRemarks } from '../lib/watchlists/ofac-sdn.ts';
import type { ListedPerson, WatchlistSnapshot } from '../lib/watchlists/types.ts';
import { CHECK_TYPES } from '../lib/watchlists/types.ts';

export type Half = 'dev' | 'held-out';

export interface ClassCase {
  person: ListedPerson;
  name: string;
  dob?: string;
  half: Half;
}

export interface IssueClass {
  id: number;
  title: string;
  /** recall: the listed person must reach `level`; false-alert: it must stay below `level`. */
  kind: 'recall' | 'false-alert';
  level: RiskLevel;
  cases: ClassCase[];
  /**
   * The matcher this class is measured with instead of the one given to `measureClass` (class 4:
   * the lists without their Han, kana and Indic names, so a case is found through a Latin name).
   */
  matcher?: () => Matcher;
}

/** Cases per class at most (the first ones in a fixed order). */
const CASES_PER_CLASS = 400;

export function halfOf(person: ListedPerson): Half {
  const hex = createHash('sha1').update(`${person.list_id}|${person.entity_id}`).digest('hex');
  return Number.parseInt(hex.slice(0, 8), 16) % 2 === 0 ? 'dev' : 'held-out';
}

/** The level the matcher gives this listed person for `subject` (CLEAR when not matched). */
export function levelOn(matcher: Matcher, person: ListedPerson, name: string, dob?: string): RiskLevel {
  return matchOn(matcher, person, name, dob)?.risk_level ?? 'CLEAR';
}

/**
 * The match on one listing for a screen of `name` through every check, whether the listing is
 * the match's first or linked into it; undefined when the screen does not report it.
 */
export function matchOn(
  matcher: Matcher,
  listing: Pick<ListedPerson, 'list_id' | 'entity_id'>,
  name: string,
  dob?: string,
): Match | undefined {
  const checks = matcher.screen({ name, dob }, CHECK_TYPES);
  const matches: Match[] = [];
  for (const r of [checks.sanctions_result, checks.pep_result]) if (r) matches.push(...r.matches);
  if (checks.criminal_result)
    matches.push(...checks.criminal_result.interpol_hits, ...checks.criminal_result.fbi_hits);
  return matches.find((m) =>
    m.listings.some((l) => l.list_id === listing.list_id && l.entity_id === listing.entity_id),
  );
}

/** Number of listed people whose names contain each token. */
function documentFrequency(people: readonly ListedPerson[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const p of people) {
    const seen = new Set<string>();
    for (const n of p.names) for (const t of tokeniseName(n.name)) seen.add(t.text);
    for (const t of seen) df.set(t, (df.get(t) ?? 0) + 1);
  }
  return df;
}

const LATIN_RE = /^[\p{Script=Latin}\p{P}\p{Z}]+$/u;

/** Plain name parts (no particle, no initial) of a Latin-script primary name. */
function plainParts(person: ListedPerson): NameToken[] | undefined {
  if (!LATIN_RE.test(person.primary_name)) return undefined;
  const tokens = tokeniseName(person.primary_name);
  if (tokens.some((t) => t.particle || t.initial)) return undefined;
  return tokens;
}

/** The person's first full listed date of birth. */
export function fullDob(person: ListedPerson): string | undefined {
  for (const d of person.dobs) if (d.kind === 'date') return d.date;
  return undefined;
}

/** Customer respellings of Slavic and Anglo names in other Latin alphabets. */
const RESPELLINGS: readonly (readonly [RegExp, string])[][] = [
  // Polish
  [
    [/sh/g, 'sz'],
    [/ch/g, 'cz'],
    [/kh/g, 'ch'],
    [/v/g, 'w'],
    [/y/g, 'j'],
  ],
  // Czech / Slovak
  [
    [/sh/g, 'š'],
    [/ch/g, 'č'],
    [/zh/g, 'ž'],
    [/kh/g, 'ch'],
    [/y/g, 'j'],
  ],
  // Latvian / Lithuanian
  [
    [/sh/g, 'š'],
    [/ch/g, 'č'],
    [/zh/g, 'ž'],
    [/kh/g, 'h'],
    [/y/g, 'j'],
  ],
  // Turkish
  [
    [/sh/g, 'ş'],
    [/ch/g, 'ç'],
    [/zh/g, 'j'],
    [/kh/g, 'h'],
  ],
];

/** Substitutes the letter at `at` with the next letter of the alphabet (a typo, deterministic). */
function typo(text: string, at: number): string {
  const c = text.charCodeAt(at);
  const next = c === 122 ? 'a' : String.fromCharCode(c + 1);
  return text.slice(0, at) + next + text.slice(at + 1);
}

/** Han, kana and the Indic scripts the romanisers read (class 4). */
const CLASS_4_SCRIPT_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u0900-\u0d7f]/u;

/**
 * The snapshot with every Han, kana and Indic-script name removed, so a name written in those
 * scripts can only find its listed person through the Latin names the lists give beside it.
 */
function withoutClass4ScriptNames(snapshot: WatchlistSnapshot): WatchlistSnapshot {
  return {
    ...snapshot,
    people: snapshot.people.map((p) =>
      p.names.some((n) => CLASS_4_SCRIPT_RE.test(n.name))
        ? { ...p, names: p.names.filter((n) => !CLASS_4_SCRIPT_RE.test(n.name)) }
        : p,
    ),
  };
}

export function issueClasses(snapshot: WatchlistSnapshot): IssueClass[] {
  // Cases come from each list's own records (a person on several lists is several records, as
  // the lists publish them), so the classes do not depend on how listings are linked.
  const listed = perListPeople(snapshot);
  const df = documentFrequency(listed);
  // Rare: on one listed person only; common: on twenty or more.
  const rare = (t: NameToken) => (df.get(t.text) ?? 0) <= 1 && t.text.length >= 5 && !isPatronymic(t);
  const common = (t: NameToken) => (df.get(t.text) ?? 0) >= 20;
  const classes: IssueClass[] = [
    { id: 1, title: 'clipped given name + rare surname + DOB', kind: 'recall', level: 'MEDIUM', cases: [] },
    { id: 2, title: 'rare surname alone', kind: 'recall', level: 'MEDIUM', cases: [] },
    { id: 3, title: 'name parts run together', kind: 'recall', level: 'MEDIUM', cases: [] },
    {
      id: 4,
      title: 'Han / kana / Indic script, Latin names only',
      kind: 'recall',
      level: 'LOW',
      cases: [],
      matcher: memo(() => createMatcher(withoutClass4ScriptNames(snapshot))),
    },
    { id: 5, title: 'Polish/Czech/Baltic/Turkish spelling', kind: 'recall', level: 'MEDIUM', cases: [] },
    { id: 6, title: 'three typos across two parts + DOB', kind: 'recall', level: 'MEDIUM', cases: [] },
    { id: 7, title: 'OFAC weak alias alone', kind: 'false-alert', level: 'HIGH', cases: [] },
    { id: 8, title: 'common two-part alias', kind: 'false-alert', level: 'HIGH', cases: [] },
    { id: 9, title: 'given name + patronymic, no surname', kind: 'false-alert', level: 'HIGH', cases: [] },
    { id: 10, title: 'title + common surname alone', kind: 'false-alert', level: 'MEDIUM', cases: [] },
  ];
  const byId = new Map(classes.map((c) => [c.id, c]));
  const add = (id: number, person: ListedPerson, name: string, dob?: string) => {
    const c = byId.get(id) as IssueClass;
    if (c.cases.length < CASES_PER_CLASS) c.cases.push({ person, name, dob, half: halfOf(person) });
  };
  for (const person of listed) {
    const parts = plainParts(person);
    const dob = fullDob(person);
    if (parts && parts.length >= 2 && parts.length <= 3) {
      const given = parts[0];
      const surname = parts[parts.length - 1];
      if (rare(surname) && given.text.length >= 5 && dob)
        add(1, person, `${given.text.slice(0, 3)} ${surname.text}`, dob);
      if (rare(surname) && surname.text.length >= 6) add(2, person, surname.text);
      if (parts.every((t) => t.text.length >= 3)) add(3, person, parts.map((t) => t.text).join(''));
      const full = parts.map((t) => t.text).join(' ');
      const style = RESPELLINGS[(person.entity_id.length + full.length) % RESPELLINGS.length];
      let respelt = full;
      for (const [from, to] of style) respelt = respelt.replace(from, to);
      if (respelt !== full) add(5, person, respelt);
      if (parts.length === 2 && dob && parts.every((t) => t.text.length >= 6)) {
        const s = surname.text;
        add(6, person, `${typo(given.text, 2)} ${typo(typo(s, 2), s.length - 2)}`, dob);
      }
      if (parts.length === 3 && isPatronymic(parts[1]) && !isPatronymic(surname))
        add(9, person, `${given.text} ${parts[1].text}`);
      if (common(surname) && !common(given)) add(10, person, `Dr ${surname.text}`);
    }
    if (person.list_id === 'ofac_sdn' && person.remarks) {
      for (const alias of parseOfacRemarks(person.remarks).aliases) add(7, person, alias.name);
    }
    // The person's own name in Han, kana or an Indic script, as the list prints it beside the
    // Latin names (UN "original script", EU and UK non-Latin names): screened without the DOB.
    if (person.names.some((n) => !CLASS_4_SCRIPT_RE.test(n.name) && LATIN_RE.test(n.name))) {
      for (const n of person.names) {
        // "Jin Tiesan (金铁三)": only the Han part is the case; the Latin part is another name.
        const written = n.name.replace(/[\p{Script=Latin}()]/gu, '').trim();
        if (CLASS_4_SCRIPT_RE.test(written)) add(4, person, written);
      }
    }
    for (const n of person.names.slice(1)) {
      const t = tokeniseName(n.name);
      if (t.length === 2 && t.every((x) => !x.particle && !x.initial && common(x))) add(8, person, n.name);
    }
  }
  return classes;
}

function memo<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

export interface ClassFigures {
  n: number;
  /** Cases that pass: reach the level (recall) or stay below it (false-alert). */
  passed: number;
}

/**
 * Figures per half for one class; only the `halves` given are screened (the tests measure the dev
 * half alone), the other's figures stay at zero.
 */
export function measureClass(
  matcher: Matcher,
  c: IssueClass,
  halves: readonly Half[] = ['dev', 'held-out'],
): Record<Half, ClassFigures> {
  const out: Record<Half, ClassFigures> = { dev: { n: 0, passed: 0 }, 'held-out': { n: 0, passed: 0 } };
  const screening = c.matcher?.() ?? matcher;
  for (const k of c.cases) {
    if (!halves.includes(k.half)) continue;
    const level = levelOn(screening, k.person, k.name, k.dob);
    const reached = riskRank(level) >= riskRank(c.level);
    out[k.half].n++;
    if (c.kind === 'recall' ? reached : !reached) out[k.half].passed++;
  }
  return out;
}
