/**
 * How many people a match's name parts could belong to: each aligned listed part weighed by its
 * share of the population (population-names.ts: in the subject's nationality when given, else the
 * highest share in any country) and by its share of the listed people (list rarity, the other
 * input), the larger of the two. The product of the parts' shares estimates the share of people
 * bearing all of them; from `COMMON_JOINT_SHARE` on, the name alone is weak evidence (results.ts).
 */

import { countryNameForCode } from '../watchlists/countries.ts';
import type { NameIndex } from './name-index.ts';
import type { AlignedPair } from './name-score.ts';
import {
  FEMININE_SURNAME_RE,
  fatherNamesOf,
  MASCULINE_SURNAME_RE,
  PATRONYMIC_ENDING_RE,
  type PopulationNames,
  populationNames,
} from './population-names.ts';
import { editDistance, sameRendering } from './string-similarity.ts';
import { isPatronymic } from './token-similarity.ts';

/**
 * Share of people bearing all the matched parts from which a match on them is weak evidence
 * without a date of birth: 1 in 100,000, a thousand namesakes in a country of 100 million
 * ("José Silva" in Brazil: 3% × 10%; "Nguyen" and a syllable listed once: 38% × 1 in 10,000).
 */
export const COMMON_JOINT_SHARE = 1e-5;
/**
 * The same when the query is the listed name's two ends, its middle left out ("Vladimir IVANOV"
 * for IVANOV, Vladimir Aleksandrovich): 3 in 10,000, parts borne by a few percent each ("José
 * Silva", "Nguyen Dung"). Tuned on the dev halves (eval: variants, population innocents).
 */
export const MIDDLE_LEFT_OUT_JOINT_SHARE = 3e-4;
/**
 * A listed initial the query's part begins with ("Akbar Ali RANA" for AKBAR A. RANA): about one
 * person in ten shares it.
 */
const AGREEING_INITIAL_SHARE = 0.1;
/** A part borne by at least this share of a population is named as common in the narrative. */
const COMMON_PART_SHARE = 0.001;

/** One aligned listed part and how many bear it. */
export interface PartShare {
  /** The listed part, folded ("santos"); or the query's spelling of it when that is commoner ("nicolas"). */
  text: string;
  /** The larger of its population share and its list share. */
  share: number;
  /** Spelt by the query more than a typo apart: it agrees as many names do. */
  near?: boolean;
  /** Taken as one name in `SYLLABLE_SHARE` where the table lacks the nation's given names. */
  assumed?: boolean;
  /** Its population share, and where, when the population table has it. */
  population?: { share: number; country: string };
}

export interface Commonness {
  parts: PartShare[];
  /** Product of the parts' shares: the share of people estimated to bear them all. */
  joint: number;
}

/**
 * A listed part's share of the listed people, from its bearer weight (name-rarity.ts: weight =
 * log(n / bearers) / log(n / 3), so bearers / n = exp(-weight × log(n / 3))).
 */
function listShare(index: NameIndex, id: number): number {
  const n = index.people.length;
  // A handful of listed people (a test's lists) is no sample of anyone's names.
  if (n < MIN_LIST_SAMPLE) return 0;
  return Math.exp(-index.nameWeights[id] * Math.log(n / 3));
}

/** Listed people needed before their names' shares stand for how common a name is. */
const MIN_LIST_SAMPLE = 1000;

/**
 * Countries whose names are a surname of a few dozen and given syllables of a few hundred: a
 * syllable the table does not have is still about one name in `SYLLABLE_SHARE` there.
 */
const SYLLABIC_COUNTRIES: ReadonlySet<string> = new Set(['VN', 'CN', 'TW', 'KR']);
/** Share of a given syllable of those countries when the table does not have it (one in 500). */
const SYLLABLE_SHARE = 0.002;
/** A part borne by at least this share of a country marks a name as of it, wherever it is. */
const DOMINANT_SURNAME_SHARE = 0.1;
/** Countries whose table is of family names written as Chinese or Korean syllables. */
const EAST_ASIAN_SURNAME_COUNTRIES = ['CN', 'TW', 'KR'] as const;
/** A family name of one person in 500 there is one of the few hundred such names. */
const EAST_ASIAN_SURNAME_SHARE = 0.002;
/** A surname borne by at least this share of a syllabic-naming country marks the name as of it. */
const SYLLABIC_SURNAME_SHARE = 0.02;
/**
 * A listed part the query spells more than a typo apart (two letters or more: "Sokolov" for
 * "SOBOLEV") stands for about one name in this many: such a pair agrees as many names do.
 */
const NEAR_SHARE = 0.01;
/**
 * Aligned listed parts from which a near part counts as `NEAR_SHARE`: a two-part name with a
 * misspelt part ("Pablo Maryns" for Pablo MARIN) is the typo it looks like.
 */
const NEAR_PARTS_FROM = 3;
/** A patronymic whose father's name the table does not have is still one of a few hundred. */
const PATRONYMIC_SHARE = 0.005;

/** Vietnamese middle names that mark a man (Văn) or a woman (Thị): no evidence of who. */
const MIDDLE_MARKERS: ReadonlySet<string> = new Set(['van', 'thi']);

export class CommonnessModel {
  private readonly population: PopulationNames = populationNames();

  /**
   * Whether `text` (a folded name part) is a family name borne by at least `EAST_ASIAN_SURNAME_SHARE`
   * in China, Taiwan or Korea ("chen", "chan", "lee", "xu").
   */
  isEastAsianSurname(text: string): boolean {
    for (const code of EAST_ASIAN_SURNAME_COUNTRIES)
      if (this.population.shareIn(text, code) >= EAST_ASIAN_SURNAME_SHARE) return true;
    return false;
  }

  /** ISO code of a canonical country name, for `of`. */
  codeOf(country: string | undefined): string | undefined {
    return this.population.codeOf(country);
  }

  /** A part's population share: as written, a woman's form as the man's, a patronymic as its father's name. */
  private populationShare(text: string, patronymic: boolean, code: string | undefined) {
    const own = this.population.shareOfAnySpelling(text, code);
    if (patronymic) {
      // As many bear a patronymic as have a father of that name: the table may hold the
      // patronymic itself only as a rare surname somewhere ("Sergeevich" in France).
      const father = this.fatherShare(text, code);
      return father && (!own || father.share > own.share) ? father : own;
    }
    if (own) return own;
    if (FEMININE_SURNAME_RE.test(text)) return this.population.shareOfAnySpelling(text.slice(0, -1), code);
    return undefined;
  }

  /**
   * The largest share of a name a patronymic's stem can be its father's: the stem itself or the
   * stem and an ending ("serge" is French; "sergey" the Russian father of "sergeevich").
   */
  private fatherShare(patronymic: string, code: string | undefined) {
    const stem = patronymic.replace(PATRONYMIC_ENDING_RE, '');
    let best: ReturnType<PopulationNames['shareOf']>;
    for (const father of fatherNamesOf(stem)) {
      const found = this.population.shareOfAnySpelling(father, code);
      if (found && (!best || found.share > best.share)) best = found;
    }
    return best;
  }

  /** Whether the table has the other sex's form of a Slavic surname ("osipov" / "osipova"). */
  private hasOtherSexForm(text: string): boolean {
    const other = MASCULINE_SURNAME_RE.test(text)
      ? `${text}a`
      : FEMININE_SURNAME_RE.test(text)
        ? text.slice(0, -1)
        : text.endsWith('skiy') || text.endsWith('sky')
          ? text.replace(/sk(?:iy|y)$/, 'skaya')
          : text.endsWith('skaya')
            ? text.replace(/skaya$/, 'skiy')
            : undefined;
    return other !== undefined && this.population.shareOfAnySpelling(other) !== undefined;
  }

  private hasFatherName(patronymic: string, code: string | undefined): boolean {
    return this.fatherShare(patronymic, code) !== undefined;
  }

  /**
   * The shares of the listed parts `ids` (vocabulary ids) for a subject of country `code`, the
   * parts aligned as `pairs` say; `surname`, the listed surname's id; `ownSpellings`, the query's
   * parts as their bearer spells them (not read from a script that leaves vowels out).
   */
  of(
    index: NameIndex,
    ids: readonly number[],
    code: string | undefined,
    pairs: readonly AlignedPair[] = [],
    surname = -1,
    ownSpellings?: ReadonlySet<string>,
  ): Commonness {
    let parts: PartShare[] = [];
    // A listed surname that ends like a patronymic is one only when its father's name is known
    // (NEKRASHEVICH, LUKASHEVICH are Belarusian surnames, not patronymics).
    const patronymicAt = ids.map(
      (id) =>
        isPatronymic(index.vocab[id]) && (id !== surname || this.hasFatherName(index.vocab[id].text, code)),
    );
    const found = ids.map((id, k) => this.populationShare(index.vocab[id].text, patronymicAt[k], code));
    // A name of a syllabic-naming country: one of its parts is a surname common there.
    const syllabic = found.some(
      (p) => p !== undefined && SYLLABIC_COUNTRIES.has(p.country) && p.share >= SYLLABIC_SURNAME_SHARE,
    );
    // A surname borne by a tenth of a nation or more (Singh, Nguyen, Silva, Kim) marks the name as
    // of it, and the table may lack that nation's given names: one it does not have is still about
    // one name in `SYLLABLE_SHARE` there ("Radha Singh").
    const dominant = found.some((p) => p !== undefined && p.share >= DOMINANT_SURNAME_SHARE);
    let joint = 1;
    const seen = new Set<string>();
    let patronymics = 0;
    for (let k = 0; k < ids.length; k++) {
      const text = index.vocab[ids[k]].text;
      // A name repeated ("Abdullah ABDULLAH") is one part's evidence, not the square of it.
      if (seen.has(text)) continue;
      seen.add(text);
      if (syllabic && MIDDLE_MARKERS.has(text)) continue;
      const population = found[k];
      const unrecordedSyllable =
        population === undefined && (dominant || (syllabic && text.length <= 6)) ? SYLLABLE_SHARE : 0;
      const patronymic = patronymicAt[k] ? PATRONYMIC_SHARE : 0;
      const pair = pairs.find((p) => p.listed === text);
      // A part spelt two letters or more apart from its listed counterpart (not a rendering of
      // another script), in a name of three parts or more: one of many near names.
      const near =
        NEAR_PARTS_FROM <= ids.length &&
        pair !== undefined &&
        pair.query.length > 1 &&
        pair.listed === text &&
        editDistance(pair.query, text, 3) >= 2 &&
        !sameRendering(pair.query, text);
      // A part the query spells otherwise ("Nicolas" for NICOLAU) is as common as the commoner of
      // the two: everyone bearing the query's spelling agrees with the listed one as well. (Not a
      // reading of Arabic or Hebrew script, which `ownSpellings` leaves out: the matcher's guess
      // at the vowels, not the bearer's spelling.)
      const asQuerySpells =
        pair && pair.query !== text && ownSpellings?.has(pair.query)
          ? this.population.shareOfAnySpelling(pair.query, code)
          : undefined;
      const share = Math.max(
        population?.share ?? 0,
        asQuerySpells?.share ?? 0,
        listShare(index, ids[k]),
        unrecordedSyllable,
        patronymic,
        near ? NEAR_SHARE : 0,
      );
      const spelt = pair && asQuerySpells && asQuerySpells.share >= share ? pair.query : undefined;
      const part: PartShare = spelt ? { text: spelt, share } : { text, share };
      if (unrecordedSyllable >= share && population === undefined) part.assumed = true;
      if (spelt) part.population = asQuerySpells;
      else if (population) part.population = population;
      if (near) part.near = true;
      parts.push(part);
      joint *= share;
      if (patronymicAt[k]) patronymics++;
    }
    // Listed parts the query writes as one ("Alkhatib" for Ali KHATIB) are as common as the
    // commoner of the two readings: everyone named Alkhatib agrees with them as well.
    for (const p of pairs) {
      if (!p.listed.includes(' ') || !ownSpellings?.has(p.query)) continue;
      const asOne = this.population.shareOfAnySpelling(p.query, code);
      if (!asOne) continue;
      const words = p.listed.split(' ');
      const merged = parts.filter((part) => words.includes(part.text));
      const product = merged.reduce((x, part) => x * part.share, 1);
      if (merged.length < 2 || asOne.share <= product) continue;
      parts = [
        ...parts.filter((part) => !merged.includes(part)),
        { text: p.query, share: asOne.share, population: asOne },
      ];
      joint = (joint / product) * asOne.share;
    }
    // One distinct part is left to the single-part rules of name-score.ts ("Abdullah ABDULLAH"
    // too); a Văn or Thị beside it is no second part, so "Nguyen Thi" rests on NGUYEN alone.
    for (const p of pairs)
      if (p.listed.length === 1 && p.query.length > 1 && p.query[0] === p.listed)
        joint *= AGREEING_INITIAL_SHARE;
    // A surname with a man's and a woman's form (Osipov, Osipova) is borne by one sex only, as is
    // the given name beside it: the two agree twice as often as their shares of everyone say. So
    // does a patronymic ("Sergeevich" is a man's, "Sergeevna" a woman's): each part of one sex
    // beside the given name doubles the joint share ("Igor Sergeevich Ivanov": four times).
    const oneSex = parts.filter((p) => this.hasOtherSexForm(p.text)).length + patronymics;
    if (parts.length >= 2 && oneSex > 0) joint *= 2 ** Math.min(oneSex, parts.length - 1);
    return { parts, joint: seen.size < 2 ? 0 : joint };
  }
}

/** "7%", "0.3%", "1 in 12,000". */
function shareInWords(share: number): string {
  if (share >= 0.01) return `${Math.round(share * 100)}%`;
  if (share >= 0.001) return `${(share * 100).toFixed(1)}%`;
  // Thousands separated by hand: toLocaleString builds an Intl formatter on every call.
  return `1 in ${String(Math.round(1 / share)).replace(/\B(?=(\d{3})+$)/g, ',')}`;
}

/**
 * Why the name alone is weak, in words: "SANTOS is borne by about 7% of people in Brazil; the
 * match rests on it and a frequent name, JOSE (about 3% in Brazil)".
 */
export function commonnessInWords(c: Commonness): string {
  const sorted = [...c.parts].sort((a, b) => b.share - a.share);
  const [first, ...rest] = sorted;
  if (!first) return 'common name';
  const where = (p: PartShare) =>
    p.near
      ? ', as spelt only near'
      : p.assumed
        ? ', as a name of that nation'
        : p.population && p.population.share >= p.share
          ? ` in ${countryNameForCode(p.population.country) ?? p.population.country}`
          : ' on the lists';
  const head = `${first.text.toUpperCase()} is borne by about ${shareInWords(first.share)} of people${where(first)}`;
  if (rest.length === 0) return `${head}; the match rests on it alone`;
  const others = rest.map((p) =>
    p.share >= COMMON_PART_SHARE
      ? `a frequent name, ${p.text.toUpperCase()} (about ${shareInWords(p.share)}${where(p)})`
      : `${p.text.toUpperCase()}`,
  );
  return `${head}; the match rests on it and ${others.join(' and ')}`;
}

let model: CommonnessModel | undefined;

/** The one model of the process, its table parsed on first use (createMatcher asks for it). */
export function commonnessModel(): CommonnessModel {
  model ??= new CommonnessModel();
  return model;
}
