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

import type { CheckType, ListedPerson, ListId, ListSummary, WatchlistSnapshot } from '../watchlists/types.ts';
import { compiledIndexOf, hashSkipping } from './compiled-index.ts';
import { makeToken, type NameToken } from './normalise.ts';
import { isPatronymic } from './score.ts';

export interface IndexedName {
  person: number;
  /** The listed spelling, as shown to analysts. */
  display: string;
  strength: 'primary' | 'strong' | 'weak';
  /** Vocabulary ids of the name's tokens, in order. */
  tokens: Int32Array;
}

export interface IndexedPerson {
  person: ListedPerson;
  category: CheckType;
  listName: string;
  /** Canonical country names of the listed nationalities. */
  nationalities: string[];
  /** Canonical country names found in the listed locations and nationalities. */
  locationCountries: string[];
}

export interface NameIndex {
  people: IndexedPerson[];
  names: IndexedName[];
  vocab: NameToken[];
  /** Rarity weight per vocabulary id, 0.15..1. */
  weights: Float64Array;
  /** Name ids per vocabulary id. */
  postings: Int32Array[];
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
  lists: ListSummary[];
  listNames: Map<ListId, string>;
}

const MIN_WEIGHT = 0.15;
const PARTICLE_WEIGHT = 0.1;
const PATRONYMIC_WEIGHT = 0.4;

function addKey(keys: Map<string, number[]>, key: string, id: number): void {
  const ids = keys.get(key);
  if (ids === undefined) keys.set(key, [id]);
  else if (ids[ids.length - 1] !== id) ids.push(id);
}

export { hashSkipping };

/** Single-character deletions of a token (the SymSpell neighbourhood at distance one). */
export function deletions(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const d = text.slice(0, i) + text.slice(i + 1);
    if (out[out.length - 1] !== d) out.push(d);
  }
  return out;
}

function addDeleted(index: NameIndex, hash: number, out: Set<number>): void {
  const hashes = index.deletionHashes;
  let lo = 0;
  let hi = hashes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (hashes[mid] < hash) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < hashes.length && hashes[i] === hash; i++) out.add(index.deletionIds[i]);
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
  for (let id = 0; id < vocabSize; id++) vocab[id] = makeToken(compiled.vocab[id], compiled.particle[id] === 1);

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
  const postings: Int32Array[] = new Array(vocabSize);
  for (let id = 0; id < vocabSize; id++) postings[id] = new Int32Array(postingCounts[id]);
  const filled = new Int32Array(vocabSize);
  const names: IndexedName[] = new Array(nameCount);
  let nameId = 0;
  for (let at = 0; at < records.length; nameId++) {
    const p = records[at];
    const count = records[at + 2];
    const listed = snapshot.people[p].names[records[at + 1]];
    const tokens = records.subarray(at + 3, at + 3 + count);
    for (let k = 0; k < count; k++) {
      const id = tokens[k];
      const list = postings[id];
      if (filled[id] > 0 && list[filled[id] - 1] === nameId) continue;
      list[filled[id]++] = nameId;
    }
    names[nameId] = { person: p, display: listed.name, strength: listed.strength, tokens };
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
  return {
    people,
    names,
    vocab,
    weights,
    postings,
    byText,
    byVariant,
    byPhonetic,
    deletionHashes: compiled.deletionHashes,
    deletionIds: compiled.deletionIds,
    lists: snapshot.lists,
    listNames,
  };
}

function tokenWeight(t: NameToken, df: number, n: number, rarityScale: number): number {
  if (t.particle) return PARTICLE_WEIGHT;
  if (t.initial) return 0.35;
  const rarity = Math.min(1, Math.max(MIN_WEIGHT, Math.log(n / Math.max(df, 1)) / rarityScale));
  return isPatronymic(t) ? Math.min(rarity, PATRONYMIC_WEIGHT) : rarity;
}

function categoryOf(list: ListId): CheckType {
  if (list === 'fbi_wanted' || list === 'interpol_red') return 'criminal';
  if (list === 'us_congress_pep' || list === 'us_executive_pep') return 'pep';
  return 'sanctions';
}

/**
 * Vocabulary ids plausibly matching one query token: same text, same variant key, same phonetic
 * key, or within one edit (via the deletion neighbourhood).
 */
export function lookupToken(index: NameIndex, token: NameToken, out: Set<number>): void {
  const add = (map: Map<string, number[]>, key: string) => {
    const ids = map.get(key);
    if (ids) for (const id of ids) out.add(id);
  };
  add(index.byText, token.text);
  for (const v of token.variantKeys) add(index.byVariant, v);
  if (token.particle || token.initial) return;
  if (token.phonetic.length >= 3) add(index.byPhonetic, token.phonetic);
  if (token.text.length >= 3) {
    // Within one edit: the query with a character dropped equals a listed token, or both with a
    // character dropped agree (substitution), or the query equals a listed token less one.
    addDeleted(index, hashSkipping(token.text, -1), out);
    for (let skip = 0; skip < token.text.length; skip++) {
      addDeleted(index, hashSkipping(token.text, skip), out);
    }
    for (const d of deletions(token.text)) add(index.byText, d);
  }
  // A query token that is two listed tokens run together ("ramimakhlouf").
  if (token.text.length >= 7) {
    for (let cut = 3; cut <= token.text.length - 3; cut++) {
      const left = index.byText.get(token.text.slice(0, cut));
      const right = index.byText.get(token.text.slice(cut));
      if (left !== undefined && right !== undefined) {
        for (const id of left) out.add(id);
        for (const id of right) out.add(id);
      }
    }
  }
}
