/**
 * Rarity weights of the listed name parts (vocabulary ids): how telling a part is (`tokenWeights`,
 * what the score weighs), and how many people bear it (`commonNameWeights`, what the common-name
 * rule in results.ts reads). The bearer counts read every listed person, so they are compiled with
 * the snapshot (compiled-index.ts), not counted at each cold start.
 */

import type { CheckType, ListedPerson, ListId, ListSummary } from '../watchlists/types.ts';
import type { NamePostings, VocabularyKeys } from './name-postings.ts';
import type { NameToken } from './normalise.ts';
import { isPatronymic } from './token-similarity.ts';
import { INITIAL_WEIGHT, MIN_TOKEN_WEIGHT, PARTICLE_WEIGHT, PATRONYMIC_WEIGHT } from './weights.ts';

/** The scale of `frequencyWeight` over `people` listed people. */
function rarityScaleOf(people: number): { n: number; rarityScale: number } {
  const n = Math.max(people, 2);
  return { n, rarityScale: Math.log(n / 3) };
}

/** Rarity weight of each vocabulary token on `df` of `people` listed people: what the score weighs. */
export function tokenWeights(vocab: readonly NameToken[], df: Int32Array, people: number): Float64Array {
  const { n, rarityScale } = rarityScaleOf(people);
  const weights = new Float64Array(vocab.length);
  for (let id = 0; id < vocab.length; id++) weights[id] = tokenWeight(vocab[id], df[id], n, rarityScale);
  return weights;
}

/** Rarity weight of a name part on `df` of `n` people, 0.15..1. */
function tokenWeight(t: NameToken, df: number, n: number, rarityScale: number): number {
  if (t.particle) return PARTICLE_WEIGHT;
  if (t.initial) return INITIAL_WEIGHT;
  const rarity = frequencyWeight(df, n, rarityScale);
  return isPatronymic(t) ? Math.min(rarity, PATRONYMIC_WEIGHT) : rarity;
}

/** Rarity of a name part on `df` of `n` people, 0.15..1, whatever its shape. */
function frequencyWeight(df: number, n: number, rarityScale: number): number {
  return Math.min(1, Math.max(MIN_TOKEN_WEIGHT, Math.log(n / Math.max(df, 1)) / rarityScale));
}

/**
 * The bearer-count weights of the common-name rule, per vocabulary id.
 * `nameWeights`: rarity of each part's name by how many bear it, counted over every spelling of
 * its name-variant group (Mohammed, Muhammad, Mohamed... are one name to whoever bears it) on all
 * listed people of all lists, and among the PEP office holders (`populationFrequency`); unlike
 * `tokenWeights`, a patronymic-shaped part is not capped.
 * `bearerWeights`: the same with the listed people bearing a name counted as distinct bearers
 * (`distinctBearers`): a part on a handful of distinct people identifies the person however many
 * lists repeat them.
 */
export function commonNameWeights(
  vocab: readonly NameToken[],
  df: Int32Array,
  weights: Float64Array,
  people: readonly ListedPerson[],
  categories: readonly CheckType[],
  postings: NamePostings,
  records: Int32Array,
  keys: VocabularyKeys,
): { nameWeights: Float64Array; bearerWeights: Float64Array } {
  const { n, rarityScale } = rarityScaleOf(people.length);
  const population = populationFrequency(categories, postings, df);
  const nameWeights = variantGroupWeights(vocab, atLeast(df, population), keys, weights, n, rarityScale);
  const bearers = distinctBearers(vocab, people, postings, records);
  const bearerWeights = variantGroupWeights(
    vocab,
    atLeast(bearers, population),
    keys,
    weights,
    n,
    rarityScale,
  );
  return { nameWeights, bearerWeights };
}

/** The category of each listed person, by their list. */
export function personCategories(
  people: readonly Pick<ListedPerson, 'list_id'>[],
  lists: readonly ListSummary[],
): CheckType[] {
  const listCategory = new Map<ListId, CheckType>();
  for (const l of lists) listCategory.set(l.id, l.category);
  const out: CheckType[] = new Array(people.length);
  for (let p = 0; p < people.length; p++)
    out[p] = listCategory.get(people[p].list_id) ?? categoryOf(people[p].list_id);
  return out;
}

/** Office holders needed before their names stand in for the population's. */
const MIN_POPULATION_SAMPLE = 1000;

/**
 * How many listed people would bear each vocabulary token if the whole lists had the share of the
 * PEP lists' office holders that bear it (0 for every token when the sample is too small):
 * legislators and office holders of every country are the lists' one sample of ordinary people's
 * names, where the sanctions lists over-represent some families and regions ("Davis" is on 21 of
 * 31,087 listed people but 19 of 10,961 office holders). Read as a floor under the lists' own
 * count (`atLeast`).
 */
function populationFrequency(
  categories: readonly CheckType[],
  { namePerson, postingStart, postingIds }: NamePostings,
  df: Int32Array,
): Int32Array {
  // Per person: -2 outside the sample, else the last vocabulary id that counted it (-1: none).
  const counted = new Int32Array(categories.length);
  let sample = 0;
  for (let p = 0; p < categories.length; p++) {
    const inSample = categories[p] === 'pep';
    counted[p] = inSample ? -1 : -2;
    if (inSample) sample++;
  }
  const out = new Int32Array(df.length);
  if (sample < MIN_POPULATION_SAMPLE) return out;
  for (let v = 0; v < df.length; v++) {
    let inSample = 0;
    const end = postingStart[v + 1];
    for (let k = postingStart[v]; k < end; k++) {
      const person = namePerson[postingIds[k]];
      const last = counted[person];
      if (last === -2 || last === v) continue;
      counted[person] = v;
      inSample++;
    }
    out[v] = Math.round((inSample * categories.length) / sample);
  }
  return out;
}

/** Per vocabulary id, the larger of the two counts. */
function atLeast(count: Int32Array, floor: Int32Array): Int32Array {
  const out = new Int32Array(count.length);
  for (let v = 0; v < count.length; v++) out[v] = Math.max(count[v], floor[v]);
  return out;
}

/**
 * How many distinct people bear each vocabulary token: bearers whose listings share a full date
 * of birth, or who bear it in the same name (the same parts, spelt the same way), count once.
 * Linking (lib/watchlists/linking.ts) leaves a two-part name without a date of birth unlinked, and
 * PEP and criminal listings are never linked, so one man listed under five records ("Mohammad
 * Eslami": UN, EU, UK, Canada, and as a minister on the PEP list) would count as five bearers.
 * Two people sharing an exact name are counted once here: an undercount of a name's bearers only,
 * which linking could not afford (it would merge two people's matches).
 */
function distinctBearers(
  vocab: readonly NameToken[],
  people: readonly ListedPerson[],
  { namePerson, postingStart, postingIds, nameTokenStart, nameLengths }: NamePostings,
  nameTokenIds: Int32Array,
): Int32Array {
  // Each full date of birth as a small integer, per person.
  const dateIds = new Map<string, number>();
  const personDates: number[][] = new Array(people.length);
  for (let p = 0; p < people.length; p++) {
    const dates: number[] = [];
    for (const d of people[p].dobs) {
      if (d.kind !== 'date') continue;
      let id = dateIds.get(d.date);
      if (id === undefined) {
        id = dateIds.size;
        dateIds.set(d.date, id);
      }
      dates.push(id);
    }
    personDates[p] = dates;
  }
  // Each name as a small integer shared by the names of the same parts: an order-free hash of
  // the parts, so different names share one only by chance (which merges two bearers, no more).
  const spellings = new Map<number, number>();
  const nameSpelling = new Int32Array(namePerson.length);
  for (let nameId = 0; nameId < namePerson.length; nameId++) {
    let hash = 0;
    const start = nameTokenStart[nameId];
    for (let j = 0; j < nameLengths[nameId]; j++)
      hash = (hash + Math.imul(nameTokenIds[start + j] + 1, 0x9e3779b1)) | 0;
    let id = spellings.get(hash);
    if (id === undefined) {
      id = spellings.size;
      spellings.set(hash, id);
    }
    nameSpelling[nameId] = id;
  }
  // Union-find over one token's bearers at a time. `bearerOf[p]` is person p's slot, and
  // `dateBearer` / `spellingBearer` the first bearer seen with a date or name, valid while their
  // `...For` entry is the token being counted: no map is cleared between tokens.
  const bearerFor = new Int32Array(people.length).fill(-1);
  const bearerOf = new Int32Array(people.length);
  const dateFor = new Int32Array(dateIds.size).fill(-1);
  const dateBearer = new Int32Array(dateIds.size);
  const spellingFor = new Int32Array(spellings.size).fill(-1);
  const spellingBearer = new Int32Array(spellings.size);
  const parent: number[] = [];
  let distinct = 0;
  const find = (x: number): number => {
    let root = x;
    while (parent[root] !== root) root = parent[root];
    while (parent[x] !== root) {
      const next = parent[x];
      parent[x] = root;
      x = next;
    }
    return root;
  };
  const union = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra === rb) return;
    parent[ra] = rb;
    distinct--;
  };
  const out = new Int32Array(vocab.length);
  for (let v = 0; v < vocab.length; v++) {
    const postings = postingStart[v + 1] - postingStart[v];
    if (postings <= 1) {
      out[v] = postings;
      continue;
    }
    parent.length = 0;
    distinct = 0;
    for (let k = postingStart[v]; k < postingStart[v + 1]; k++) {
      const nameId = postingIds[k];
      const p = namePerson[nameId];
      if (bearerFor[p] !== v) {
        bearerFor[p] = v;
        bearerOf[p] = parent.length;
        parent.push(parent.length);
        distinct++;
        for (const d of personDates[p]) {
          if (dateFor[d] !== v) {
            dateFor[d] = v;
            dateBearer[d] = bearerOf[p];
          } else union(dateBearer[d], bearerOf[p]);
        }
      }
      const spelling = nameSpelling[nameId];
      if (spellingFor[spelling] !== v) {
        spellingFor[spelling] = v;
        spellingBearer[spelling] = bearerOf[p];
      } else union(spellingBearer[spelling], bearerOf[p]);
    }
    out[v] = distinct;
  }
  return out;
}

/**
 * Rarity weights with each variant group's people counted together: a token's frequency is that
 * of its commonest group (the sum of its spellings' frequencies, an upper bound when one person
 * is listed under two spellings) or of its spelling in another Latin alphabet's reading, or its
 * own when it has neither.
 */
function variantGroupWeights(
  vocab: readonly NameToken[],
  df: Int32Array,
  { byVariant, byText }: VocabularyKeys,
  weights: Float64Array,
  n: number,
  rarityScale: number,
): Float64Array {
  const groupFrequency = new Map<string, number>();
  for (const [key, ids] of byVariant) {
    let sum = 0;
    for (const id of ids) sum += df[id];
    groupFrequency.set(key, sum);
  }
  const out = Float64Array.from(weights);
  for (let id = 0; id < vocab.length; id++) {
    const t = vocab[id];
    let frequency = df[id];
    for (const key of t.variantKeys) frequency = Math.max(frequency, groupFrequency.get(key) ?? 0);
    // "Nikolaj" is the Czech and Polish spelling of "Nikolay": as common as it.
    for (const r of t.readings)
      for (const other of byText.get(r) ?? []) frequency = Math.max(frequency, df[other]);
    // How many bear the name, not how telling it is: a family name shaped like a patronymic
    // ("Abramovich", "Yanukovych") is as rare as its bearers.
    out[id] = t.particle || t.initial ? weights[id] : frequencyWeight(Math.min(frequency, n), n, rarityScale);
  }
  return out;
}

function categoryOf(list: ListId): CheckType {
  if (list === 'fbi_wanted' || list === 'interpol_red') return 'criminal';
  if (list === 'us_congress_pep' || list === 'us_executive_pep') return 'pep';
  return 'sanctions';
}
