/**
 * How common a name part is in the population: holders per million, per country, from census,
 * register and birth counts (data/names/name-commonness.json, built by
 * scripts/build-name-commonness.ts; sources and terms in data/names/SOURCE.md). Keyed by the
 * matcher's folded token text, so a listed or query part is looked up as it is compared.
 *
 * The table holds parts of at least `min_per_million` (100) in some country: an absent part is
 * rare or unrecorded there, and the matcher then reads the lists' own count of it (results.ts).
 */

import table from '../../data/names/name-commonness.json' with { type: 'json' };
import { listCountries } from '../watchlists/countries.ts';

interface PopulationTable {
  min_per_million: number;
  countries: string[];
  names: string;
}

/** Per name part: its country indexes and shares per million, commonest first. */
type Shares = readonly (readonly [number, number])[];

/** A name part's share in one country, as a fraction of its population (0..1). */
export interface PopulationShare {
  share: number;
  /** ISO 3166-1 alpha-2 code of the country the share is of. */
  country: string;
}

/** Countries with fewer recorded parts than this: an absent part says nothing there. */
const SPARSE_COUNTRY = 1000;
/** Parts (per country) whose `shareOfAnySpelling` answer is kept. */
const ANY_SPELLING_CACHE_SIZE = 20_000;

export class PopulationNames {
  private readonly byText = new Map<string, Shares>();
  private readonly countries: readonly string[];
  /** Position of each country code in `countries`: a lookup per part compared, not a scan of 60 codes. */
  private readonly countryIndex = new Map<string, number>();
  private readonly partsPerCountry: Int32Array;
  /**
   * `shareOfAnySpelling`'s answers by country and part: the commonness rules ask for the same few
   * parts of every match (and each part's romanisations), screen after screen. Bounded: cleared
   * when full. The answers are shared, so callers only read them.
   */
  private readonly anySpelling = new Map<string, PopulationShare | undefined>();
  private readonly codeByCountryName = new Map<string, string>();
  /** Parts by their romanisation key (`spellingKey`), built at the first lookup that needs it. */
  private bySpelling: Map<string, string[]> | undefined;
  readonly minShare: number;

  constructor(data: PopulationTable) {
    this.countries = data.countries;
    // The first position of a code, as `indexOf` finds it.
    data.countries.forEach((code, k) => {
      if (!this.countryIndex.has(code)) this.countryIndex.set(code, k);
    });
    this.minShare = data.min_per_million / 1e6;
    this.partsPerCountry = new Int32Array(data.countries.length);
    for (const line of data.names.split('\n')) {
      const cells = line.split(' ');
      const shares: [number, number][] = [];
      for (let k = 1; k < cells.length; k++) {
        const cell = cells[k];
        const colon = cell.indexOf(':');
        const country = Number(cell.slice(0, colon));
        shares.push([country, Number(cell.slice(colon + 1))]);
        this.partsPerCountry[country]++;
      }
      this.byText.set(cells[0], shares);
    }
    for (const c of listCountries()) this.codeByCountryName.set(c.name, c.code);
  }

  /** ISO alpha-2 code of a canonical country name (lib/watchlists/countries.ts). */
  codeOf(countryName: string | undefined): string | undefined {
    return countryName === undefined ? undefined : this.codeByCountryName.get(countryName);
  }

  /**
   * The share of people bearing `text` (a folded name part): in the country `code` when given
   * and recorded well enough there (an absent part is then under `minShare` there: returns
   * undefined), else its highest share in any country. Undefined: not recorded as common
   * anywhere the table looks.
   */
  shareOf(text: string, code?: string): PopulationShare | undefined {
    const shares = this.byText.get(text);
    const c = code === undefined ? -1 : this.indexOfCountry(code);
    if (c >= 0 && this.partsPerCountry[c] >= SPARSE_COUNTRY) {
      const own = shareAt(shares, c);
      return own ? { share: own[1] / 1e6, country: code as string } : undefined;
    }
    if (!shares || shares.length === 0) return undefined;
    if (c >= 0) {
      const own = shareAt(shares, c);
      if (own) return { share: own[1] / 1e6, country: code as string };
    }
    return { share: shares[0][1] / 1e6, country: this.countries[shares[0][0]] };
  }

  /** The share of people bearing `text` in the country `code` as the table records it, however sparsely. */
  shareIn(text: string, code: string): number {
    const c = this.indexOfCountry(code);
    const own = shareAt(this.byText.get(text), c);
    return own ? own[1] / 1e6 : 0;
  }

  /**
   * `shareOf`, and when the table lacks `text` as spelt, the largest share among the parts it
   * has that romanise alike ("Dmitry" and "Dmitrij" are the table's "dmitriy"; "Alexey" its
   * "aleksey"): the lists spell a name as their publisher romanises it, the table as its census
   * does.
   */
  shareOfAnySpelling(text: string, code?: string): PopulationShare | undefined {
    const key = code === undefined ? text : `${code} ${text}`;
    const known = this.anySpelling.get(key);
    if (known !== undefined || this.anySpelling.has(key)) return known;
    const found = this.lookUpAnySpelling(text, code);
    if (this.anySpelling.size >= ANY_SPELLING_CACHE_SIZE) this.anySpelling.clear();
    this.anySpelling.set(key, found);
    return found;
  }

  /** Position of `code` in the table's countries, -1 when the table has none for it. */
  private indexOfCountry(code: string): number {
    return this.countryIndex.get(code) ?? -1;
  }

  private lookUpAnySpelling(text: string, code: string | undefined): PopulationShare | undefined {
    const own = this.shareOf(text, code);
    if (own || this.byText.has(text)) return own;
    if (!this.bySpelling) {
      this.bySpelling = new Map();
      for (const part of this.byText.keys()) {
        const key = spellingKey(part);
        const parts = this.bySpelling.get(key);
        if (parts) parts.push(part);
        else this.bySpelling.set(key, [part]);
      }
    }
    let best: PopulationShare | undefined;
    for (const part of this.bySpelling.get(spellingKey(text)) ?? []) {
      const found = this.shareOf(part, code);
      if (found && (!best || found.share > best.share)) best = found;
    }
    return best;
  }
}

/** The entry of country `c` among a part's shares (the first, as `find` gives it), if any. */
function shareAt(shares: Shares | undefined, c: number): readonly [number, number] | undefined {
  if (shares === undefined) return undefined;
  for (let k = 0; k < shares.length; k++) if (shares[k][0] === c) return shares[k];
  return undefined;
}

/** Slavic surnames' man's and woman's endings ("Osipov" / "Osipova", "Ilin" / "Ilina"). */
export const MASCULINE_SURNAME_RE = /(?:ov|ev|in)$/;
export const FEMININE_SURNAME_RE = /(?:ova|eva|ina)$/;

/** The endings of Russian and other Slavic patronymics ("Sergeevich", "Ivanovna"). */
export const PATRONYMIC_ENDING_RE = /(?:ovich|evich|ovna|evna|ichna|ich)$/;

/**
 * The given names a patronymic's stem (`patronymic` without `PATRONYMIC_ENDING_RE`) may be its
 * father's: the stem itself or the stem and an ending ("serge", "sergey" for "sergeevich").
 */
export function fatherNamesOf(stem: string): string[] {
  return [stem, `${stem}y`, `${stem}iy`, `${stem}a`];
}

/**
 * A folded name part with the letters romanisations of one Cyrillic, Greek or Arabic letter
 * disagree on made alike: y, j and i as i (runs of them as one), x as ks, kh as h, an opening ye
 * or ie as e ("dmitriy", "dmitry", "dmitrij" → "dmitri"; "yevgeniy", "evgeny" → "evgeni").
 */
export function spellingKey(text: string): string {
  // One pass doing what these replacements in turn do: x → ks, kh → h, j and y → i, runs of i as
  // one, an opening ie → e (a part's first lookup and the table's index each key every part).
  let out = '';
  let last = '';
  for (let k = 0; k < text.length; k++) {
    let c = text[k];
    if (c === 'x') {
      out += 'ks';
      last = 's';
      continue;
    }
    if (c === 'k' && text[k + 1] === 'h') {
      c = 'h';
      k++;
    } else if (c === 'j' || c === 'y') c = 'i';
    if (c === 'i' && last === 'i') continue;
    out += c;
    last = c;
  }
  return out.startsWith('ie') ? `e${out.slice(2)}` : out;
}

let loaded: PopulationNames | undefined;

/** The shipped table, parsed on first use (once per process: a few milliseconds). */
export function populationNames(): PopulationNames {
  loaded ??= new PopulationNames(table as PopulationTable);
  return loaded;
}
