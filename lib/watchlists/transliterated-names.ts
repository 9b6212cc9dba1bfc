/**
 * Names compared under transliteration, for linking the listings of one person that the lists
 * romanise differently (lib/watchlists/linking.ts, rule 3): ILINYKH / ILYNIKH, Alexey / Aleksey /
 * Alexei, Dmitriy / Dmitrii / Dmitry, Mohammed / Muhammad, Yousef / Yusuf.
 *
 * Each name part becomes a comparison key that keeps what every romanisation of Russian and
 * Arabic writes the same way and drops what they write differently:
 * - accents and case go; `x` is `ks`, `ph` is `f`, `w` is `v`, `q` is `k`, `ck` is `k`, `tz` is
 *   `ts`; the digraphs `kh`, `gh`, `dh`, `th` lose their `h` (Russian х and Arabic خ, غ, ذ, ث are
 *   written with or without it), `dzh`/`dj` are `j`, and `y` is `i` (Yuri / Iouri, Sergey / Sergei);
 * - inner vowels go (the short vowels Arabic does not write and Russian ы/и/е/э/ё/я spelt every way),
 *   keeping the first letter and whether the part ends in `a`, another vowel or a consonant
 *   (Ivanov and Ivanova differ);
 * - doubled letters are one (Mohammed / Mohamed, Dmitrii / Dmitri).
 *
 * Such a key is loose on purpose, so the linking rule that reads it is strict: the dates of birth
 * must agree (the same complete date for a two-part name), and a conflicting nationality or gender
 * keeps two listings apart.
 */
import { normaliseCountry } from './countries.ts';
import type { ListedPerson } from './types.ts';

const VOWELS = /[aeiou]/;

/** One name part's comparison key ("aleksey", "alexei" and "alexey" all give "alksi"). */
export function transliteratedPart(part: string): string {
  let s = part
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z]/g, '');
  s = s
    .replace(/x/g, 'ks')
    .replace(/ph/g, 'f')
    .replace(/w/g, 'v')
    .replace(/ck/g, 'k')
    .replace(/q/g, 'k')
    .replace(/tz/g, 'ts')
    .replace(/dzh|dj/g, 'j')
    .replace(/([kgdt])h/g, '$1')
    .replace(/y/g, 'i')
    .replace(/(.)\1+/g, '$1');
  if (s.length <= 1) return s;
  const inner = s.slice(1, -1).replace(/[aeiou]/g, '');
  const last = s.at(-1) ?? '';
  return `${s[0]}${inner}${VOWELS.test(last) ? `${last === 'a' ? 'a' : 'v'}` : last}`.replace(
    /(.)\1+/g,
    '$1',
  );
}

/** A Russian or Turkic patronymic (Viktorovich, Ivanovna, Ogly), which some lists leave out. */
const PATRONYMIC = /(ovich|evich|ovych|evych|ovna|evna|ichna|ogly|oglu|kyzy)$/;

/**
 * The comparison keys of a full name: its parts' keys in any order, and the same without a
 * patronymic when at least two other parts remain. Parts of one letter (initials) are left out;
 * a name not written in Latin letters has none.
 */
export function transliterationKeys(parts: readonly string[]): string[] {
  // Latin-script names only: another script's name is compared through its lists' romanisations.
  if (!parts.every((p) => /^[\p{Script=Latin}\p{N}]+$/u.test(p))) return [];
  const plain = parts.filter((p) => p.length > 1 && !/^\p{N}+$/u.test(p));
  const keys = [plain.map(transliteratedPart).sort().join(' ')];
  const withoutPatronymic = plain.filter((p) => !PATRONYMIC.test(p));
  if (withoutPatronymic.length >= 2 && withoutPatronymic.length < plain.length)
    keys.push(withoutPatronymic.map(transliteratedPart).sort().join(' '));
  return keys;
}

/** The listings disagree on nationality (both state one, none shared) or on gender. */
export function conflictingFacts(a: ListedPerson, b: ListedPerson): boolean {
  const gender = (p: ListedPerson) => p.gender?.trim().charAt(0).toLowerCase() || undefined;
  if (gender(a) && gender(b) && gender(a) !== gender(b)) return true;
  const countries = (p: ListedPerson) =>
    new Set(p.nationalities.map((n) => normaliseCountry(n) ?? n.toLowerCase()));
  const [left, right] = [countries(a), countries(b)];
  return left.size > 0 && right.size > 0 && ![...left].some((c) => right.has(c));
}
