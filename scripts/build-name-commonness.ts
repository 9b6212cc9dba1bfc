/**
 * Builds data/names/name-commonness.json (`npm run build:names`): how common each name part is in
 * the population, per country, as the matcher reads it (lib/matcher/population-names.ts).
 *
 * Read from `../shared/data/names/name-frequencies.tsv.gz` (or NAMES_DIR): census, register and
 * birth counts by country (SOURCE.md there; data/names/SOURCE.md says what is shipped and under
 * which terms). The GFDL given-name classes beside it are NOT read: they serve the evaluation only.
 *
 * Each row's name is tokenised as the matcher tokenises a listed name (lib/matcher/normalise.ts):
 * Cyrillic given names are read into Latin, accents folded, particles dropped; a row of several
 * parts ("HUYNH HOANG", "EL IDRISSI") credits each plain part. Surnames and given names are one
 * key (a query's parts come in no known role), the larger share kept per country. Shares under
 * MIN_PER_MILLION are left out: an absent part is rare, or unrecorded, and the matcher falls back
 * on the lists' own counts for it. Shares keep two significant digits.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { tokeniseName } from '../lib/matcher/normalise.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const namesDir = process.env.NAMES_DIR
  ? resolve(process.env.NAMES_DIR)
  : resolve(repoRoot, '..', 'shared', 'data', 'names');
const OUT = join(repoRoot, 'data', 'names', 'name-commonness.json');

/** Holders per million below which a share is not shipped (1 in 10,000). */
const MIN_PER_MILLION = 100;

function twoDigits(x: number): number {
  const p = 10 ** Math.max(0, Math.floor(Math.log10(x)) - 1);
  return Math.round(x / p) * p;
}

function main(): void {
  const text = gunzipSync(readFileSync(join(namesDir, 'name-frequencies.tsv.gz'))).toString('utf8');
  const byToken = new Map<string, Map<string, number>>();
  const sources = new Set<string>();
  for (const line of text.split('\n').slice(1)) {
    if (line === '') continue;
    const [name, , country, perMillionText, source] = line.split('\t');
    const perMillion = Number(perMillionText);
    if (!(perMillion >= MIN_PER_MILLION)) continue;
    sources.add(source);
    for (const t of tokeniseName(name)) {
      if (t.particle || t.initial || t.text.length < 2) continue;
      let countries = byToken.get(t.text);
      if (!countries) {
        countries = new Map();
        byToken.set(t.text, countries);
      }
      countries.set(country, Math.max(countries.get(country) ?? 0, perMillion));
    }
  }
  const countries = [...new Set([...byToken.values()].flatMap((m) => [...m.keys()]))].sort();
  const countryIndex = new Map(countries.map((c, i) => [c, i]));
  // One line per token: "text country:perMillion ..." with countries as indexes of `countries`,
  // commonest first.
  const lines = [...byToken]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([token, shares]) => {
      const cells = [...shares]
        .sort((a, b) => b[1] - a[1])
        .map(([c, pm]) => `${countryIndex.get(c)}:${twoDigits(pm)}`);
      return `${token} ${cells.join(' ')}`;
    });
  const table = {
    about:
      'Holders per million of each name part, per country (ISO 3166 alpha-2 by index), parts of at least 100 per million; built by scripts/build-name-commonness.ts; sources and terms: data/names/SOURCE.md',
    min_per_million: MIN_PER_MILLION,
    sources: [...sources].sort(),
    countries,
    names: lines.join('\n'),
  };
  writeFileSync(OUT, `${JSON.stringify(table)}\n`);
  console.log(`${OUT}: ${lines.length} name parts, ${countries.length} countries`);
}

main();
