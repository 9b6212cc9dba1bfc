/**
 * Character-level similarity of single name tokens: Jaro-Winkler, Levenshtein distance and a
 * consonant skeleton used as the phonetic key. Inputs are folded tokens (a-z only).
 */

// Match flags per position: position i is matched when its flag equals the current call's mark,
// so no clearing is needed between calls.
const jaroFlagsA = new Int32Array(64);
const jaroFlagsB = new Int32Array(64);
const jaroCodesB = new Uint16Array(64);
let jaroMark = 0;

/** Jaro-Winkler similarity in 0..1 (prefix scale 0.1, prefix up to 4). */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  if (la > 64 || lb > 64)
    return a.slice(0, 64) === b.slice(0, 64) ? 0.95 : jaroWinkler(a.slice(0, 64), b.slice(0, 64));
  if (jaroMark === 0x7fffffff) {
    jaroFlagsA.fill(0);
    jaroFlagsB.fill(0);
    jaroMark = 0;
  }
  const mark = ++jaroMark;
  for (let j = 0; j < lb; j++) jaroCodesB[j] = b.charCodeAt(j);
  // A window of at least one lets short tokens' transpositions count ("Sok" / "Sko").
  const range = Math.max(1, Math.floor(Math.max(la, lb) / 2) - 1);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const lo = Math.max(0, i - range);
    const hi = Math.min(lb - 1, i + range);
    const ca = a.charCodeAt(i);
    for (let j = lo; j <= hi; j++) {
      if (jaroCodesB[j] === ca && jaroFlagsB[j] !== mark) {
        jaroFlagsA[i] = mark;
        jaroFlagsB[j] = mark;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  let transpositions = 0;
  let k = 0;
  for (let i = 0; i < la; i++) {
    if (jaroFlagsA[i] !== mark) continue;
    while (jaroFlagsB[k] !== mark) k++;
    if (a.charCodeAt(i) !== jaroCodesB[k]) transpositions++;
    k++;
  }
  const jaro = (matches / la + matches / lb + (matches - transpositions / 2) / matches) / 3;
  let prefix = 0;
  const maxPrefix = Math.min(4, la, lb);
  while (prefix < maxPrefix && a.charCodeAt(prefix) === jaroCodesB[prefix]) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

const MAX_EDIT_LENGTH = 128;
const rowPrev2 = new Int32Array(MAX_EDIT_LENGTH + 1);
const rowPrev = new Int32Array(MAX_EDIT_LENGTH + 1);
const rowCur = new Int32Array(MAX_EDIT_LENGTH + 1);
const editCodesB = new Uint16Array(MAX_EDIT_LENGTH + 1);

/**
 * Levenshtein edit distance with adjacent transposition counted as one edit (optimal string
 * alignment), or `limit + 1` as soon as the distance is known to exceed `limit`.
 */
export function editDistance(a: string, b: string, limit = 64): number {
  if (a === b) return 0;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > limit) return limit + 1;
  if (la === 0) return lb;
  if (lb === 0) return la;
  if (lb > MAX_EDIT_LENGTH) return Math.max(la, lb);
  let prev2 = rowPrev2;
  let prev = rowPrev;
  let cur = rowCur;
  const codes = editCodesB;
  // codes[j] is b's j-th character (1-based, as the rows are).
  for (let j = 1; j <= lb; j++) codes[j] = b.charCodeAt(j - 1);
  for (let j = 0; j <= lb; j++) prev[j] = j;
  for (let i = 1; i <= la; i++) {
    cur[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    const caPrev = i > 1 ? a.charCodeAt(i - 2) : -1;
    for (let j = 1; j <= lb; j++) {
      const cb = codes[j];
      let v = prev[j - 1] + (ca === cb ? 0 : 1);
      const del = prev[j] + 1;
      if (del < v) v = del;
      const ins = cur[j - 1] + 1;
      if (ins < v) v = ins;
      if (j > 1 && caPrev === cb && ca === codes[j - 1]) {
        const tr = prev2[j - 2] + 1;
        if (tr < v) v = tr;
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > limit) return limit + 1;
    const recycled = prev2;
    prev2 = prev;
    prev = cur;
    cur = recycled;
  }
  return prev[lb];
}

const VOWEL_LETTERS = 'aeiouy';
/** 1 for a vowel, by char code (tokens are ASCII; other codes are neither vowel nor consonant). */
const IS_VOWEL = new Uint8Array(128);
for (const v of VOWEL_LETTERS) IS_VOWEL[v.charCodeAt(0)] = 1;

function isVowelCode(code: number): boolean {
  return code < 128 && IS_VOWEL[code] === 1;
}

/** Consonant classes: letters that transliteration schemes swap for one another share a class. */
const CONSONANT_CLASS: Record<string, string> = {
  b: 'b',
  p: 'b',
  f: 'f',
  v: 'f',
  w: 'f',
  c: 'k',
  k: 'k',
  q: 'k',
  g: 'j',
  j: 'j',
  s: 's',
  z: 's',
  x: 's',
  d: 't',
  t: 't',
  l: 'l',
  m: 'm',
  n: 'n',
  r: 'r',
  h: 'h',
};
/** `CONSONANT_CLASS` by char code ('' where none). */
const CLASS_BY_CODE: string[] = Array.from(
  { length: 128 },
  (_, code) => CONSONANT_CLASS[String.fromCharCode(code)] ?? '',
);

/**
 * A phonetic key: the token's consonant skeleton by sound class, with digraphs (kh, sh, ch, th,
 * ph, gh, dh, zh) folded and repeats collapsed; a leading vowel is kept as `a`. Two spellings of
 * one sound pattern — "Hassan" and the vowel-less "Hsn" of Arabic script — share a key.
 */
export function phoneticKey(token: string): string {
  // Every digraph rewritten below contains an `h` or is `ck`; most tokens have neither.
  const t =
    token.indexOf('h') < 0 && token.indexOf('ck') < 0
      ? token
      : token
          .replace(/tsch|tch/g, 'c')
          .replace(/sch/g, 's')
          .replace(/([kscptgdz])h/g, '$1')
          .replace(/ck/g, 'k');
  if (t.length === 0) return '';
  let out = isVowelCode(t.charCodeAt(0)) ? 'a' : '';
  let last = out;
  const n = t.length;
  for (let i = 0; i < n; i++) {
    const code = t.charCodeAt(i);
    const cls = code < 128 ? CLASS_BY_CODE[code] : '';
    if (cls === '') {
      if (isVowelCode(code)) last = '';
      continue;
    }
    // A final `h`, or one after a vowel and before a consonant ("Ahmad", "Shah"), is silent in
    // most romanisations; elsewhere it is a consonant that Arabic script writes as a letter.
    if (
      cls === 'h' &&
      (i === n - 1 || (i > 0 && isVowelCode(t.charCodeAt(i - 1)) && !isVowelCode(t.charCodeAt(i + 1))))
    )
      continue;
    if (cls !== last) out += cls;
    last = cls;
  }
  return out;
}

/** Share of vowels in a token; Arabic- and Hebrew-script renderings have very few. */
export function vowelShare(token: string): number {
  if (token.length === 0) return 0;
  let n = 0;
  for (let i = 0; i < token.length; i++) if (isVowelCode(token.charCodeAt(i))) n++;
  return n / token.length;
}

/**
 * Spelling choices that renderings of a Latin name in another script make and their reading back
 * undoes differently ("McConnell" → Макконнелл → "makkonnell"; "Nancy" → Νανσι → "nansi"; "John"
 * → ג'ון → "gvn"; "Thune" → Тун → "tun"), folded to one spelling: c as k or s, mc as mak, j, dzh,
 * dz and tz as j, kh as h, th as t, sh as s, ch and ts as c, w as u, y as i, ou and oo as u, ee
 * as i, double letters once, h after a letter and a final e dropped.
 */
export function renderingFold(text: string): string {
  let folded = foldedRenderings.get(text);
  if (folded === undefined) {
    // Bounded: a long-running process sees ever new spellings.
    if (foldedRenderings.size >= FOLDED_RENDERINGS_KEPT) foldedRenderings.clear();
    folded = foldRendering(text);
    foldedRenderings.set(text, folded);
  }
  return folded;
}

/** `renderingFold`s worked out so far (twenty regular expressions each): names repeat. */
const foldedRenderings = new Map<string, string>();
const FOLDED_RENDERINGS_KEPT = 20_000;

function foldRendering(text: string): string {
  return text
    .replace(/^mc/, 'mak')
    .replace(/tch/g, 'ch')
    .replace(/ck/g, 'k')
    .replace(/ph/g, 'f')
    .replace(/qu/g, 'kv')
    .replace(/x/g, 'ks')
    .replace(/^wh/, 'u')
    .replace(/c(?=[eiy])/g, 's')
    .replace(/c(?!h)/g, 'k')
    .replace(/dzh|dz|tz|zh/g, 'j')
    .replace(/kh/g, 'h')
    .replace(/th/g, 't')
    .replace(/sh/g, 's')
    .replace(/ch|ts/g, 'c')
    .replace(/w/g, 'u')
    .replace(/y/g, 'i')
    .replace(/q/g, 'k')
    .replace(/ou|oo/g, 'u')
    .replace(/ee/g, 'i')
    .replace(/(.)\1+/g, '$1')
    .replace(/(?<=.)h/g, '')
    .replace(/(?<=..)e$/, '');
}

/**
 * Whether two parts are one name as another script renders it: their `renderingFold`s alike (a
 * letter apart from seven letters on), the first letters alike, four letters at least.
 */
export function sameRendering(a: string, b: string): boolean {
  return sameFold(renderingFold(a), renderingFold(b));
}

/** `sameRendering` of two parts already folded (`renderingFold`). */
export function sameFold(fa: string, fb: string): boolean {
  // Two letters folded alike are one name of one consonant ("dzhoe", Джое, and "Džoe" for Joe).
  if (fa.length === 2 && fa === fb) return true;
  if (fa[0] !== fb[0] || Math.min(fa.length, fb.length) < 3) return false;
  const typos = Math.max(fa.length, fb.length) < 7 ? 0 : 1;
  return editDistance(fa, fb, typos + 1) <= typos;
}

/**
 * Digraphs and letters folded before `renderingSkeleton` reads a consonant skeleton: what
 * renderings of one Latin name into Greek, Cyrillic, Hebrew, Arabic, Persian, Armenian or Georgian
 * read back, and Baltic respellings, write differently ("George" / "dzhordzh" / "gorg" / "tzortz",
 * "Richard" / "ritsard", "Khubezov" / "chobzov", "Thompson" / "tompson").
 */
const SKELETON_DIGRAPHS: readonly (readonly [RegExp, string])[] = [
  [/dzh|dz|tz|dj/g, 'j'],
  [/tsch|tch|tsh/g, 'ts'],
  [/sch|sh|zh/g, 's'],
  [/ch/g, 'ts'],
  [/gh/g, 'g'],
  [/kh|ck|q/g, 'k'],
  [/ph/g, 'f'],
  [/th|dh/g, 't'],
  [/x/g, 'ks'],
  [/c(?=[eiy])/g, 's'],
  [/c/g, 'k'],
];

/**
 * Consonant classes of the skeleton: letters one script writes with one letter (Hebrew ב for b
 * and v, פ for p and f; Arabic ب for p, ف for v; ג, ج and گ for g and j) share a class. Vowels,
 * h, w and y are left out: abjads write few vowels, w and y are vowels in most renderings (ου,
 * у, ו), and h is dropped or written as χ, х or ח.
 */
const SKELETON_CLASS: Record<string, string> = {
  b: 'b',
  p: 'b',
  f: 'b',
  v: 'b',
  k: 'k',
  g: 'g',
  j: 'g',
  s: 's',
  z: 's',
  t: 't',
  d: 't',
  l: 'l',
  m: 'm',
  n: 'n',
  r: 'r',
};

/** `SKELETON_CLASS` with b, p, f and v apart, as Latin letters (a Baltic respelling) write them. */
const STRICT_SKELETON_CLASS: Record<string, string> = { ...SKELETON_CLASS, p: 'p', f: 'f', v: 'v' };

/**
 * The consonant skeleton that renderings of one Latin name into another script and back share
 * ("McConnell", "makkonnell", "Makonels" → "mknl"): digraphs folded, consonants by class,
 * vowels, h, w and y left out, repeats written once; `strict` keeps b, p, f and v apart. Candidate selection looks renderings up by it
 * (name-index.ts); token-similarity.ts compares renderings by it.
 */
export function renderingSkeleton(text: string, strict = false): string {
  let t = text;
  for (const [from, to] of SKELETON_DIGRAPHS) t = t.replace(from, to);
  const classes = strict ? STRICT_SKELETON_CLASS : SKELETON_CLASS;
  let out = '';
  for (let i = 0; i < t.length; i++) {
    const cls = classes[t[i]];
    if (cls === undefined || cls === out[out.length - 1]) continue;
    out += cls;
  }
  return out;
}

/**
 * Letters of a rendering that may stand for a vowel or for v: o and u inside a word (Hebrew ו,
 * Persian و), v or w opening one (ו and و there).
 */
const AMBIGUOUS_V_RE = /^[vw]|[ou]/g;
/** At most this many such letters are read both ways (2^n skeletons). */
const MAX_AMBIGUOUS = 4;

/**
 * The skeletons a rendering read back may stand for: each o or u, and a v opening it, read as a
 * vowel or as v (Hebrew ו and Persian و are both; "liunuu" is Leonov, "vlg" Oleg). The first is the
 * plain `renderingSkeleton`.
 */
export function renderingSkeletons(text: string): string[] {
  const at: number[] = [];
  for (const m of text.matchAll(AMBIGUOUS_V_RE)) at.push(m.index ?? 0);
  const out = new Set<string>([renderingSkeleton(text)]);
  if (at.length === 0 || at.length > MAX_AMBIGUOUS) return [...out];
  for (let mask = 0; mask < 1 << at.length; mask++) {
    let t = '';
    let from = 0;
    at.forEach((pos, k) => {
      t += text.slice(from, pos) + ((mask >> k) & 1 ? 'v' : 'a');
      from = pos + 1;
    });
    out.add(renderingSkeleton(t + text.slice(from)));
  }
  return [...out];
}

/**
 * A spelling as consonant classes and vowels in order (`SKELETON_CLASS`; e, i, y as i; o, u, w
 * as u; h left out), repeats written once; in a rendering (`rendering`) o, u, w and v are `U`: a
 * vowel or v, as Hebrew ו and Persian و are.
 */
function soundLine(text: string, rendering: boolean): string {
  let t = text;
  for (const [from, to] of SKELETON_DIGRAPHS) t = t.replace(from, to);
  let out = '';
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    let sym: string;
    if (rendering && 'ouwv'.includes(c)) sym = 'U';
    else if (c === 'a') sym = 'a';
    else if ('eiy'.includes(c)) sym = 'i';
    else if ('ouw'.includes(c)) sym = 'u';
    else sym = SKELETON_CLASS[c] ?? '';
    // A rendering's U is written once per letter: "uu" may be "ov" ("pauluuna" / "Pavlovna").
    if (sym !== '' && (sym !== out[out.length - 1] || sym === 'U')) out += sym;
  }
  return out;
}

const isVowelSym = (x: string): boolean => x === 'a' || x === 'i' || x === 'u';

/**
 * Whether a rendering writes the listed spelling's consonants and, between them, only vowels the
 * listed spelling has there (a rendering leaves vowels out, never adds them; a may be left out or
 * added, as Hebrew and Greek renderings of English i do): "jurj" / "George", "mkvriid" / "McBride"
 * agree; "khlud" / "Khaled" and "zruq" / "Zuraik" do not.
 */
export function renderedVowelsAgree(rendering: string, listed: string): boolean {
  const r = soundLine(rendering, true);
  const l = soundLine(listed, false);
  let j = 0;
  for (let k = 0; k < r.length; k++) {
    const sym = r[k];
    if (sym === 'a') {
      if (l[j] === 'a') j++;
      continue;
    }
    let found = false;
    while (j < l.length) {
      const x = l[j++];
      if (sym === 'U' ? x === 'u' || x === 'b' : sym === x) {
        found = true;
        break;
      }
      if (!isVowelSym(x)) return false;
    }
    if (!found) return false;
  }
  for (; j < l.length; j++) if (!isVowelSym(l[j])) return false;
  return true;
}
