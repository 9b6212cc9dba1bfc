/**
 * Innocent people drawn from real name frequencies (`npm run eval:population`): for each origin
 * group, names drawn part by part with the probability of their population share, written to
 * eval/fixtures/population-innocents/{dev,held-out}.csv (group, name, dob). `npm run eval`
 * screens them (eval/innocents.ts, section f2) and the scorecard reports them.
 *
 * Read from `../shared/data/names/` (or NAMES_DIR): `name-frequencies.tsv.gz` for surnames and
 * the given names it has, and the GFDL given-name classes (`given-name-classes.gfdl.tsv.gz`) for
 * the origins it alone covers (Arabic/Persian, South Asian, Chinese, Vietnamese). The GFDL file is
 * used here, in the evaluation, and never shipped with the product.
 *
 * | group | surnames | given names | naming custom |
 * |---|---|---|---|
 * | english | US census, GB | US SSA births, GB births | given [middle 1 in 4] surname |
 * | french | FR | INSEE births | given surname |
 * | german | DE | Köln births | given surname |
 * | portuguese-brazilian | BR, PT | IBGE census | given [second given 1 in 3] [mother's surname 1 in 2] surname |
 * | spanish | INE | INE | given [second given 1 in 4] surname surname |
 * | vietnamese | VN | GFDL VN | surname, middle (Văn, Thị or a name), given; 1 in 5 a two-syllable name |
 * | russian-latin | RU | EGRUL register (read into Latin by any-ascii) | given [patronymic 1 in 2] surname |
 * | russian-cyrillic | RU (written in Cyrillic, eval/renderings.ts) | EGRUL register | as above |
 * | south-asian | IN, PK, BD | GFDL India/Sri Lanka | given [middle 1 in 4] surname |
 * | arabic-origin | EG, MA, DZ, SA, IQ, SY, LB, JO, TN | GFDL Arabia/Persia | given [father's given 1 in 2] surname |
 * | chinese | CN, TW | GFDL CN (two syllables written as one) | surname given |
 *
 * Seeded (a re-run writes the same files; each half has its own seed, `SEEDS`). People, not distinct names: a common name comes up
 * as often as it is borne. Each name goes to dev or held-out by the SHA-1
 * of group + name, so the halves never share a name; the held-out half is never tuned on.
 */

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import anyAscii from 'any-ascii';
import { renderWord } from './renderings.ts';

export const POPULATION_GROUPS = [
  'english',
  'french',
  'german',
  'portuguese-brazilian',
  'spanish',
  'vietnamese',
  'russian-latin',
  'russian-cyrillic',
  'south-asian',
  'arabic-origin',
  'chinese',
] as const;
export type PopulationGroup = (typeof POPULATION_GROUPS)[number];

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const POPULATION_INNOCENTS_DIR = join(repoRoot, 'eval', 'fixtures', 'population-innocents');
const namesDir = process.env.NAMES_DIR
  ? resolve(process.env.NAMES_DIR)
  : resolve(repoRoot, '..', 'shared', 'data', 'names');

/** People per group in each half. */
const PER_HALF = 1000;

/** mulberry32: a small seeded generator, so the files are the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Names with cumulative weights, drawn by frequency. */
class Urn {
  private readonly names: string[] = [];
  private readonly cumulative: number[] = [];
  private total = 0;
  add(name: string, weight: number): void {
    this.total += weight;
    this.names.push(name);
    this.cumulative.push(this.total);
  }
  get size(): number {
    return this.names.length;
  }
  draw(random: () => number): string {
    const x = random() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return this.names[lo];
  }
}

function readTsv(file: string): string[][] {
  return gunzipSync(readFileSync(join(namesDir, file)))
    .toString('utf8')
    .split('\n')
    .slice(1)
    .filter((l) => l !== '')
    .map((l) => l.split('\t'));
}

function titleCase(name: string): string {
  return name.toLowerCase().replace(/(^|[\s-])(\p{L})/gu, (_, sep, c) => sep + c.toUpperCase());
}

interface Urns {
  surnames: Urn;
  given: Urn;
}

function urnsOf(
  rows: string[][],
  gfdl: string[][],
  surnameCountries: readonly string[],
  givenCountries: readonly string[],
  gfdlRegions: readonly string[] = [],
): Urns {
  const surnames = new Urn();
  const given = new Urn();
  for (const [name, kind, country, pm] of rows) {
    if (kind === 'surname' && surnameCountries.includes(country)) surnames.add(name, Number(pm));
    if (kind === 'given' && givenCountries.includes(country)) given.add(name, Number(pm));
  }
  for (const [name, region, , pm] of gfdl) if (gfdlRegions.includes(region)) given.add(name, Number(pm));
  return { surnames, given };
}

const VIETNAMESE_MIDDLE_MALE = 'Văn';
const VIETNAMESE_MIDDLE_FEMALE = 'Thị';

/** A Russian patronymic from a man's given name (Cyrillic): Иван → Иванович / Ивановна. */
function patronymic(father: string, female: boolean): string {
  const f = father.toLowerCase();
  if (/[йь]$/.test(f)) return titleCase(`${f.slice(0, -1)}${female ? 'евна' : 'евич'}`);
  if (/[ая]$/.test(f)) return titleCase(`${f.slice(0, -1)}${female ? 'ична' : 'ич'}`);
  return titleCase(`${f}${female ? 'овна' : 'ович'}`);
}

/** Russian surname in its feminine form for a woman (Ivanov → Ivanova). */
function feminineSurname(surname: string): string {
  if (/(ov|ev|in|yn)$/i.test(surname)) return `${surname}a`;
  if (/(sky|skiy|skii)$/i.test(surname)) return surname.replace(/(sky|skiy|skii)$/i, 'skaya');
  return surname;
}

/** Russian women's given names end in а or я (the register does not say the sex). */
function isFemaleRussian(given: string): boolean {
  return /[ая]$/i.test(given) && !/^(никита|илья|кузьма|фома|лука|савва)$/i.test(given);
}

type Maker = (random: () => number) => string;

function makers(): Record<PopulationGroup, Maker> {
  const rows = readTsv('name-frequencies.tsv.gz');
  const gfdl = readTsv('given-name-classes.gfdl.tsv.gz');
  const urn = (s: readonly string[], g: readonly string[], r: readonly string[] = []) =>
    urnsOf(rows, gfdl, s, g, r);
  const english = urn(['US', 'GB'], ['US', 'GB']);
  const french = urn(['FR'], ['FR']);
  const german = urn(['DE'], ['DE']);
  const brazil = urn(['BR', 'PT'], ['BR']);
  const spanish = urn(['ES'], ['ES']);
  const vietnamese = urn(['VN'], [], ['VN']);
  const russian = urn(['RU'], ['RU']);
  const southAsian = urn(['IN', 'PK', 'BD'], [], ['XS-INDIA-SRI-LANKA']);
  const arabic = urn(['EG', 'MA', 'DZ', 'SA', 'IQ', 'SY', 'LB', 'JO', 'TN'], [], ['XA-ARABIA-PERSIA']);
  const chinese = urn(['CN', 'TW'], [], ['CN']);
  const t = titleCase;
  const chance = (random: () => number, p: number) => random() < p;
  const russianName = (random: () => number, cyrillic: boolean): string => {
    const given = russian.given.draw(random);
    const female = isFemaleRussian(given);
    let surname = russian.surnames.draw(random);
    if (female) surname = feminineSurname(t(surname));
    else surname = t(surname).replace(/(ov|ev|in|yn)a$/i, '$1');
    const parts = [t(given)];
    if (chance(random, 0.5)) {
      let father = russian.given.draw(random);
      while (isFemaleRussian(father)) father = russian.given.draw(random);
      parts.push(patronymic(father, female));
    }
    if (cyrillic) return [...parts, renderWord(surname, 'russian')].join(' ');
    return [...parts.map((p) => anyAscii(p)), t(surname)].join(' ');
  };
  return {
    english: (r) =>
      [
        t(english.given.draw(r)),
        ...(chance(r, 0.25) ? [t(english.given.draw(r))] : []),
        t(english.surnames.draw(r)),
      ].join(' '),
    french: (r) => `${t(french.given.draw(r))} ${t(french.surnames.draw(r))}`,
    german: (r) => `${t(german.given.draw(r))} ${t(german.surnames.draw(r))}`,
    'portuguese-brazilian': (r) =>
      [
        t(brazil.given.draw(r)),
        ...(chance(r, 1 / 3) ? [t(brazil.given.draw(r))] : []),
        ...(chance(r, 0.5) ? [t(brazil.surnames.draw(r))] : []),
        t(brazil.surnames.draw(r)),
      ].join(' '),
    spanish: (r) =>
      [
        t(spanish.given.draw(r)),
        ...(chance(r, 0.25) ? [t(spanish.given.draw(r))] : []),
        t(spanish.surnames.draw(r)),
        t(spanish.surnames.draw(r)),
      ].join(' '),
    vietnamese: (r) => {
      const surname = t(vietnamese.surnames.draw(r));
      const given = t(vietnamese.given.draw(r));
      if (chance(r, 0.2)) return `${surname} ${given}`;
      const middle = chance(r, 0.6)
        ? chance(r, 0.5)
          ? VIETNAMESE_MIDDLE_MALE
          : VIETNAMESE_MIDDLE_FEMALE
        : t(vietnamese.given.draw(r));
      return `${surname} ${anyAscii(middle)} ${given}`;
    },
    'russian-latin': (r) => russianName(r, false),
    'russian-cyrillic': (r) => russianName(r, true),
    'south-asian': (r) =>
      [
        t(southAsian.given.draw(r)),
        ...(chance(r, 0.25) ? [t(southAsian.given.draw(r))] : []),
        t(southAsian.surnames.draw(r)),
      ].join(' '),
    'arabic-origin': (r) =>
      [
        t(arabic.given.draw(r)),
        ...(chance(r, 0.5) ? [t(arabic.given.draw(r))] : []),
        t(arabic.surnames.draw(r)),
      ].join(' '),
    chinese: (r) => {
      const given = chinese.given.draw(r).replace(/\s+/g, '').toLowerCase();
      return `${t(chinese.surnames.draw(r))} ${given[0].toUpperCase()}${given.slice(1)}`;
    },
  };
}

function birthDate(random: () => number): string {
  const start = Date.UTC(1936, 0, 1);
  const end = Date.UTC(2008, 0, 1);
  return new Date(start + random() * (end - start)).toISOString().slice(0, 10);
}

export function halfOfPopulationInnocent(group: string, name: string): 'dev' | 'held-out' {
  const hex = createHash('sha1').update(`population|${group}|${name}`).digest('hex');
  return Number.parseInt(hex.slice(0, 8), 16) % 2 === 0 ? 'dev' : 'held-out';
}

function csvField(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * Seed of each half's draws, per group (the group's position is added). The held-out half was
 * redrawn with a new seed once it had been looked at while tuning (issue 37): the first held-out
 * draw (seed 37,000, shared with dev) is retired, and the dev half is still the first draw's.
 */
const SEEDS: Record<'dev' | 'held-out', number> = { dev: 37_000, 'held-out': 37_700 };

/** An innocent person drawn from the population: origin group, name and date of birth. */
export interface PopulationInnocent {
  group: PopulationGroup;
  name: string;
  dob: string;
}

/**
 * `perGroup` people of each origin group whose names fall in `half`, drawn with `seed` (the
 * group's position added). Drawn by frequency, a common name comes up again, as in a bank's
 * customers: people, not distinct names, are counted. A name of the other half is passed over,
 * so the halves never share a name.
 */
export function drawHalf(half: 'dev' | 'held-out', seed: number, perGroup: number): PopulationInnocent[] {
  const make = makers();
  const people: PopulationInnocent[] = [];
  POPULATION_GROUPS.forEach((group, g) => {
    const random = rng(seed + g);
    let filled = 0;
    for (let i = 0; filled < perGroup; i++) {
      if (i > perGroup * 100) throw new Error(`${group}: too few distinct names`);
      const name = make[group](random).replace(/\s+/g, ' ').trim();
      const dob = birthDate(random);
      if (name === '' || halfOfPopulationInnocent(group, name) !== half) continue;
      filled++;
      people.push({ group, name, dob });
    }
  });
  return people;
}

function main(): void {
  mkdirSync(POPULATION_INNOCENTS_DIR, { recursive: true });
  for (const half of ['dev', 'held-out'] as const) {
    const rows = drawHalf(half, SEEDS[half], PER_HALF).map((p) =>
      [p.group, p.name, p.dob].map(csvField).join(','),
    );
    const path = join(POPULATION_INNOCENTS_DIR, `${half}.csv`);
    writeFileSync(path, `group,name,dob\n${rows.join('\n')}\n`);
    console.log(`${path}: ${rows.length} people`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
