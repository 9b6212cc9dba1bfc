/**
 * The compiled name index: what the matcher derives from the listed names that does not depend
 * on a query — each distinct listed name's tokens as vocabulary ids, the vocabulary with its
 * document frequencies, the single-deletion neighbourhood of every token, each person's
 * canonical countries, the names by full date of birth, and the bearer-count weights of the
 * common-name rule. Tokenising ~42k names and counting every part's bearers is most of a cold
 * start, so the snapshot builder stores this next to the people and a cold start only reads
 * arrays back.
 *
 * A stored compilation is used only while it is current. Its fingerprint hashes the source of
 * every module the compilation runs (followed through their relative imports: normaliser,
 * transliteration, name variants, titles, phonetic keys, countries, rarity weights) plus the
 * output of the normaliser on a fixed probe set. A stale compilation would silently change who
 * matches, so when the code differs the index is compiled afresh rather than trusted. Where the
 * sources are not on disk (a bundled Lambda, whose snapshot was refreshed at synth time from the
 * same sources) the probe and a re-tokenised sample of listed names stand in for the source hash.
 */

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { normaliseCountries, normaliseCountry } from '../watchlists/countries.ts';
import type { ListedPerson, ListSummary, WatchlistSnapshot } from '../watchlists/types.ts';
import { otherAlphabetReadings } from './latin-orthographies.ts';
import { namePostings, vocabularyKeys } from './name-postings.ts';
import { commonNameWeights, personCategories, tokenWeights } from './name-rarity.ts';
import { type NamesByDate, namesByDate } from './names-by-date.ts';
import { makeToken, type NameToken, nameParts, tokeniseName, tokenWith } from './normalise.ts';
import { type PeopleSource, peopleSource } from './snapshot-people.ts';

/** Bumped whenever the layout of `CompiledIndexData` changes. */
export const COMPILED_INDEX_VERSION = 3;

/** What the code that produced a compilation looked like. */
export interface IndexFingerprint {
  /** SHA-256 over the compiling modules' source; null where the sources are not on disk. */
  sources: string | null;
  /** SHA-256 over the normaliser's output on the probe names. */
  probe: string;
}

/**
 * The stored compilation: JSON apart from its typed arrays (`StoredArray`), which the snapshot file
 * writes as raw bytes after its header line. Names are the distinct token sequences of each
 * person's names, in snapshot order.
 */
export interface CompiledIndexData {
  version: number;
  fingerprint: IndexFingerprint;
  /** Number of people compiled; a snapshot with another count is not this compilation's. */
  people: number;
  /** Vocabulary token texts; a particle carries a leading `~` (texts are a-z0-9 only). */
  vocab: string[];
  /** Each vocabulary token's phonetic key, joined by spaces. */
  phonetic: string;
  /** Each vocabulary token's other-alphabet readings joined by commas, the tokens' by spaces. */
  readings: string;
  /** Int32 per vocabulary id: how many people have a name containing the token. */
  df: StoredArray;
  /** Int32 records per name: person, index into the person's names, token count, token ids. */
  names: StoredArray;
  /** Uint32 deletion hashes ascending, then the Int32 vocabulary id at each position. */
  deletions: StoredArray;
  /** Per person: canonical nationality countries joined by `|` (empty: none). */
  nationalities: string[];
  /** Per person: canonical countries of nationalities and locations joined by `|`. */
  locationCountries: string[];
  /** Float64 per vocabulary id: `commonNameWeights`' name weight. */
  nameWeights: StoredArray;
  /** Float64 per vocabulary id: `commonNameWeights`' distinct-bearer weight. */
  bearerWeights: StoredArray;
  /** Int32 arrays of `NamesByDate`. */
  namesByDate: { dates: StoredArray; start: StoredArray; nameIds: StoredArray };
  /**
   * Each vocabulary token's evidence as a query token (near-tokens.ts `NearTokens`: Int32 starts
   * and ids, Float64 similarities), added when the snapshot is written; absent in files written
   * before it, which then work it out per query as before.
   */
  near?: { start: StoredArray; ids: StoredArray; sims: StoredArray };
}

/** The compilation materialised for the index builder. */
export interface CompiledIndex {
  vocab: string[];
  particle: Uint8Array;
  /** The vocabulary as `makeToken` makes it. */
  tokens: NameToken[];
  df: Int32Array;
  names: Int32Array;
  deletionHashes: Uint32Array;
  deletionIds: Int32Array;
  nationalities: CountryLists;
  locationCountries: CountryLists;
  nameWeights: Float64Array;
  bearerWeights: Float64Array;
  namesByDate: NamesByDate;
  /** Stored near tokens (near-tokens.ts), when the compilation was read with them. */
  near?: NearTokens;
}

/**
 * Each vocabulary token's evidence as a query token (near-tokens.ts): from `start[v]` to
 * `start[v + 1]` of `ids` and `sims`, the ids it credits (similarity from the candidate floor up)
 * in lookup order.
 */
export interface NearTokens {
  start: Int32Array;
  ids: Int32Array;
  sims: Float64Array;
}

/** Canonical countries per person, by position. */
export interface CountryLists {
  of(person: number): string[];
}

const listsOf = (lists: string[][]): CountryLists => ({ of: (p) => lists[p] });

/** Stored countries, split when a person's are first read (most people are never reported). */
function storedCountries(joined: string[]): CountryLists {
  const split: (string[] | undefined)[] = new Array(joined.length);
  return { of: (p) => (split[p] ??= splitCountries(joined[p])) };
}

/** Names the normaliser must treat exactly as at compile time: scripts, titles, particles, Abd-. */
const PROBE_NAMES = [
  'PUTIN, Vladimir Vladimirovich',
  'Владимир Владимирович Путин',
  'Αλέξης Τσίπρας',
  'محمد بن سلمان آل سعود',
  'Abd al-Rahman bin Abdullah Al-Qahtani',
  'Abdurrahman Abdel Aziz Abdul-Latif',
  'Sheikh Dr. Mohammed Ali al-Hashimi',
  'President Ben Ali',
  'Mr. Ludwig van Beethoven',
  'José María Aznar López',
  "O'Brien, Seán",
  'Łukasz Żółć Øster ßtraße',
  'Kim Jong Un',
  'Hsn Mhmd Khz',
  'Mukhammad-Ali Tschernow',
  'Nguyễn Tấn Dũng',
  'Ahmad Shah Massoud',
  'V. V. Putin',
  'Tariq Aziz Oglu Kyzy Ovna',
  'Rami Makhlouf',
  'ramimakhlouf',
];
const PROBE_COUNTRIES = ['Iran', 'Russian Federation', 'Syrian Arab Republic', 'Damascus, Syria', 'UK'];

/** One in this many listed names is re-tokenised to check a compilation whose sources are unknown. */
const SAMPLE_STRIDE = 53;

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

const ID_SPACE = 2 ** 21;

function countriesOfPerson(
  person: ListedPerson,
  countriesOf: (text: string) => string[],
): { nationalities: string[]; locations: string[] } {
  const nationalities = [...new Set(person.nationalities.flatMap(countriesOf))];
  const locations = [...new Set([...nationalities, ...person.locations.flatMap(countriesOf)])];
  return { nationalities, locations };
}

/**
 * Tokenises every listed name of the snapshot and counts each part's bearers. Pure; the slow part
 * of a cold start.
 */
export function compileIndex(people: readonly ListedPerson[], lists: readonly ListSummary[]): CompiledIndex {
  const vocab: string[] = [];
  const particle: number[] = [];
  const byKey = new Map<string, number>();
  const df: number[] = [];
  const lastPerson: number[] = [];
  const names: number[] = [];
  const nationalities: string[][] = [];
  const locationCountries: string[][] = [];
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

  for (let p = 0; p < people.length; p++) {
    const person = people[p];
    const countries = countriesOfPerson(person, countriesOf);
    nationalities.push(countries.nationalities);
    locationCountries.push(countries.locations);
    const seen = new Set<string>();
    for (let n = 0; n < person.names.length; n++) {
      const parts = nameParts(person.names[n].name);
      if (parts.length === 0) continue;
      const signature = parts.map((t) => t.text).join(' ');
      if (seen.has(signature)) continue;
      seen.add(signature);
      names.push(p, n, parts.length);
      for (const part of parts) {
        const key = part.particle ? `~${part.text}` : part.text;
        let id = byKey.get(key);
        if (id === undefined) {
          id = vocab.length;
          byKey.set(key, id);
          vocab.push(part.text);
          particle.push(part.particle ? 1 : 0);
          df.push(0);
          lastPerson.push(-1);
        }
        names.push(id);
        if (lastPerson[id] !== p) {
          lastPerson[id] = p;
          df[id]++;
        }
      }
    }
  }

  let deletionCount = 0;
  for (const text of vocab) if (text.length >= 3) deletionCount += text.length;
  // hash * 2^21 + id fits a double exactly (53 bits) while the vocabulary stays under 2M tokens.
  const packed = new Float64Array(deletionCount);
  let k = 0;
  for (let id = 0; id < vocab.length; id++) {
    const text = vocab[id];
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

  const particles = Uint8Array.from(particle);
  const frequencies = Int32Array.from(df);
  const records = Int32Array.from(names);
  const tokens = vocab.map((text, id) => makeToken(text, particles[id] === 1));
  const postings = namePostings(records, vocab.length);
  const weights = tokenWeights(tokens, frequencies, people.length);
  const { nameWeights, bearerWeights } = commonNameWeights(
    tokens,
    frequencies,
    weights,
    people,
    personCategories(people, lists),
    postings,
    records,
    vocabularyKeys(tokens),
  );
  return {
    vocab,
    particle: particles,
    tokens,
    df: frequencies,
    names: records,
    deletionHashes,
    deletionIds,
    nationalities: listsOf(nationalities),
    locationCountries: listsOf(locationCountries),
    nameWeights,
    bearerWeights,
    namesByDate: namesByDate(people, postings.namePerson),
  };
}

/**
 * A typed array as stored: its bytes (little-endian, as every machine this runs on), or, read from
 * a file of the earlier layout, those bytes in base64 text.
 */
export type StoredArray = Uint8Array | string;

/** A typed array's bytes, copied (the stored form `snapshot-file.ts` writes as raw bytes). */
export function storedArray(array: Int32Array | Uint32Array | Uint16Array | Float64Array): Uint8Array {
  return new Uint8Array(array.buffer.slice(array.byteOffset, array.byteOffset + array.byteLength));
}

/**
 * The bytes of a stored array, where typed arrays of any element size can view them: the bytes
 * themselves when they start on an 8-byte boundary (the file's layout puts them there), else a
 * copy; base64 text is decoded into a buffer of its own.
 */
export function bytesOf(stored: StoredArray): Uint8Array {
  if (typeof stored !== 'string') return stored.byteOffset % 8 === 0 ? stored : new Uint8Array(stored);
  const bytes = new Uint8Array(Buffer.byteLength(stored, 'base64'));
  Buffer.from(bytes.buffer).write(stored, 'base64');
  return bytes;
}

export function int32sOf(stored: StoredArray): Int32Array {
  const b = bytesOf(stored);
  return new Int32Array(b.buffer, b.byteOffset, b.byteLength >> 2);
}

export function uint16sOf(stored: StoredArray): Uint16Array {
  const b = bytesOf(stored);
  return new Uint16Array(b.buffer, b.byteOffset, b.byteLength >> 1);
}

function float64sOf(stored: StoredArray): Float64Array {
  const b = bytesOf(stored);
  return new Float64Array(b.buffer, b.byteOffset, b.byteLength >> 3);
}

const COUNTRY_SEPARATOR = '|';

/** The compilation in its stored form. */
export function serialiseCompiledIndex(compiled: CompiledIndex, people: number): CompiledIndexData {
  const deletions = new Uint8Array(compiled.deletionHashes.byteLength * 2);
  deletions.set(
    new Uint8Array(
      compiled.deletionHashes.buffer,
      compiled.deletionHashes.byteOffset,
      compiled.deletionHashes.byteLength,
    ),
  );
  deletions.set(
    new Uint8Array(
      compiled.deletionIds.buffer,
      compiled.deletionIds.byteOffset,
      compiled.deletionIds.byteLength,
    ),
    compiled.deletionHashes.byteLength,
  );
  return {
    version: COMPILED_INDEX_VERSION,
    fingerprint: currentFingerprint(),
    people,
    vocab: compiled.vocab.map((text, id) => (compiled.particle[id] ? `~${text}` : text)),
    phonetic: compiled.tokens.map((t) => t.phonetic).join(' '),
    readings: compiled.tokens.map((t) => t.readings.join(',')).join(' '),
    df: storedArray(compiled.df),
    names: storedArray(compiled.names),
    deletions,
    nationalities: Array.from({ length: people }, (_, p) =>
      compiled.nationalities.of(p).join(COUNTRY_SEPARATOR),
    ),
    locationCountries: Array.from({ length: people }, (_, p) =>
      compiled.locationCountries.of(p).join(COUNTRY_SEPARATOR),
    ),
    nameWeights: storedArray(compiled.nameWeights),
    bearerWeights: storedArray(compiled.bearerWeights),
    namesByDate: {
      dates: storedArray(compiled.namesByDate.dates),
      start: storedArray(compiled.namesByDate.start),
      nameIds: storedArray(compiled.namesByDate.nameIds),
    },
    near: compiled.near && storedNearTokens(compiled.near),
  };
}

/** Near tokens in their stored form. */
export function storedNearTokens(near: NearTokens): NonNullable<CompiledIndexData['near']> {
  return { start: storedArray(near.start), ids: storedArray(near.ids), sims: storedArray(near.sims) };
}

const splitCountries = (joined: string): string[] => (joined === '' ? [] : joined.split(COUNTRY_SEPARATOR));

/** Reads a stored compilation back (no validation: see `isCurrent`). */
export function deserialiseCompiledIndex(data: CompiledIndexData): CompiledIndex {
  const vocab = new Array<string>(data.vocab.length);
  const particle = new Uint8Array(data.vocab.length);
  for (let id = 0; id < data.vocab.length; id++) {
    const stored = data.vocab[id];
    if (stored.charCodeAt(0) === 126) {
      vocab[id] = stored.slice(1);
      particle[id] = 1;
    } else vocab[id] = stored;
  }
  const phonetic = data.phonetic.split(' ');
  const readings = data.readings.split(' ');
  const tokens = new Array<NameToken>(vocab.length);
  for (let id = 0; id < vocab.length; id++) {
    // As `makeToken(text, particle)`: no readings is its one shared empty list.
    const read = readings[id] === '' ? otherAlphabetReadings('') : readings[id].split(',');
    tokens[id] = tokenWith(vocab[id], particle[id] === 1, false, false, false, phonetic[id], read);
  }
  const deletions = bytesOf(data.deletions);
  const half = deletions.byteLength / 2;
  return {
    vocab,
    particle,
    tokens,
    df: int32sOf(data.df),
    names: int32sOf(data.names),
    deletionHashes: new Uint32Array(deletions.buffer, deletions.byteOffset, half / 4),
    deletionIds: new Int32Array(deletions.buffer, deletions.byteOffset + half, half / 4),
    nationalities: storedCountries(data.nationalities),
    locationCountries: storedCountries(data.locationCountries),
    nameWeights: float64sOf(data.nameWeights),
    bearerWeights: float64sOf(data.bearerWeights),
    namesByDate: {
      dates: int32sOf(data.namesByDate.dates),
      start: int32sOf(data.namesByDate.start),
      nameIds: int32sOf(data.namesByDate.nameIds),
    },
    near: data.near && {
      start: int32sOf(data.near.start),
      ids: int32sOf(data.near.ids),
      sims: float64sOf(data.near.sims),
    },
  };
}

const IMPORT_RE = /(?:from|import)\s+'(\.{1,2}\/[^']+\.ts)'/g;

/**
 * SHA-256 over the source of this module and of near-tokens.ts (whose output is stored with the
 * compilation) and everything they import, or null. (name-index.ts derives token records, lookup
 * keys and the score's rarity weights from the compilation at load, with the code running then.)
 */
function sourceFingerprint(): string | null {
  const hash = createHash('sha256');
  const seen = new Set<string>();
  const queue = [
    new URL('./compiled-index.ts', import.meta.url),
    new URL('./near-tokens.ts', import.meta.url),
  ];
  try {
    while (queue.length > 0) {
      const url = queue.shift() as URL;
      if (seen.has(url.href)) continue;
      seen.add(url.href);
      const source = readFileSync(url, 'utf8');
      hash
        .update(url.pathname.slice(url.pathname.lastIndexOf('/lib/')))
        .update('\0')
        .update(source);
      for (const m of source.matchAll(IMPORT_RE)) queue.push(new URL(m[1], url));
    }
  } catch {
    return null;
  }
  return hash.digest('hex');
}

function probeFingerprint(): string {
  const hash = createHash('sha256');
  for (const name of PROBE_NAMES) {
    for (const t of tokeniseName(name)) {
      hash.update(JSON.stringify(t)).update(JSON.stringify(makeToken(t.text, t.particle)));
    }
    hash.update('\n');
  }
  for (const c of PROBE_COUNTRIES) hash.update(`${normaliseCountry(c)}|${normaliseCountries(c).join(',')}\n`);
  return hash.digest('hex');
}

let fingerprint: IndexFingerprint | undefined;

/** The fingerprint of the code running now (computed once per process). */
export function currentFingerprint(): IndexFingerprint {
  fingerprint ??= { sources: sourceFingerprint(), probe: probeFingerprint() };
  return fingerprint;
}

/**
 * Whether a stored compilation was made by the code running now from these people. With the
 * sources on disk the source hash decides; without them, the probe and a re-tokenised sample of
 * the listed names must agree.
 */
export function isCurrent(data: CompiledIndexData, people: PeopleSource): boolean {
  if (data.version !== COMPILED_INDEX_VERSION || data.people !== people.count) return false;
  const now = currentFingerprint();
  if (data.fingerprint.probe !== now.probe) return false;
  if (now.sources !== null) return data.fingerprint.sources === now.sources;
  const names = int32sOf(data.names);
  let record = 0;
  for (let at = 0; at < names.length; record++) {
    const count = names[at + 2];
    if (record % SAMPLE_STRIDE === 0) {
      const listed = names[at] < people.count ? people.person(names[at]).names[names[at + 1]] : undefined;
      if (!listed) return false;
      const parts = nameParts(listed.name);
      if (parts.length !== count) return false;
      for (let k = 0; k < count; k++) {
        const stored = data.vocab[names[at + 3 + k]];
        if (stored !== (parts[k].particle ? `~${parts[k].text}` : parts[k].text)) return false;
      }
    }
    at += 3 + count;
  }
  return true;
}

/**
 * Stored compilations of loaded snapshots, kept beside rather than inside the snapshot object so
 * the snapshot keeps its published shape.
 */
const attached = new WeakMap<WatchlistSnapshot, CompiledIndexData>();

/** Remembers the stored compilation read with `snapshot`. */
export function attachCompiledIndex(snapshot: WatchlistSnapshot, data: CompiledIndexData): void {
  attached.set(snapshot, data);
}

/** The compilation stored with `snapshot`, if any (current or not). */
export function attachedCompiledIndex(snapshot: WatchlistSnapshot): CompiledIndexData | undefined {
  return attached.get(snapshot);
}

/**
 * The snapshot's compilation: the stored one when current, else compiled now. Never stale: a
 * compilation made by other code is ignored.
 */
export function compiledIndexOf(snapshot: WatchlistSnapshot): CompiledIndex {
  const stored = attached.get(snapshot);
  if (stored && isCurrent(stored, peopleSource(snapshot))) return deserialiseCompiledIndex(stored);
  return compileIndex(snapshot.people, snapshot.lists);
}

/**
 * The compilation to store with `snapshot`: the attached one when current, else compiled now
 * (and attached, so the matcher built next from this snapshot does not compile it again).
 */
export function currentCompiledIndexData(snapshot: WatchlistSnapshot): CompiledIndexData {
  const stored = attached.get(snapshot);
  if (stored && isCurrent(stored, peopleSource(snapshot))) return stored;
  const data = serialiseCompiledIndex(compileIndex(snapshot.people, snapshot.lists), snapshot.people.length);
  attached.set(snapshot, data);
  return data;
}
