/**
 * The in-memory name index, built once per snapshot (once per Lambda cold start).
 *
 * Every name and alias of every listed person is tokenised once, when the snapshot is built
 * (compiled-index.ts); a cold start turns that compilation into lookup tables. Distinct tokens form a
 * vocabulary; each vocabulary token has a posting list of the names that contain it, a document
 * frequency (in persons) for rarity weighting, and lookup keys: its text, its name-variant keys,
 * its phonetic key and its single-deletion neighbourhood (which finds every token within one edit
 * of a query token, SymSpell-style). A query therefore touches only the names that share at
 * least one plausible token with it — never a scan of the whole list.
 */

import type {
  CheckType,
  ListedDob,
  ListedName,
  ListedPerson,
  ListId,
  ListSummary,
  WatchlistSnapshot,
} from '../watchlists/types.ts';
import { compiledIndexOf, hashSkipping } from './compiled-index.ts';
import { makeToken, type NameToken } from './normalise.ts';
import { isPatronymic } from './token-similarity.ts';
import { INITIAL_WEIGHT, MIN_TOKEN_WEIGHT, PARTICLE_WEIGHT, PATRONYMIC_WEIGHT } from './weights.ts';

export interface IndexedPerson {
  person: ListedPerson;
  category: CheckType;
  listName: string;
  /** Canonical country names of the listed nationalities. */
  nationalities: string[];
  /** Canonical country names found in the listed locations and nationalities. */
  locationCountries: string[];
}

/** The listed spelling of a name id, as shown to analysts. */
export function listedNameOf(index: NameIndex, nameId: number): ListedName {
  return index.people[index.namePerson[nameId]].person.names[index.nameListed[nameId]];
}

export interface NameIndex {
  people: IndexedPerson[];
  /**
   * The distinct listed names (name ids), in flat arrays: a cold start builds no object per name.
   * Name `n` belongs to person `namePerson[n]`, is spelt as that person's
   * `names[nameListed[n]]`, and has `nameLengths[n]` tokens from `nameTokenIds[nameTokenStart[n]]`.
   */
  nameCount: number;
  namePerson: Int32Array;
  nameListed: Int32Array;
  nameLengths: Uint16Array;
  nameTokenStart: Int32Array;
  nameTokenIds: Int32Array;
  vocab: NameToken[];
  /** Rarity weight per vocabulary id, 0.15..1. */
  weights: Float64Array;
  /**
   * Rarity of each vocabulary id's name by how many bear it, counted over every spelling of its
   * name-variant group (Mohammed, Muhammad, Mohamed... are one name to whoever bears it) on all
   * listed people of all lists, and among the PEP office holders (`populationFrequency`); unlike
   * `weights`, a patronymic-shaped part is not capped. What the common-name rule reads (results.ts).
   */
  nameWeights: Float64Array;
  /**
   * As `nameWeights`, with the listed people bearing a name counted as distinct bearers: listings
   * of one person that linking across lists did not join (the same full date of birth, or the
   * same name spelt the same way) count once (`distinctBearers`). What the common-name rule's
   * rare-part test reads: a part on a handful of distinct people identifies the person however
   * many lists repeat them.
   */
  bearerWeights: Float64Array;
  /** Name ids per vocabulary id `v`: `postingIds` from `postingStart[v]` to `postingStart[v + 1]`. */
  postingStart: Int32Array;
  postingIds: Int32Array;
  /**
   * Name ids of the listed people born on each full date (`YYYY-MM-DD`, read by `namesBornOn`): a
   * subject's full date of birth makes those names candidates whatever their spelling (at most a
   * few dozen per date).
   */
  namesByDate: NamesByDate;
  /** Vocabulary ids by token text (a word may be both a particle and a given name: "ben"). */
  byText: Map<string, number[]>;
  /** Vocabulary ids by name-variant key. */
  byVariant: Map<string, number[]>;
  /** Vocabulary ids by phonetic key. */
  byPhonetic: Map<string, number[]>;
  /**
   * Single-character deletions of every vocabulary token, as 32-bit hashes sorted ascending, with
   * the vocabulary id at the same position. Typed arrays keep this, the largest key set, cheap to
   * build at cold start; a hash collision only adds a candidate that scoring then rejects.
   */
  deletionHashes: Uint32Array;
  deletionIds: Int32Array;
  /**
   * Where each run of deletion hashes with the same top bits starts (`DELETION_BUCKET_BITS`):
   * a lookup searches a run of one or two entries instead of the whole array.
   */
  deletionBuckets: Int32Array;
  /**
   * Hash of each vocabulary text, and a hash table of vocabulary ids by it (open addressing, -1:
   * empty): finds listed tokens equal to a piece of a query token (one character dropped, or one
   * side of a run-together pair) without building the piece as a string. Every hit is confirmed
   * letter by letter, so this finds exactly what a lookup by text would.
   */
  textHashes: Uint32Array;
  textSlots: Int32Array;
  lists: ListSummary[];
  listNames: Map<ListId, string>;
}

function addKey(keys: Map<string, number[]>, key: string, id: number): void {
  const ids = keys.get(key);
  if (ids === undefined) keys.set(key, [id]);
  else if (ids[ids.length - 1] !== id) ids.push(id);
}

/**
 * Builds the index of the snapshot from its compilation (compiled-index.ts: stored with the
 * snapshot, or compiled now when absent or made by other code). Pure; call once per snapshot.
 */
export function buildIndex(snapshot: WatchlistSnapshot): NameIndex {
  const listNames = new Map<ListId, string>();
  const listCategory = new Map<ListId, CheckType>();
  for (const l of snapshot.lists) {
    listNames.set(l.id, l.name);
    listCategory.set(l.id, l.category);
  }
  const compiled = compiledIndexOf(snapshot);
  const people: IndexedPerson[] = new Array(snapshot.people.length);
  for (let p = 0; p < snapshot.people.length; p++) {
    const person = snapshot.people[p];
    people[p] = {
      person,
      category: listCategory.get(person.list_id) ?? categoryOf(person.list_id),
      listName: listNames.get(person.list_id) ?? person.list_id,
      nationalities: compiled.nationalities[p],
      locationCountries: compiled.locationCountries[p],
    };
  }

  const vocabSize = compiled.vocab.length;
  const vocab: NameToken[] = new Array(vocabSize);
  for (let id = 0; id < vocabSize; id++)
    vocab[id] = makeToken(compiled.vocab[id], compiled.particle[id] === 1);

  // Names, and posting lists sized in a first pass so they fill typed arrays directly.
  const records = compiled.names;
  const postingCounts = new Int32Array(vocabSize);
  let nameCount = 0;
  for (let at = 0; at < records.length; nameCount++) {
    const count = records[at + 2];
    for (let k = 0; k < count; k++) {
      const id = records[at + 3 + k];
      // A token repeated within one name is posted once.
      let repeated = false;
      for (let e = 0; e < k; e++) if (records[at + 3 + e] === id) repeated = true;
      if (!repeated) postingCounts[id]++;
    }
    at += 3 + count;
  }
  const postingStart = new Int32Array(vocabSize + 1);
  for (let id = 0; id < vocabSize; id++) postingStart[id + 1] = postingStart[id] + postingCounts[id];
  const postingIds = new Int32Array(postingStart[vocabSize]);
  const filled = postingStart.slice(0, vocabSize);
  const namePerson = new Int32Array(nameCount);
  const nameListed = new Int32Array(nameCount);
  const nameLengths = new Uint16Array(nameCount);
  const nameTokenStart = new Int32Array(nameCount);
  let nameId = 0;
  for (let at = 0; at < records.length; nameId++) {
    const count = records[at + 2];
    for (let k = 0; k < count; k++) {
      const id = records[at + 3 + k];
      if (filled[id] > postingStart[id] && postingIds[filled[id] - 1] === nameId) continue;
      postingIds[filled[id]++] = nameId;
    }
    namePerson[nameId] = records[at];
    nameListed[nameId] = records[at + 1];
    nameLengths[nameId] = count;
    nameTokenStart[nameId] = at + 3;
    at += 3 + count;
  }

  const byText = new Map<string, number[]>();
  const byVariant = new Map<string, number[]>();
  const byPhonetic = new Map<string, number[]>();
  const n = Math.max(people.length, 2);
  const weights = new Float64Array(vocabSize);
  const rarityScale = Math.log(n / 3);
  for (let id = 0; id < vocabSize; id++) {
    const t = vocab[id];
    weights[id] = tokenWeight(t, compiled.df[id], n, rarityScale);
    addKey(byText, t.text, id);
    for (const v of t.variantKeys) addKey(byVariant, v, id);
    if (t.phonetic.length >= 3) addKey(byPhonetic, t.phonetic, id);
  }
  const population = populationFrequency(people, namePerson, postingStart, postingIds, compiled.df);
  const nameWeights = variantGroupWeights(
    vocab,
    atLeast(compiled.df, population),
    byVariant,
    byText,
    weights,
    n,
    rarityScale,
  );
  const bearers = distinctBearers(
    vocab,
    people,
    namePerson,
    postingStart,
    postingIds,
    nameTokenStart,
    nameLengths,
    records,
  );
  const bearerWeights = variantGroupWeights(
    vocab,
    atLeast(bearers, population),
    byVariant,
    byText,
    weights,
    n,
    rarityScale,
  );
  // Open addressing, filled in id order: ids with one hash are met in id order when probing.
  const textSlots = new Int32Array(2 ** Math.ceil(Math.log2(vocabSize * 2 + 2))).fill(-1);
  const textHashes = new Uint32Array(vocabSize);
  const slotMask = textSlots.length - 1;
  for (let id = 0; id < vocabSize; id++) {
    const hash = hashRange(compiled.vocab[id], 0, compiled.vocab[id].length, -1);
    textHashes[id] = hash;
    let slot = hash & slotMask;
    while (textSlots[slot] !== -1) slot = (slot + 1) & slotMask;
    textSlots[slot] = id;
  }
  return {
    people,
    namesByDate: namesByDate(people, namePerson),
    nameCount,
    namePerson,
    nameListed,
    nameLengths,
    nameTokenStart,
    nameTokenIds: records,
    vocab,
    weights,
    nameWeights,
    bearerWeights,
    postingStart,
    postingIds,
    byText,
    byVariant,
    byPhonetic,
    deletionHashes: compiled.deletionHashes,
    deletionIds: compiled.deletionIds,
    deletionBuckets: bucketStarts(compiled.deletionHashes),
    textHashes,
    textSlots,
    lists: snapshot.lists,
    listNames,
  };
}

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
 * Name ids by full date of birth in flat typed arrays (about 13,000 dates, 47,000 names): the
 * names born on `dates[k]` are `nameIds` from `start[k]` to `start[k + 1]`, ascending. A map of
 * date strings to arrays held 2 MB of heap for the same.
 */
export interface NamesByDate {
  /** Dates as the number YYYYMMDD, ascending. */
  dates: Int32Array;
  start: Int32Array;
  nameIds: Int32Array;
}

const FULL_DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const NO_NAME_IDS = new Int32Array(0);

/** `YYYY-MM-DD` as the number YYYYMMDD (the caller checks the shape). */
function dateNumber(date: string): number {
  return Number(date.slice(0, 4)) * 10000 + Number(date.slice(5, 7)) * 100 + Number(date.slice(8, 10));
}

/** The full dates (`YYYY-MM-DD`) among a listed person's dates of birth, as YYYYMMDD numbers. */
function fullDatesOf(dobs: readonly ListedDob[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < dobs.length; k++) {
    const d = dobs[k];
    // Only a date of this shape can equal a subject's full date (`fullQueryDate`).
    if (d.kind === 'date' && FULL_DATE_RE.test(d.date)) out.push(dateNumber(d.date));
  }
  return out;
}

/** Name ids below this fit beside the date in one sort key (`namesByDate`). */
const NAME_ID_SPAN = 2 ** 24;

function namesByDate(people: readonly IndexedPerson[], namePerson: Int32Array): NamesByDate {
  // One number per (date, name): date × span + name id, so a numeric sort orders by date, then name.
  if (namePerson.length > NAME_ID_SPAN) throw new Error(`more than ${NAME_ID_SPAN} listed names`);
  const keys: number[] = [];
  // A person's names are mostly consecutive ids: their dates are read once per run of them.
  let person = -1;
  let personDates: number[] = [];
  for (let nameId = 0; nameId < namePerson.length; nameId++) {
    if (namePerson[nameId] !== person) {
      person = namePerson[nameId];
      personDates = fullDatesOf(people[person].person.dobs);
    }
    for (let k = 0; k < personDates.length; k++) keys.push(personDates[k] * NAME_ID_SPAN + nameId);
  }
  const sorted = Float64Array.from(keys).sort();
  const dates: number[] = [];
  const start: number[] = [];
  const nameIds: number[] = [];
  for (let k = 0; k < sorted.length; k++) {
    if (k > 0 && sorted[k] === sorted[k - 1]) continue;
    const date = Math.floor(sorted[k] / NAME_ID_SPAN);
    if (dates[dates.length - 1] !== date) {
      dates.push(date);
      start.push(nameIds.length);
    }
    nameIds.push(sorted[k] % NAME_ID_SPAN);
  }
  start.push(nameIds.length);
  return { dates: Int32Array.from(dates), start: Int32Array.from(start), nameIds: Int32Array.from(nameIds) };
}

/** Name ids of the listed people born on the full date `date` (`YYYY-MM-DD`), ascending. */
export function namesBornOn(index: NameIndex, date: string): Int32Array {
  const { dates, start, nameIds } = index.namesByDate;
  const key = dateNumber(date);
  let lo = 0;
  let hi = dates.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (dates[mid] < key) lo = mid + 1;
    else if (dates[mid] > key) hi = mid - 1;
    else return nameIds.subarray(start[mid], start[mid + 1]);
  }
  return NO_NAME_IDS;
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
  people: readonly IndexedPerson[],
  namePerson: Int32Array,
  postingStart: Int32Array,
  postingIds: Int32Array,
  df: Int32Array,
): Int32Array {
  // Per person: -2 outside the sample, else the last vocabulary id that counted it (-1: none).
  const counted = new Int32Array(people.length);
  let sample = 0;
  for (let p = 0; p < people.length; p++) {
    const inSample = people[p].category === 'pep';
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
    out[v] = Math.round((inSample * people.length) / sample);
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
  people: readonly IndexedPerson[],
  namePerson: Int32Array,
  postingStart: Int32Array,
  postingIds: Int32Array,
  nameTokenStart: Int32Array,
  nameLengths: Uint16Array,
  nameTokenIds: Int32Array,
): Int32Array {
  // Each full date of birth as a small integer, per person.
  const dateIds = new Map<string, number>();
  const personDates: number[][] = new Array(people.length);
  for (let p = 0; p < people.length; p++) {
    const dates: number[] = [];
    for (const d of people[p].person.dobs) {
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
  byVariant: ReadonlyMap<string, number[]>,
  byText: ReadonlyMap<string, number[]>,
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

/**
 * A set of vocabulary ids that keeps insertion order, reusable across lookups without
 * allocation (the order decides which of several spellings credits a candidate first).
 */
export class VocabIdSet {
  /** The ids, in insertion order; valid up to `size`. */
  ids: Int32Array;
  size = 0;
  private readonly mark: Int32Array;
  private generation = 1;

  constructor(vocabSize: number) {
    this.ids = new Int32Array(64);
    this.mark = new Int32Array(vocabSize);
  }

  clear(): void {
    this.size = 0;
    this.generation++;
  }

  add(id: number): void {
    if (this.mark[id] === this.generation) return;
    this.mark[id] = this.generation;
    if (this.size === this.ids.length) {
      const grown = new Int32Array(this.ids.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[this.size++] = id;
  }

  addAll(ids: readonly number[] | undefined): void {
    if (ids !== undefined) for (let k = 0; k < ids.length; k++) this.add(ids[k]);
  }
}

const DELETION_BUCKET_BITS = 17;
const DELETION_BUCKET_SHIFT = 32 - DELETION_BUCKET_BITS;

/** Start position of each bucket of the ascending `hashes` (one extra entry: the end). */
function bucketStarts(hashes: Uint32Array): Int32Array {
  const starts = new Int32Array((1 << DELETION_BUCKET_BITS) + 1);
  let bucket = 0;
  for (let i = 0; i < hashes.length; i++) {
    const b = hashes[i] >>> DELETION_BUCKET_SHIFT;
    while (bucket <= b) starts[bucket++] = i;
  }
  while (bucket < starts.length) starts[bucket++] = hashes.length;
  return starts;
}

function addDeleted(index: NameIndex, hash: number, out: VocabIdSet): void {
  const hashes = index.deletionHashes;
  const bucket = hash >>> DELETION_BUCKET_SHIFT;
  let lo = index.deletionBuckets[bucket];
  let hi = index.deletionBuckets[bucket + 1];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (hashes[mid] < hash) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < hashes.length && hashes[i] === hash; i++) out.add(index.deletionIds[i]);
}

/** FNV-1a hash of `text` from `from` to `to` without the character at `skip` (as `hashSkipping`). */
function hashRange(text: string, from: number, to: number, skip: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) {
    if (i === skip) continue;
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Whether `listed` equals `text` from `from` to `to` without the character at `skip`. */
function equalsPiece(listed: string, text: string, from: number, to: number, skip: number): boolean {
  if (listed.length !== to - from - (skip >= from && skip < to ? 1 : 0)) return false;
  let k = 0;
  for (let i = from; i < to; i++) {
    if (i === skip) continue;
    if (listed.charCodeAt(k++) !== text.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * Vocabulary ids whose text equals the piece of `text` (see `equalsPiece`), in id order, added to
 * `out`; with `out` null only whether there is one.
 */
function addPiece(
  index: NameIndex,
  hash: number,
  text: string,
  from: number,
  to: number,
  skip: number,
  out: VocabIdSet | null,
): boolean {
  const slots = index.textSlots;
  const mask = slots.length - 1;
  let found = false;
  for (let slot = hash & mask; slots[slot] !== -1; slot = (slot + 1) & mask) {
    const id = slots[slot];
    if (index.textHashes[id] !== hash || !equalsPiece(index.vocab[id].text, text, from, to, skip)) continue;
    if (out === null) return true;
    found = true;
    out.add(id);
  }
  return found;
}

/**
 * Vocabulary ids plausibly matching one query token: same text, same variant key, same phonetic
 * key, or within one edit (via the deletion neighbourhood).
 */
export function lookupToken(index: NameIndex, token: NameToken, out: VocabIdSet): void {
  const text = token.text;
  out.addAll(index.byText.get(text));
  for (const v of token.variantKeys) out.addAll(index.byVariant.get(v));
  if (token.particle || token.initial) return;
  if (token.phonetic.length >= 3) out.addAll(index.byPhonetic.get(token.phonetic));
  for (const r of token.readings) out.addAll(index.byText.get(r));
  if (text.length >= 3) {
    // Within one edit: the query with a character dropped equals a listed token, or both with a
    // character dropped agree (substitution), or the query equals a listed token less one.
    addDeleted(index, hashSkipping(text, -1), out);
    for (let skip = 0; skip < text.length; skip++) addDeleted(index, hashSkipping(text, skip), out);
    for (let skip = 0; skip < text.length; skip++)
      addPiece(index, hashSkipping(text, skip), text, 0, text.length, skip, out);
  }
  // A query token that is two listed tokens run together ("ramimakhlouf").
  if (text.length >= 7) {
    let leftHash = 0x811c9dc5;
    for (let i = 0; i < 3; i++) leftHash = Math.imul(leftHash ^ text.charCodeAt(i), 0x01000193);
    for (let cut = 3; cut <= text.length - 3; cut++) {
      if (cut > 3) leftHash = Math.imul(leftHash ^ text.charCodeAt(cut - 1), 0x01000193);
      const left = leftHash >>> 0;
      if (!addPiece(index, left, text, 0, cut, -1, null)) continue;
      const right = hashRange(text, cut, text.length, -1);
      if (addPiece(index, right, text, cut, text.length, -1, null)) {
        addPiece(index, left, text, 0, cut, -1, out);
        addPiece(index, right, text, cut, text.length, -1, out);
      }
    }
  }
}
