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
  ListedName,
  ListedPerson,
  ListId,
  ListSummary,
  WatchlistSnapshot,
} from '../watchlists/types.ts';
import { type CompiledIndex, compiledIndexOf, hashSkipping, type NearTokens } from './compiled-index.ts';
import { namePostings, variantKeys } from './name-postings.ts';
import { personCategories, tokenWeights } from './name-rarity.ts';
import { type NamesByDate, namesBornOnDate } from './names-by-date.ts';
import type { NameToken } from './normalise.ts';
import { type PeopleSource, peopleSource } from './snapshot-people.ts';
import { renderingSkeleton } from './string-similarity.ts';
import { otherScriptSpellings, renderingSkeletonKeys } from './token-similarity.ts';

export interface IndexedPerson {
  person: ListedPerson;
  category: CheckType;
  listName: string;
  /** Canonical country names of the listed nationalities. */
  nationalities: string[];
  /** Canonical country names found in the listed locations and nationalities. */
  locationCountries: string[];
}

/** An indexed person whose listing is parsed when first read (snapshot-people.ts). */
class IndexedListing implements IndexedPerson {
  constructor(
    private readonly source: PeopleSource,
    private readonly compiled: CompiledIndex,
    private readonly position: number,
    readonly category: CheckType,
    readonly listName: string,
  ) {}

  get person(): ListedPerson {
    return this.source.person(this.position);
  }

  get nationalities(): string[] {
    return this.compiled.nationalities.of(this.position);
  }

  get locationCountries(): string[] {
    return this.compiled.locationCountries.of(this.position);
  }
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
  byText: KeyLookup;
  /** Vocabulary ids by name-variant key. */
  byVariant: Map<string, number[]>;
  /** Vocabulary ids by phonetic key. */
  byPhonetic: KeyLookup;
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
  /**
   * Each vocabulary token's evidence as a query token, as stored with the compilation
   * (near-tokens.ts; candidates.ts checks a sample before reading it); absent when compiled now.
   */
  near: NearTokens | undefined;
  /**
   * Vocabulary ids by consonant skeleton (`renderingSkeleton`), built at the first screen of a
   * rendering of another script or a Baltic respelling (`lookupToken`): a cold start spares it.
   */
  bySkeleton?: KeyLookup;
  lists: ListSummary[];
  listNames: Map<ListId, string>;
}

/** Vocabulary ids by one key of each token, in id order; undefined where no token has the key. */
export interface KeyLookup {
  get(key: string): number[] | undefined;
  has(key: string): boolean;
}

/**
 * A `KeyLookup` in flat typed arrays (open addressing on the key's hash, filled in id order, so
 * ids with one key are met in id order when probing): built at cold start without a map entry
 * or array per key, as the maps it replaces were.
 */
class KeyTable implements KeyLookup {
  /** Hash of each id's key, and the ids by it (-1: empty): see `NameIndex.textHashes`. */
  readonly hashes: Uint32Array;
  readonly slots: Int32Array;

  /** `keys[id]`: the key of vocabulary id `id`; ids whose key is `skip(key)` are left out. */
  constructor(
    private readonly keys: readonly string[],
    skip: (key: string) => boolean,
  ) {
    this.hashes = new Uint32Array(keys.length);
    this.slots = new Int32Array(2 ** Math.ceil(Math.log2(keys.length * 2 + 2))).fill(-1);
    const mask = this.slots.length - 1;
    for (let id = 0; id < keys.length; id++) {
      if (skip(keys[id])) continue;
      const hash = hashRange(keys[id], 0, keys[id].length, -1);
      this.hashes[id] = hash;
      let slot = hash & mask;
      while (this.slots[slot] !== -1) slot = (slot + 1) & mask;
      this.slots[slot] = id;
    }
  }

  get(key: string): number[] | undefined {
    let ids: number[] | undefined;
    const hash = hashRange(key, 0, key.length, -1);
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; this.slots[slot] !== -1; slot = (slot + 1) & mask) {
      const id = this.slots[slot];
      if (this.hashes[id] !== hash || this.keys[id] !== key) continue;
      if (ids === undefined) ids = [id];
      else ids.push(id);
    }
    return ids;
  }

  has(key: string): boolean {
    // As `get(key) !== undefined`, without building the list of ids.
    const hash = hashRange(key, 0, key.length, -1);
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; this.slots[slot] !== -1; slot = (slot + 1) & mask) {
      const id = this.slots[slot];
      if (this.hashes[id] === hash && this.keys[id] === key) return true;
    }
    return false;
  }
}

/**
 * Builds the index of the snapshot from its compilation (compiled-index.ts: stored with the
 * snapshot, or compiled now when absent or made by other code). Pure; call once per snapshot.
 */
export function buildIndex(snapshot: WatchlistSnapshot): NameIndex {
  const listNames = new Map<ListId, string>();
  for (const l of snapshot.lists) listNames.set(l.id, l.name);
  const compiled = compiledIndexOf(snapshot);
  const source = peopleSource(snapshot);
  // Each list's category, worked out once per list rather than per person.
  const categoryOfList = new Map<ListId, CheckType>();
  const people: IndexedPerson[] = new Array(source.count);
  for (let p = 0; p < source.count; p++) {
    const list_id = source.listId(p);
    let category = categoryOfList.get(list_id);
    if (category === undefined) {
      category = personCategories([{ list_id }], snapshot.lists)[0];
      categoryOfList.set(list_id, category);
    }
    people[p] = new IndexedListing(source, compiled, p, category, listNames.get(list_id) ?? list_id);
  }

  const vocabSize = compiled.vocab.length;
  const vocab = compiled.tokens;
  const postings = namePostings(compiled.names, vocabSize);
  const byVariant = variantKeys(vocab);
  const byText = new KeyTable(compiled.vocab, () => false);
  const byPhonetic = new KeyTable(
    vocab.map((t) => t.phonetic),
    (key) => key.length < 3,
  );
  const weights = tokenWeights(vocab, compiled.df, people.length);
  return {
    people,
    namesByDate: compiled.namesByDate,
    nameCount: postings.nameCount,
    namePerson: postings.namePerson,
    nameListed: postings.nameListed,
    nameLengths: postings.nameLengths,
    nameTokenStart: postings.nameTokenStart,
    nameTokenIds: compiled.names,
    vocab,
    weights,
    nameWeights: compiled.nameWeights,
    bearerWeights: compiled.bearerWeights,
    postingStart: postings.postingStart,
    postingIds: postings.postingIds,
    byText,
    byVariant,
    byPhonetic,
    deletionHashes: compiled.deletionHashes,
    deletionIds: compiled.deletionIds,
    deletionBuckets: bucketStarts(compiled.deletionHashes),
    textHashes: byText.hashes,
    textSlots: byText.slots,
    near: compiled.near,
    lists: snapshot.lists,
    listNames,
  };
}

/** Name ids of the listed people born on the full date `date` (`YYYY-MM-DD`), ascending. */
export function namesBornOn(index: NameIndex, date: string): Int32Array {
  return namesBornOnDate(index.namesByDate, date);
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
/**
 * The Arabic article, also assimilated (ad-, ar-, as-, ash-, at-, az-), run into a name of three
 * letters or more; alignment.ts pairs such a token with the listed article and name.
 */
export const ARTICLE_RUN_IN_RE = /^(?:al|el|ul|ad|ar|ash|as|at|az)(?=[a-z]{3})/;

/** Shortest listed token `lookupToken` finds as one of two run together in a query token. */
export const RUN_TOGETHER_MIN_PART = 3;
/** Shortest query token `lookupToken` looks up as two listed tokens run together. */
export const RUN_TOGETHER_MIN_LENGTH = 2 * RUN_TOGETHER_MIN_PART + 1;

/**
 * Within one edit of `text` (three letters or more): the text with a character dropped equals a
 * listed token, or both with a character dropped agree (substitution), or the text equals a
 * listed token less one.
 */
function addWithinOneEdit(index: NameIndex, text: string, out: VocabIdSet): void {
  if (text.length < 3) return;
  if (deletedHashes.length < text.length) deletedHashes = new Uint32Array(2 * text.length);
  // Each deletion's hash serves both passes (worked out once; the passes keep their order).
  for (let skip = 0; skip < text.length; skip++) deletedHashes[skip] = hashSkipping(text, skip);
  addDeleted(index, hashSkipping(text, -1), out);
  for (let skip = 0; skip < text.length; skip++) addDeleted(index, deletedHashes[skip], out);
  for (let skip = 0; skip < text.length; skip++)
    addPiece(index, deletedHashes[skip], text, 0, text.length, skip, out);
}

/** `addWithinOneEdit`'s hash of its text with each character dropped (scratch, reused). */
let deletedHashes = new Uint32Array(32);

export function lookupToken(index: NameIndex, token: NameToken, out: VocabIdSet): void {
  const text = token.text;
  out.addAll(index.byText.get(text));
  for (const v of token.variantKeys) out.addAll(index.byVariant.get(v));
  if (token.particle || token.initial) return;
  if (token.phonetic.length >= 3) out.addAll(index.byPhonetic.get(token.phonetic));
  for (const r of token.readings) {
    out.addAll(index.byText.get(r));
    // A Baltic respelling's stem, its ending taken off, is looked up as its text is: within one
    // edit ("Huseinas Mahlufas": husein for Hussein, mahluf for Makhluf).
    if (token.respelt && !token.transliterated) addWithinOneEdit(index, r, out);
  }
  addWithinOneEdit(index, text, out);
  // Another script's letter that renders two Latin ones ("kharris": Cyrillic х for h as well).
  for (const other of otherScriptSpellings(token)) {
    out.addAll(index.byText.get(other));
    addWithinOneEdit(index, other, out);
  }
  // A rendering of another script or a Baltic respelling: the listed names with its skeleton.
  const skeletons = renderingSkeletonKeys(token);
  if (skeletons.length > 0) {
    index.bySkeleton ??= new KeyTable(
      index.vocab.map((t) => (t.particle || t.initial ? '' : renderingSkeleton(t.text))),
      (key) => key.length < 2,
    );
    for (const key of skeletons) out.addAll(index.bySkeleton.get(key));
  }
  // An Arabic article run into the name ("ALRAYS" for "AL-RAYS"): the name without it.
  const article = ARTICLE_RUN_IN_RE.exec(text);
  if (article) out.addAll(index.byText.get(text.slice(article[0].length)));
  // A query token that is two listed tokens run together ("ramimakhlouf").
  if (text.length >= RUN_TOGETHER_MIN_LENGTH) {
    let leftHash = 0x811c9dc5;
    for (let i = 0; i < RUN_TOGETHER_MIN_PART; i++)
      leftHash = Math.imul(leftHash ^ text.charCodeAt(i), 0x01000193);
    for (let cut = RUN_TOGETHER_MIN_PART; cut <= text.length - RUN_TOGETHER_MIN_PART; cut++) {
      if (cut > RUN_TOGETHER_MIN_PART) leftHash = Math.imul(leftHash ^ text.charCodeAt(cut - 1), 0x01000193);
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
