/**
 * Generates the innocent people of the eval (`npm run eval:innocents`): invented names, by script
 * and by origin, written to eval/fixtures/innocents/{dev,held-out}.csv (columns group, name, dob).
 * `npm run eval` screens them and reports false alerts per 1,000 by group; the matcher is tuned
 * on dev.csv only, never on held-out.csv.
 *
 * The names come from faker's locales (@faker-js/faker, seeded, so a re-run writes the same
 * files), given name + family name, without the titles and suffixes faker sometimes adds:
 *
 * | group                 | source |
 * |-----------------------|--------|
 * | latin                 | en_US, en_GB, de, fr, it, pl, nl, sv |
 * | arabic-script         | ar |
 * | cyrillic              | ru, uk |
 * | han                   | zh_CN, zh_TW |
 * | devanagari            | ne |
 * | arabic-origin-latin   | ar, read into Latin by arabic-name-to-en (a dictionary of common Arabic names and their usual English spelling, letter rules for the rest) |
 * | russian-origin-latin  | ru, read into Latin by any-ascii (BGN/PCGN-like: Zakharovna, Aleksey) |
 * | south-asian-latin     | en_IN |
 * | vietnamese-latin      | vi (with its diacritics) |
 * | portuguese-latin      | pt_BR, pt_PT |
 * | spanish-latin         | es, es_MX (one or two family names) |
 *
 * Both transliterators are independent of the matcher's own romanisers, so a Latin-written name
 * is not spelt the way the matcher would read it. Russian names take the patronymic in one case
 * of two, as Russian customers often give it.
 *
 * Each distinct name goes to dev or held-out by the SHA-1 of group + name (even/odd), so the halves
 * never share a name; each group is generated until both halves hold PER_HALF people.
 */

import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Faker,
  fakerAR,
  fakerDE,
  fakerEN_GB,
  fakerEN_IN,
  fakerEN_US,
  fakerES,
  fakerES_MX,
  fakerFR,
  fakerIT,
  fakerNE,
  fakerNL,
  fakerPL,
  fakerPT_BR,
  fakerPT_PT,
  fakerRU,
  fakerSV,
  fakerUK,
  fakerVI,
  fakerZH_CN,
  fakerZH_TW,
} from '@faker-js/faker';
import anyAscii from 'any-ascii';
import arabicNameToEn from 'arabic-name-to-en';

export const INNOCENT_GROUPS = [
  'latin',
  'arabic-script',
  'cyrillic',
  'han',
  'devanagari',
  'arabic-origin-latin',
  'russian-origin-latin',
  'south-asian-latin',
  'vietnamese-latin',
  'portuguese-latin',
  'spanish-latin',
] as const;
export type InnocentGroup = (typeof INNOCENT_GROUPS)[number];

/** People per group in each half. */
const PER_HALF = 1000;
const SEED = 22;

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const INNOCENTS_DIR = join(repoRoot, 'eval', 'fixtures', 'innocents');

interface Source {
  locales: Faker[];
  /** Latin reading of the generated name, for the Latin-written origin groups. */
  read?: (name: string) => string;
  patronymic?: boolean;
}

const SOURCES: Record<InnocentGroup, Source> = {
  latin: { locales: [fakerEN_US, fakerEN_GB, fakerDE, fakerFR, fakerIT, fakerPL, fakerNL, fakerSV] },
  'arabic-script': { locales: [fakerAR] },
  cyrillic: { locales: [fakerRU, fakerUK], patronymic: true },
  han: { locales: [fakerZH_CN, fakerZH_TW] },
  devanagari: { locales: [fakerNE] },
  'arabic-origin-latin': { locales: [fakerAR], read: (n) => arabicNameToEn(n).trim() },
  'russian-origin-latin': { locales: [fakerRU], read: (n) => anyAscii(n), patronymic: true },
  'south-asian-latin': { locales: [fakerEN_IN] },
  'vietnamese-latin': { locales: [fakerVI] },
  'portuguese-latin': { locales: [fakerPT_BR, fakerPT_PT] },
  'spanish-latin': { locales: [fakerES, fakerES_MX] },
};

/** Han names are written without a space (family name first); the others given name first. */
const UNSPACED = new Set<Faker>([fakerZH_CN, fakerZH_TW]);

function personName(f: Faker, source: Source): string {
  const sex = f.person.sex() as 'female' | 'male';
  const given = f.person.firstName(sex);
  const family = f.person.lastName(sex);
  if (UNSPACED.has(f)) return `${family}${given}`;
  const parts = [given];
  if (source.patronymic && f.datatype.boolean()) parts.push(f.person.middleName(sex));
  parts.push(family);
  // Spanish: a second family name in one case of two.
  if ((f === fakerES || f === fakerES_MX) && f.datatype.boolean()) parts.push(f.person.lastName(sex));
  return parts.join(' ');
}

function birthDate(f: Faker): string {
  return f.date
    .birthdate({ mode: 'age', min: 18, max: 90, refDate: '2026-01-01' })
    .toISOString()
    .slice(0, 10);
}

export function halfOfInnocent(group: string, name: string): 'dev' | 'held-out' {
  const hex = createHash('sha1').update(`${group}|${name}`).digest('hex');
  return Number.parseInt(hex.slice(0, 8), 16) % 2 === 0 ? 'dev' : 'held-out';
}

function csvField(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function main(): void {
  const rows: Record<'dev' | 'held-out', string[]> = { dev: [], 'held-out': [] };
  INNOCENT_GROUPS.forEach((group, g) => {
    const source = SOURCES[group];
    source.locales.forEach((f, l) => {
      f.seed(SEED + 100 * g + l);
    });
    const seen = new Set<string>();
    const filled = { dev: 0, 'held-out': 0 };
    for (let i = 0; filled.dev < PER_HALF || filled['held-out'] < PER_HALF; i++) {
      if (i > PER_HALF * 50) throw new Error(`${group}: too few distinct names`);
      const f = source.locales[i % source.locales.length];
      const written = personName(f, source);
      const name = (source.read ? source.read(written) : written).replace(/\s+/g, ' ').trim();
      if (name === '' || seen.has(name)) continue;
      seen.add(name);
      const half = halfOfInnocent(group, name);
      if (filled[half] >= PER_HALF) continue;
      filled[half]++;
      rows[half].push([group, name, birthDate(f)].map(csvField).join(','));
    }
  });
  mkdirSync(INNOCENTS_DIR, { recursive: true });
  for (const half of ['dev', 'held-out'] as const) {
    const path = join(INNOCENTS_DIR, `${half}.csv`);
    writeFileSync(path, `group,name,dob\n${rows[half].join('\n')}\n`);
    console.log(`${path}: ${rows[half].length} people`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
