/**
 * The in-memory name index, compiled once per snapshot (once per Lambda cold start).
 *
 * Every name and alias of every listed person is tokenised once. Distinct tokens form a
 * vocabulary; each vocabulary token has a posting list of the names that contain it, a document
 * frequency (in persons) for rarity weighting, and lookup keys: its text, its name-variant keys,
 * its phonetic key and its single-deletion neighbourhood (which finds every token within one edit
 * of a query token, SymSpell-style). A query therefore touches only the names that share at
 * least one plausible token with it — never a scan of the whole list.
 */

import { normaliseCountries, normaliseCountry } from '../watchlists/countries.ts';
import type { CheckType, ListedPerson, ListId, ListSummary, WatchlistSnapshot } from '../watchlists/types.ts';
import { makeToken, type NameToken, nameParts } from './normalise.ts';
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

const ID_SPACE = 2 ** 21;

/** FNV-1a hash of `text` without the character at `skip` (-1: the whole text). */
export function hashSkipping(text: string, skip: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    if (i === skip) continue;
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

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

/** Compiles the snapshot into the index. Pure; call once per snapshot. */
export function buildIndex(snapshot: WatchlistSnapshot): NameIndex {
  const listNames = new Map<ListId, string>();
  const listCategory = new Map<ListId, CheckType>();
  for (const l of snapshot.lists) {
    listNames.set(l.id, l.name);
    listCategory.set(l.id, l.category);
  }
  const vocab: NameToken[] = [];
  const byKey = new Map<string, number>();
  const countryCache = new Map<string, string[]>();
  const countriesOf = (text: string): string[] => {
    let found = countryCache.get(text);
    if (found === undefined) {
      const whole = normaliseCountry(text);
      const last = text.split(',').pop() ?? '';
      found = whole
        ? [whole]
        : normaliseCountries(text).concat(last !== text ? normaliseCountries(last) : []);
      countryCache.set(text, found);
    }
    return found;
  };
  const postingLists: number[][] = [];
  const dfPerson: number[] = [];
  const lastPerson: number[] = [];
  const names: IndexedName[] = [];
  const people: IndexedPerson[] = [];

  for (let p = 0; p < snapshot.people.length; p++) {
    const person = snapshot.people[p];
    const nationalities = unique(person.nationalities.flatMap(countriesOf));
    const locationCountries = unique([...nationalities, ...person.locations.flatMap(countriesOf)]);
    people.push({
      person,
      category: listCategory.get(person.list_id) ?? categoryOf(person.list_id),
      listName: listNames.get(person.list_id) ?? person.list_id,
      nationalities,
      locationCountries,
    });
    const seen = new Set<string>();
    for (const listedName of person.names) {
      const parts = nameParts(listedName.name);
      if (parts.length === 0) continue;
      const signature = parts.map((t) => t.text).join(' ');
      if (seen.has(signature)) continue;
      seen.add(signature);
      const nameId = names.length;
      const ids = new Int32Array(parts.length);
      for (let k = 0; k < parts.length; k++) {
        const part = parts[k];
        const key = part.particle ? `~${part.text}` : part.text;
        let id = byKey.get(key);
        if (id === undefined) {
          id = vocab.length;
          byKey.set(key, id);
          vocab.push(makeToken(part.text, part.particle));
          postingLists.push([]);
          dfPerson.push(0);
          lastPerson.push(-1);
        }
        ids[k] = id;
        const postings = postingLists[id];
        if (postings[postings.length - 1] !== nameId) postings.push(nameId);
        if (lastPerson[id] !== p) {
          lastPerson[id] = p;
          dfPerson[id]++;
        }
      }
      names.push({ person: p, display: listedName.name, strength: listedName.strength, tokens: ids });
    }
  }

  const byText = new Map<string, number[]>();
  const byVariant = new Map<string, number[]>();
  const byPhonetic = new Map<string, number[]>();
  const n = Math.max(people.length, 2);
  const weights = new Float64Array(vocab.length);
  const rarityScale = Math.log(n / 3);
  let deletionCount = 0;
  for (let id = 0; id < vocab.length; id++) {
    const t = vocab[id];
    weights[id] = tokenWeight(t, dfPerson[id], n, rarityScale);
    addKey(byText, t.text, id);
    for (const v of t.variantKeys) addKey(byVariant, v, id);
    if (t.phonetic.length >= 3) addKey(byPhonetic, t.phonetic, id);
    if (t.text.length >= 3) deletionCount += t.text.length;
  }
  // hash * 2^21 + id fits a double exactly (53 bits) while the vocabulary stays under 2M tokens.
  const packed = new Float64Array(deletionCount);
  let k = 0;
  for (let id = 0; id < vocab.length; id++) {
    const text = vocab[id].text;
    if (text.length < 3) continue;
    for (let skip = 0; skip < text.length; skip++) packed[k++] = hashSkipping(text, skip) * ID_SPACE + id;
  }
  packed.sort();
  const deletionHashes = new Uint32Array(deletionCount);
  const deletionIds = new Int32Array(deletionCount);
  for (let i = 0; i < deletionCount; i++) {
    const id = packed[i] % ID_SPACE;
    deletionIds[i] = id;
    deletionHashes[i] = (packed[i] - id) / ID_SPACE;
  }
  return {
    people,
    names,
    vocab,
    weights,
    postings: postingLists.map((l) => Int32Array.from(l)),
    byText,
    byVariant,
    byPhonetic,
    deletionHashes,
    deletionIds,
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

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
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
