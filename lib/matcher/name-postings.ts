/**
 * The distinct listed names of a compilation (compiled-index.ts) as flat arrays, their posting
 * lists by vocabulary id, and the vocabulary's lookup keys: what the index (name-index.ts) serves
 * lookups from, and what the rarity tables (name-rarity.ts) count bearers over.
 */

import type { NameToken } from './normalise.ts';

/**
 * Name `n` belongs to person `namePerson[n]`, is spelt as that person's `names[nameListed[n]]`,
 * and has `nameLengths[n]` tokens from `records[nameTokenStart[n]]`. The names containing
 * vocabulary id `v` are `postingIds` from `postingStart[v]` to `postingStart[v + 1]`, ascending.
 */
export interface NamePostings {
  nameCount: number;
  namePerson: Int32Array;
  nameListed: Int32Array;
  nameLengths: Uint16Array;
  nameTokenStart: Int32Array;
  postingStart: Int32Array;
  postingIds: Int32Array;
}

/**
 * Names and posting lists of the compiled name records (person, index into the person's names,
 * token count, token ids), sized in a first pass so they fill typed arrays directly.
 */
export function namePostings(records: Int32Array, vocabSize: number): NamePostings {
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
  return { nameCount, namePerson, nameListed, nameLengths, nameTokenStart, postingStart, postingIds };
}

/** Vocabulary ids by token text, by name-variant key and by phonetic key. */
export interface VocabularyKeys {
  /** A word may be both a particle and a given name: "ben". */
  byText: Map<string, number[]>;
  byVariant: Map<string, number[]>;
  byPhonetic: Map<string, number[]>;
}

function addKey(keys: Map<string, number[]>, key: string, id: number): void {
  const ids = keys.get(key);
  if (ids === undefined) keys.set(key, [id]);
  else if (ids[ids.length - 1] !== id) ids.push(id);
}

/** The lookup keys of the vocabulary, each key's ids in id order. */
export function vocabularyKeys(vocab: readonly NameToken[]): VocabularyKeys {
  const byText = new Map<string, number[]>();
  const byPhonetic = new Map<string, number[]>();
  for (let id = 0; id < vocab.length; id++) {
    const t = vocab[id];
    addKey(byText, t.text, id);
    if (t.phonetic.length >= 3) addKey(byPhonetic, t.phonetic, id);
  }
  return { byText, byVariant: variantKeys(vocab), byPhonetic };
}

/** Vocabulary ids by name-variant key, each key's ids in id order. */
export function variantKeys(vocab: readonly NameToken[]): Map<string, number[]> {
  const byVariant = new Map<string, number[]>();
  for (let id = 0; id < vocab.length; id++) for (const v of vocab[id].variantKeys) addKey(byVariant, v, id);
  return byVariant;
}
