/**
 * Result building: each best-scoring listed person becomes a match (name band, date of birth,
 * nationality and location compared, risk level, adjusted score, explanation), and the matches
 * of each check type become its result with a narrative.
 */

import { PEP_TIER_LABELS } from '../watchlists/pep-tiers.ts';
import type { CheckType, ListedDob, ListedPerson, ListId, ListSummary } from '../watchlists/types.ts';
import type { Scored } from './candidates.ts';
import {
  COMMON_JOINT_SHARE,
  type Commonness,
  commonnessInWords,
  commonnessModel,
  MIDDLE_LEFT_OUT_JOINT_SHARE,
} from './commonness.ts';
import {
  compareCountry,
  compareDob,
  compareLocation,
  formatListedDob,
  fullQueryDate,
} from './corroboration.ts';
import { type IndexedPerson, listedNameOf, type NameIndex } from './name-index.ts';
import { LOOSE_ONLY_CAP } from './name-score.ts';
import { criminalNarrative, pepNarrative, sanctionsNarrative } from './narrative.ts';
import { anotherNameAligned, looseSurname, nearBeyondSpelling, otherFather } from './near-names.ts';
import { type NameToken, siniticKey } from './normalise.ts';
import { queryCountry } from './query-country.ts';
import { MATCH_FLOOR, matchRisk, type NameBand, nameBand, STRONG_NAME } from './risk.ts';
import type {
  CriminalResult,
  FieldExplanation,
  FieldStatus,
  Match,
  MatchCount,
  MatchListing,
  PepResult,
  RiskLevel,
  SanctionsResult,
  ScreenChecks,
  SubjectInput,
} from './types.ts';
import { maxRisk, riskRank } from './types.ts';

/** At most this many matches are returned per check, best first. */
export const MAX_MATCHES = 10;

/** The highest level a person's name other than its best-scoring one may give the match. */
const OTHER_NAME_MAX_RANK = riskRank('MEDIUM');

/**
 * Builds the screen's checks from the best-scoring name of each listed person: matches per check
 * type, best first, and a result (with narrative) for each requested check type.
 */
export function buildChecks(
  index: NameIndex,
  best: Iterable<Scored>,
  subject: SubjectInput,
  requested: ReadonlySet<CheckType>,
  listsByCategory: ReadonlyMap<CheckType, ListSummary[]>,
  maxMatches = MAX_MATCHES,
): ScreenChecks {
  const nationalityCountry = queryCountry(subject.nationality);
  const locationCountry = queryCountry(subject.location);
  const context: VerdictContext = {
    country: commonnessModel().codeOf(nationalityCountry),
    nameOnly: (subject.dob ?? '').trim() === '',
  };
  const byCategory: Record<CheckType, Match[]> = { sanctions: [], pep: [], criminal: [] };
  for (const s of best) {
    let m = toMatch(index, s, subject, nationalityCountry, locationCountry, context);
    // Another of the person's names may be the stronger match: the best score with a part spelt
    // only near can be held to a lower band than a name spelt alike. It may lift the match to
    // MEDIUM, never higher: a strong match rests on the person's best-scoring name (so a match
    // at MEDIUM or above already is not looked past).
    for (const other of s.others ?? []) {
      if (m && riskRank(m.match.risk_level) >= OTHER_NAME_MAX_RANK) break;
      const o = toMatch(index, other, subject, nationalityCountry, locationCountry, context);
      if (!o || riskRank(o.match.risk_level) > OTHER_NAME_MAX_RANK) continue;
      if (!m || riskRank(o.match.risk_level) > riskRank(m.match.risk_level)) m = o;
    }
    if (m) byCategory[index.people[s.person].category].push(m.match);
  }
  // How many matched before the cut, so a result says when it shows only the best MAX_MATCHES.
  const counts = {
    sanctions: matchCount(byCategory.sanctions, maxMatches),
    pep: matchCount(byCategory.pep, maxMatches),
    criminal: matchCount(byCategory.criminal, maxMatches),
  };
  for (const list of Object.values(byCategory)) {
    capUndatedDuplicates(list);
    list.sort((a, b) => riskRank(b.risk_level) - riskRank(a.risk_level) || b.score - a.score);
    list.splice(maxMatches);
  }

  const sanctions_result = requested.has('sanctions')
    ? {
        ...sanctionsResult(byCategory.sanctions, listsByCategory.get('sanctions') ?? []),
        ...counts.sanctions,
      }
    : null;
  const pep_result = requested.has('pep')
    ? { ...pepResult(byCategory.pep, listsByCategory.get('pep') ?? []), ...counts.pep }
    : null;
  const criminal_result = requested.has('criminal')
    ? { ...criminalResult(byCategory.criminal, listsByCategory.get('criminal') ?? []), ...counts.criminal }
    : null;
  const risk_level = maxRisk(
    [sanctions_result, pep_result, criminal_result].flatMap((r) => (r ? [r.risk_level] : [])),
  );
  return { risk_level, sanctions_result, pep_result, criminal_result };
}

/** How many of a check's matches there are, and whether the cut at `maxMatches` leaves some out. */
function matchCount(matches: readonly Match[], maxMatches: number): MatchCount {
  return { total: matches.length, truncated: matches.length > maxMatches };
}

/** A dated listing matched this much less well than an undated one still bears the same name. */
const SAME_NAME_MARGIN = 0.05;

/**
 * A contradicting date of birth wins over a DOB-less duplicate. When the subject's date of birth
 * contradicts a listed person's dates, another listing of the same name without any date (often
 * the same person on a list that prints none, the UK FCDO transcription or Canada's, left
 * unlinked) cannot raise the check to HIGH on its own: nothing could ever contradict it, so the
 * contradicted dated listing is the better evidence. It is held at MEDIUM, still an alert for the
 * analyst, with the reason in its date-of-birth explanation.
 */
function capUndatedDuplicates(matches: Match[]): void {
  const contradicted = matches.filter(
    (m) => m.explanation.dob.status === 'mismatched' && m.name_score >= STRONG_NAME,
  );
  if (contradicted.length === 0) return;
  for (const m of matches) {
    if (m.dobs.length > 0 || riskRank(m.risk_level) <= riskRank('MEDIUM')) continue;
    // The query matches the contradicted dated listing at least as well (a shorter undated name,
    // "Igor GIRKIN" beside "GIRKIN, Igor Vsevolodovich", is the same name with less of it).
    const dated = contradicted.find((d) => d.name_score >= m.name_score - SAME_NAME_MARGIN);
    if (!dated) continue;
    m.risk_level = 'MEDIUM';
    m.explanation.dob = {
      status: 'unknown',
      detail: `no date of birth listed; capped at MEDIUM: the date of birth given contradicts ${dated.primary_name} on ${dated.list_name} (id ${dated.entity_id}), a dated listing of the same name`,
    };
    m.explanation.name = {
      ...m.explanation.name,
      detail: `${m.explanation.name.detail}; capped at MEDIUM (the date of birth given contradicts a dated listing of the same name)`,
    };
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * What each corroborating field adds to a match's score (date of birth in full, nationality at
 * half, location at a fifth): orders matches of one risk level, never decides the level.
 */
export const SCORE_ADJUST: Readonly<Record<FieldStatus, number>> = {
  matched: 0.05,
  near: 0.02,
  unknown: 0,
  mismatched: -0.15,
};

/** Rarity weight from which a listed name part is rare: on a handful of listed people at most. */
const RARE_PART_WEIGHT = 0.95;
/**
 * Rarity weight below which a name part is common (a frequent given or family name: on about 50
 * or more listed people): a
 * name whose aligned parts are all below it may be many people.
 */
const COMMON_PART_WEIGHT = 0.7;
/** Aligned at least this similar, a listed surname counts as present (a variant or transliteration). */
const SURNAME_PRESENT = 0.93;
/** Aligned at least this similar, a listed surname counts as spelt exactly. */
const SURNAME_EXACT = 0.999;

/** Syllables of a name written in Han up to which it is common whatever the lists say (see below). */
const SHORT_CHINESE_NAME = 3;

/** Syllables of a query read wholly from Han (pinyin: one vowel group each); 0 for any other query. */
function hanSyllables(tokens: readonly NameToken[]): number {
  let n = 0;
  for (const t of tokens) {
    if (!t.readFromHan) return 0;
    n += t.text.match(/[aeiou]+/g)?.length ?? 0;
  }
  return n;
}

/** How many plain parts (no particle or initial) a listed name has, and its last one, the surname (-1: none). */
function plainPartsOf(index: NameIndex, nameId: number): { surname: number; plainParts: number } {
  const start = index.nameTokenStart[nameId];
  let surname = -1;
  let plainParts = 0;
  for (let k = 0; k < index.nameLengths[nameId]; k++) {
    const id = index.nameTokenIds[start + k];
    const t = index.vocab[id];
    if (t.particle || t.initial) continue;
    plainParts++;
    surname = id;
  }
  return { surname, plainParts };
}

/**
 * Whether the listed surname (vocabulary id `surname`) is rare on the lists and the query spells
 * it exactly: phonetic and skeleton similarities of other scripts' renderings are too loose for
 * the rare-surname rule.
 */
function rareSurnameSpeltAlike(index: NameIndex, s: Scored, surname: number): boolean {
  if (surname < 0 || index.weights[surname] < RARE_PART_WEIGHT) return false;
  const text = index.vocab[surname].text;
  return s.name.pairs.some((p) => p.similarity >= SURNAME_EXACT && p.listed === text);
}

/**
 * Whether a name scored below the reporting floor can still be reported: only through an exactly
 * spelt rare surname, given alone or with a full date of birth to corroborate it (`nameVerdict`).
 * Decided from the index alone, before the person is read: most names scored are below the floor.
 */
function mayReportBelowFloor(index: NameIndex, s: Scored, subject: SubjectInput): boolean {
  if (s.name.rarestMatched < RARE_PART_WEIGHT) return false;
  if (s.query.words !== 1 && fullQueryDate(subject.dob) === undefined) return false;
  return rareSurnameSpeltAlike(index, s, plainPartsOf(index, s.nameId).surname);
}

/** The name band after the rules that look past the similarity, with the reasons in words. */
interface NameVerdict {
  band: NameBand | undefined;
  /** The match is at least MEDIUM whatever the band gives (a corroborated rare surname). */
  atLeastMedium: boolean;
  /**
   * The date of birth matched only a listed year, and the name's namesakes born that year are
   * still many: the date counts as near, not as corroboration.
   */
  yearTooCommon?: boolean;
  notes: string[];
}

/** What the name rules read of the subject beside the name. */
interface VerdictContext {
  /** ISO code of the subject's nationality, when given and known: whose population weighs the parts. */
  country: string | undefined;
  /** No date of birth given: an exact namesake is then at least MEDIUM. */
  nameOnly: boolean;
}

/**
 * Aligned at least this similar, two parts are one name for the exact-namesake rule: spelt alike,
 * a known variant, or another script's rendering of it (token-similarity.ts, 0.93 and up).
 */
const EXACT_PAIR = 0.93;
/**
 * ...and for a query rendered from another script or respelt the Baltic way: a part with the
 * listed consonants and its written vowels among the listed ones (token-similarity.ts, 0.87).
 */
const RENDERED_EXACT_PAIR = 0.87;

/**
 * Whether the query is the listed name exactly: the same parts both ways (particles aside), each
 * spelt alike, as a known variant or as another script renders it, two whole parts at least, an
 * initial only as the listed name writes it.
 */
/**
 * Parts shorter than this are not read as typed with a letter wrong: a short name a letter apart
 * is mostly another name ("Hoai" / HOAN).
 */
const TYPO_PART_LENGTH = 5;

/**
 * Whether `a` is `b` typed with one letter wrong inside it ("mohanmad" / "mohammad") or two
 * inner letters swapped ("mrakov" / "markov"): the same length, neither the first letter (Fouad /
 * Souad) nor the last (Maria / Mario, a woman's and a man's name) changed, nor a letter added
 * (Husain / Husnain, Abbas / Abbasi).
 */
function isInnerTypo(a: string, b: string): boolean {
  if (a.length !== b.length || a.length < TYPO_PART_LENGTH) return false;
  let at = -1;
  let last = -1;
  for (let k = 0; k < a.length; k++) {
    if (a[k] === b[k]) continue;
    if (at < 0) at = k;
    else if (last >= 0) return false;
    else last = k;
  }
  if (at <= 0) return false;
  // One inner letter wrong, or two inner letters swapped ("Mrakov" for MARKOV).
  if (last < 0) return at < a.length - 1;
  return last === at + 1 && last < a.length - 1 && a[at] === b[last] && a[last] === b[at];
}

/**
 * How the query spells the listed name when it has the same parts both ways (particles aside),
 * two whole parts at least, an initial only as the listed name writes it: each spelt alike, as a
 * known variant or as another script renders it ('exact'); so but for one part a letter wrong
 * ('typo'); otherwise undefined.
 */
function fullNameSpelling(s: Scored): 'exact' | 'typo' | undefined {
  // A rendering of another script or a Baltic respelling spells every part as it renders it.
  const rendering = s.query.tokens.some((t) => t.transliterated || t.respelt);
  if (s.name.unmatchedQuery.length > 0 || s.name.unmatchedListed.length > 0 || s.name.pairs.length < 2)
    return undefined;
  let parts = 0;
  let typos = 0;
  for (const p of s.name.pairs) {
    const initial = p.query.length <= 1 || p.listed.length <= 1;
    // An initial counts when both sides write the same one ("Mohammed A. ALI" as listed).
    if (initial) {
      if (p.similarity < 1 || p.query !== p.listed) return undefined;
      continue;
    }
    parts++;
    if (p.similarity >= (rendering ? RENDERED_EXACT_PAIR : EXACT_PAIR)) continue;
    if (!isInnerTypo(p.query, p.listed) || ++typos > 1) return undefined;
  }
  if (parts < 2) return undefined;
  return typos === 0 ? 'exact' : 'typo';
}

function nameVerdict(
  index: NameIndex,
  s: Scored,
  weakAlias: boolean,
  dob: FieldStatus,
  fullDobMatched: boolean,
  listedYears: number,
  context: VerdictContext,
  nationalityMismatched: boolean,
): NameVerdict {
  let band = nameBand(s.name.score, weakAlias);
  const notes: string[] = [];
  let atLeastMedium = false;
  const { surname, plainParts } = plainPartsOf(index, s.nameId);
  const surnameText = surname >= 0 ? index.vocab[surname].text : '';
  const surnamePresent = s.name.pairs.some(
    (p) => p.similarity >= SURNAME_PRESENT && p.listed.split(' ').includes(surnameText),
  );
  const rareSurname = rareSurnameSpeltAlike(index, s, surname);
  if (weakAlias) {
    // A weak alias of one name part (a nickname, a title and one name) cannot carry a match.
    if (plainParts <= 1 && band !== undefined) band = 'weak';
    // Nor can one the query spells only near ("Rola Ali" / the low-quality alias ALI DI ROMA):
    // the publisher doubts the spelling itself, so another name near it is no evidence (a letter
    // mistyped inside a part still is: "Mahnoud ZAHAR").
    if (band !== undefined && dob !== 'matched' && hasNearSpelling(s, true)) band = 'weak';
    notes.push('weak alias only');
  }
  if (plainParts >= 2 && !surnamePresent && s.name.unmatchedListed.includes(surnameText)) {
    // A listed surname the query lacks is another family until shown otherwise.
    if (band === 'strong') band = 'partial';
    notes.push('surname missing');
  }
  // The listed parts the query shares and how many bear them, read once for the rules that ask.
  const reading = new MatchReading(index, s, context, surname);
  // A PEP's level says which office, not how likely the person is the listed one (rules below).
  const pep = index.people[s.person].category === 'pep';
  const syllables = hanSyllables(s.query.tokens);
  if (syllables > 0 && syllables <= SHORT_CHINESE_NAME && band !== undefined && dob !== 'matched') {
    // Written in Han, a Chinese name is a surname and one or two syllables out of a few hundred:
    // the same name is carried by many people, and the lists cannot tell how many (no population
    // name data ships; the few Chinese names listed make every syllable look rare). Without the
    // date of birth it is at most weak: reported for the analyst to see, not an alert.
    band = 'weak';
    notes.push('short Chinese name');
  }
  if (weakenable(band, dob) && s.name.unmatchedListed.length > 0 && hasNearSpelling(s)) {
    // "Roberto Moraes" / "Roberto MORALES Ojeda", "Teresa Costa" / "Teresa MARTINEZ Acosta": a part
    // only spelt near its listed counterpart, and listed parts the query lacks, is how namesakes of
    // other families and languages look. Without the date of birth it is a lead for the analyst,
    // not an alert. A typo in a name given in full is still an alert, and a typo with parts left
    // out is one with the date of birth.
    band = 'weak';
    notes.push('a part spelt only near, and listed parts missing');
  }
  // A part spelt near its listed counterpart but itself another name (near-names.ts).
  const anotherName = weakAlias ? undefined : anotherNameAligned(index, s);
  if (weakenable(band, dob) && anotherName) {
    // "Евгений Малков" / Yevgeny MARKOV, "Mohamed Hassan" / Mohamed HASSAD, "Анна Сергеевна
    // Иванова" / Elena Sergeevna IVANOVA: the part is a name many people bear, with consonants of
    // its own, not a misspelling or another spelling of the listed one: a namesake of another
    // person in all but that part. Without the date of birth it is a lead, not an alert.
    band = 'weak';
    notes.push(`${anotherName[0].toUpperCase()} is another name than ${anotherName[1].toUpperCase()}`);
  }
  const fathers = weakenable(band, dob) ? otherFather(index, s) : undefined;
  if (fathers) {
    // "Svetlana Karenovna Savelyeva" / SAVELYEVA, Svetlana Vladimirovna (matched on her alias
    // "Světlana Saveljeva"): a patronymic names the father, and the listed person's is another
    // man. A namesake of another family until the date of birth says otherwise.
    band = 'weak';
    notes.push(`${fathers[0].toUpperCase()} names another father than ${fathers[1].toUpperCase()}`);
  }
  if (weakenable(band, dob) && looseSurname(index, s)) {
    // "Андрей Леонидович Чернишев" / KRASOV, Andrey Leonidovich: the given name and patronymic
    // agree, the surnames only by consonants another script's skeleton lets meet. Another family
    // until the date of birth says otherwise.
    band = 'weak';
    notes.push('surname only loosely alike');
  }
  if (band === 'strong' && dob !== 'matched' && isCommonName(index, reading.sharedParts())) {
    band = 'partial';
    notes.push('common name');
  }
  if (band === 'strong' && dob !== 'matched' && !pep && twoPartsNotBothRare(index, reading.sharedParts())) {
    // "Roman Semenov" / "SEMENOV, Roman": a given name and a surname are shared by many people,
    // however few of them the lists hold (a surname rare on the lists may be common in its
    // country). Without the date of birth they make a likely sanctions or criminal match only
    // when both are rare. (A PEP's level says which office, not how likely the person is listed.)
    band = 'partial';
    notes.push('two name parts, not both rare, without the date of birth');
  }
  if (
    band === 'partial' &&
    dob !== 'matched' &&
    listedEndMissing(index, s) &&
    isCommonName(index, reading.sharedParts())
  ) {
    // "João Silva" / "Anibal Joao Da Silva MELO", "Luís Garcia" / "LUIS FRANCISCO GARCIA REYES": two
    // common parts found inside a longer listed name whose first or last part the query lacks. In
    // Portuguese and Spanish naming many people carry both; without the date of birth it is a lead
    // for the analyst, not an alert. (The listed name's two ends with its middle left out, the
    // common way of shortening it, stay a match.)
    band = 'weak';
    notes.push('a common name inside a longer listed name, an end of it missing');
  }
  if (
    weakenable(band, dob) &&
    s.query.tokens[0]?.readFromVietnamese === true &&
    s.name.unmatchedQuery.some((t) => !VIETNAMESE_FILLERS.has(t))
  ) {
    // "Tuấn Hoàng Hồ" / "Tuan Hoang" (an FBI alias): a Vietnamese name written with its marks is
    // a few syllables, each of them the person's; one the listed name lacks makes another
    // person's name until the date of birth says otherwise. (Văn and Thị, a man's and a woman's
    // middle name that lists often leave out, do not count.)
    band = 'weak';
    notes.push('a syllable of the Vietnamese name not on the listed name');
  }
  if (weakenable(band, dob) && vietnameseSyllablesApart(s)) {
    // "Huynh Thi" / THI HUONG DO, "Luong Thanh" / Le Thanh LONG: a Vietnamese name written without
    // its marks is a few one-syllable names out of a few hundred; a syllable a letter or two from
    // the listed one is another name ("Huynh" is not "Huong"), and Văn or Thị is no evidence.
    band = 'weak';
    notes.push(
      'a Vietnamese syllable spelt only near the listed one or left out, or only Văn or Thị shared beside one',
    );
  }
  if (
    weakenable(band, dob) &&
    dob === 'unknown' &&
    !context.nameOnly &&
    nearBeyondSpelling(index, s, isInnerTypo)
  ) {
    // "Hisham Taik" born 1980 / Hisham TAWFIK, a head of government listed without a date: given
    // the date of birth the listing cannot confirm, the name alone must carry the match, and a
    // part that is neither the listed one's spelling nor a typo of it does not.
    band = 'weak';
    notes.push('a part spelt only near, and no listed date of birth to confirm it');
  }
  const eastAsianApart = weakenable(band, dob) && eastAsianSyllablesApart(s);
  if (eastAsianApart) {
    // "Zhang Xiaoying" / ZHANG, Xiaoming, "Xu Fei" / WEI, Su, "Chun Lan" / SUN Chunlan: a Chinese
    // or Korean name is a family name of a few hundred and one or two syllables of a few hundred
    // more; a syllable a letter from the listed one is another name, and one given name run
    // together without the family name's agreement is borne by very many.
    band = 'weak';
    notes.push(
      'a Chinese or Korean name agreeing on one part, on a syllable spelt only near, or with a listed syllable left out',
    );
  }
  if (weakenable(band, dob) && restsOnAnInitial(s)) {
    // "Maia Haley" / "Haley M. Stevens", "Munsif al-Ashraf" / "ASHRAF, Haji M.": a whole name part
    // taken for a listed initial, with one other part at most spelt alike, is one name and a letter.
    band = 'weak';
    notes.push('one name part and an initial');
  }
  // A part that is another name is no typo of the listed one, nor its spelling.
  const spelling = weakAlias || anotherName ? undefined : fullNameSpelling(s);
  // A date of birth that matched only a listed year (or one of several) is shared by about one
  // person in fifty a year: it corroborates a name only as far as the name's namesakes are few.
  const yearOnly = dob === 'matched' && !fullDobMatched;
  let yearTooCommon = false;
  if (yearOnly && band !== undefined) {
    // "Sergey Bogdanov" born in 1973 / Sergei Vladimirovich BOGDANOV, listed as born in 1973:
    // thousands bear the name in Russia, and a fiftieth of them were born that year.
    const c = reading.commonness();
    if (c.joint * YEAR_SHARE * Math.max(1, listedYears) >= COMMON_JOINT_SHARE) {
      band = 'weak';
      yearTooCommon = true;
      notes.push(
        `${commonnessInWords(c)}; born in a listed year, as about 1 in ${Math.round(1 / YEAR_SHARE)} are`,
      );
    }
  }
  if (band !== undefined && band !== 'weak' && dob !== 'matched') {
    // "José Silva" / "Jose VIERA DA SILVA", "Nguyen Dung" / "Nguyen Chi DUNG": parts that many
    // people bear, in the subject's country or (nationality not given) wherever they are
    // commonest, are weak evidence however well they are spelt. A rare part keeps the match (the
    // product of the shares is then small), and so does an agreeing date of birth.
    const c = reading.commonness();
    // The listed name's two ends with its middle left out ("Vladimir IVANOV" for IVANOV, Vladimir
    // Aleksandrovich) is how people shorten their own name: weak only when its parts are very common.
    // (A listed initial left out is no name left out: "Akbar Rana" for AKBAR A. RANA.)
    const middleLeftOut =
      s.name.unmatchedQuery.length === 0 &&
      s.name.unmatchedListed.some((t) => t.length > 1) &&
      !listedEndMissing(index, s);
    // That allowance is for a screen by name alone, where a shortened name is all the customer
    // gave. Given a date of birth a sanctions or criminal listing cannot confirm (it has none),
    // the customer has given all it has and the listing cannot settle the match: a name borne by
    // hundreds is then a lead, not an alert ("Никита Дмитриев", born 1980, / Nikita DMITRIEV, and
    // "Stanislav Popov", born 1985, / Stanislav Sergeyevich POPOV, both UK-listed without a date).
    // A PEP keeps the common bar: its level says which office (the contract: Tier 1 is HIGH).
    const bar =
      dob === 'unknown' && !context.nameOnly && !pep
        ? LIKELY_JOINT_SHARE
        : middleLeftOut && context.nameOnly
          ? MIDDLE_LEFT_OUT_JOINT_SHARE
          : COMMON_JOINT_SHARE;
    // A name repeated ("Mohamed Mohammed" / MOHAMED, Mohamed Omar) is one name's evidence, its
    // share, when the listed name has more; the whole of "Abdullah ABDULLAH" is left to the
    // single-part rules of name-score.ts.
    const repeatedOnly =
      c.joint === 0 && c.parts.length === 1 && s.name.unmatchedListed.some((t) => t.length > 1);
    const share = repeatedOnly ? c.parts[0].share : c.joint;
    if (share >= bar) {
      band = 'weak';
      notes.push(commonnessInWords(c));
    } else if (band === 'strong' && share >= LIKELY_JOINT_SHARE && (!pep || measuredShares(c))) {
      // "Luis Silva Soares" / LUIS SOARES DA SILVA, "Yuris Viktorovich Zaytsev" / ZAYTSEV, Yuriy
      // Viktorovich: below the common bar, the name is still borne by hundreds in a large nation
      // (9 in a million, 1,800 in Brazil): a possible sanctions or criminal match, not a likely
      // one, until the date of birth says so. A PEP too ("Leah Scott" / Leah SCOTT, a Bermudan
      // minister: 8 in a million in the UK), but only on shares the population table measured: a
      // part it lacks is assumed as common as its floor, which holds no head of state down
      // ("Vladimir Putin", "Sun Chunlan"). The contract's HIGH is a strong match on a Tier 1 PEP.
      band = 'partial';
      notes.push(`${commonnessInWords(c)}; about ${perMillion(share)} in a million bear the whole name`);
    }
  }
  // A rendering of another script held to the loose cap agrees with the listed name only by its
  // consonants: not the listed name exactly ("jarod milr" / Gerd MUELLER).
  const heldLoose = s.query.tokens.some((t) => t.transliterated) && s.name.score <= LOOSE_ONLY_CAP;
  if (
    spelling &&
    // A Chinese or Korean syllable a letter from the listed one is another name, not a typo.
    !(spelling === 'typo' && eastAsianApart) &&
    !heldLoose &&
    context.nameOnly &&
    dob !== 'mismatched' &&
    !nationalityMismatched &&
    band === 'weak'
  ) {
    // The contract's LOW means "likely a different person": a name that is a listed person's
    // exactly cannot be said to be that by name alone, however common it is, nor can the full
    // name typed with a letter wrong ("Mohanmad ESLAMI").
    atLeastMedium = true;
    notes.push(
      spelling === 'exact'
        ? "the listed person's full name exactly: at least MEDIUM by name alone"
        : "the listed person's full name, a letter apart: at least MEDIUM by name alone",
    );
  }
  // Only the date of birth corroborates: a surname rare on the lists may still be common in its
  // country, so a matching nationality raised innocent people (eval: negatives per 1,000).
  if (rareSurname && dob !== 'mismatched') {
    if (fullDobMatched) {
      atLeastMedium = true;
      notes.push('rare surname corroborated by the full date of birth');
    } else if (s.query.words === 1) {
      atLeastMedium = true;
      notes.push('rare surname alone');
    }
    band ??= atLeastMedium ? 'weak' : undefined;
  }
  return yearTooCommon ? { band, atLeastMedium, notes, yearTooCommon } : { band, atLeastMedium, notes };
}

/**
 * Share of people bearing all the matched parts from which a strong name is only partial without
 * a date of birth: 1 in a million, about 150 namesakes in Russia, 200 in Brazil.
 */
const LIKELY_JOINT_SHARE = 1e-6;

/** Whether every part's share is the population table's, not assumed (`PartShare.population`). */
function measuredShares(c: Commonness): boolean {
  return c.parts.every((p) => p.population !== undefined && !p.assumed);
}

/** A share as a count per million people, for the narrative (2 significant digits). */
function perMillion(share: number): string {
  const n = share * 1e6;
  return n >= 10 ? String(Math.round(n)) : String(Math.round(n * 10) / 10);
}

/**
 * Whether a rule may still hold the match to the weak band: it is above it, and the date of birth
 * has not corroborated it. (Functions here are declared once, not as closures made per match: a
 * match is read for every listed person scored at the floor or above.)
 */
function weakenable(band: NameBand | undefined, dob: FieldStatus): boolean {
  return band !== undefined && band !== 'weak' && dob !== 'matched';
}

/** What `nameVerdict`'s rules read of a match, each worked out at the first rule that asks. */
class MatchReading {
  private shared: number[] | undefined;
  private common: Commonness | undefined;

  constructor(
    private readonly index: NameIndex,
    private readonly s: Scored,
    private readonly context: VerdictContext,
    private readonly surname: number,
  ) {}

  /** The listed parts the query shares (`alignedListedParts`). */
  sharedParts(): number[] {
    this.shared ??= alignedListedParts(this.index, this.s);
    return this.shared;
  }

  /** How many bear the parts the match rests on (commonness.ts). */
  commonness(): Commonness {
    this.common ??= commonnessModel().of(
      this.index,
      this.sharedParts(),
      this.context.country,
      this.s.name.pairs,
      this.surname,
      ownSpellings(this.s),
    );
    return this.common;
  }
}

/** Share of people born in one given year: adults span about fifty years of birth. */
const YEAR_SHARE = 1 / 50;

/** How many years the listed dates of birth cover (several years, or a range). */
function listedYearCount(dobs: readonly ListedDob[]): number {
  let years = 0;
  for (const d of dobs) years += d.kind === 'range' ? d.to - d.from + 1 : 1;
  return years;
}

/** Vietnamese middle names that mark a man (Văn) or a woman (Thị), often left out by the lists. */
const VIETNAMESE_FILLERS = new Set(['van', 'thi']);
/** Vietnamese family names, folded: together they are borne by most Vietnamese. */
const VIETNAMESE_FAMILY_NAMES_FOLDED: ReadonlySet<string> = new Set(
  'nguyen tran le pham hoang huynh phan vu vo dang bui do ho ngo duong ly truong dinh doan trinh luong lam ha to'.split(
    ' ',
  ),
);
/** Longest Vietnamese syllable, folded ("nghieng"). */
const VIETNAMESE_SYLLABLE = 7;

/**
 * Whether the query reads as a Vietnamese name written without marks (two parts or more, every
 * part a syllable, one a Vietnamese family name) matched through a syllable spelt only near its
 * listed counterpart, through a shared Văn or Thị beside at most one other syllable, or leaving
 * out a listed syllable other than Văn or Thị.
 */
function vietnameseSyllablesApart(s: Scored): boolean {
  const tokens = s.query.tokens;
  if (tokens.length < 2 || tokens.some((t) => t.transliterated || t.text.length > VIETNAMESE_SYLLABLE))
    return false;
  if (!tokens.some((t) => VIETNAMESE_FAMILY_NAMES_FOLDED.has(t.text))) return false;
  // A listed syllable left out but Văn or Thị ("Tran Anh" / Tran Tuan ANH: Tuấn Anh is one given
  // name) leaves another person's name.
  if (s.name.unmatchedListed.some((t) => t.length > 1 && !VIETNAMESE_FILLERS.has(t))) return true;
  let real = 0;
  for (const p of s.name.pairs) {
    if (p.query.length <= 1 || p.listed.length <= 1) continue;
    if (p.similarity < FIRM_PAIR) return true;
    if (!VIETNAMESE_FILLERS.has(p.query)) real++;
  }
  return real <= 1 && s.name.pairs.some((p) => VIETNAMESE_FILLERS.has(p.query));
}

/**
 * The query's parts as their bearer spells them: not read from a script that leaves vowels out,
 * whose Latin reading is the matcher's guess.
 */
function ownSpellings(s: Scored): Set<string> {
  return new Set(s.query.tokens.filter((t) => !t.vowelPoor && !t.readFromAbjad).map((t) => t.text));
}

/** Longest Chinese or Korean name part written in Latin letters (two syllables, "zhuang" + "xiong"). */
const EAST_ASIAN_PART = 12;

/**
 * Whether the query reads as a Chinese or Korean name in Latin letters (two parts or more, each
 * one to four syllables, `siniticKey`, or a family name common in China, Taiwan or Korea, one of
 * them such a family name) matched through a part spelt only near its listed counterpart, through
 * one aligned part alone (parts run together on one side: "Chun Lan" / Chunlan), or leaving a
 * listed part out.
 */
function eastAsianSyllablesApart(s: Scored): boolean {
  const tokens = s.query.tokens;
  if (tokens.length < 2) return false;
  const model = commonnessModel();
  let surnames = 0;
  for (const t of tokens) {
    if (t.transliterated || t.readFromHan || t.text.length > EAST_ASIAN_PART) return false;
    // Cantonese and Hokkien family names ("Lam", "Ng") are not Mandarin syllables.
    if (model.isEastAsianSurname(t.text)) surnames++;
    else if (siniticKey(t.text) === '') return false;
  }
  if (surnames === 0) return false;
  // A syllable of the listed given name left out ("Chen Bing" / CHEN, Bing Shen) leaves another name.
  if (s.name.unmatchedListed.some((t) => t.length > 1)) return true;
  let parts = 0;
  for (const p of s.name.pairs) {
    if (p.query.length <= 1 || p.listed.length <= 1) continue;
    if (p.similarity < FIRM_PAIR) return true;
    // Another syllable however the two are read elsewhere ("Ji" is not YI, which a German or
    // Latvian reading of j makes alike): pinyin and Wade-Giles spell one syllable one key. (Korean
    // Lee, Ri and Yi, one family name, are not all pinyin.)
    // A letter mistyped inside a long part stays a typo ("Guirin Su" for GUIQIN Su).
    if (p.query !== p.listed && differentSyllables(p.query, p.listed) && !isInnerTypo(p.query, p.listed))
      return true;
    parts++;
  }
  return parts < 2;
}

/** Whether both are Chinese syllables in pinyin or Wade-Giles (`siniticKey`) and not the same ones. */
function differentSyllables(a: string, b: string): boolean {
  const keyA = siniticKey(a);
  const keyB = siniticKey(b);
  return keyA !== '' && keyB !== '' && keyA !== keyB;
}

/** Aligned below this similarity, two name parts are near spellings (a typo, a cognate), not one name. */
const FIRM_PAIR = 0.95;

/**
 * Whether some aligned name part (initials aside) is only spelt near its listed counterpart;
 * `beyondTypo`: other than by one letter mistyped inside it (`isInnerTypo`).
 */
function hasNearSpelling(s: Scored, beyondTypo = false): boolean {
  for (const p of s.name.pairs) {
    if (p.similarity >= FIRM_PAIR || p.query.length <= 1 || p.listed.length <= 1) continue;
    if (!beyondTypo || !isInnerTypo(p.query, p.listed)) return true;
  }
  return false;
}

/**
 * Whether the match rests on two name parts at most (`ids`: the listed parts the query shares,
 * particles and initials aside), not both of them rare on the lists (borne by a handful of listed
 * people at most).
 */
function twoPartsNotBothRare(index: NameIndex, ids: readonly number[]): boolean {
  let rare = 0;
  for (const id of ids) if (index.bearerWeights[id] >= RARE_PART_WEIGHT) rare++;
  return ids.length > 0 && ids.length <= 2 && rare < ids.length;
}

/**
 * Whether the listed name has parts (particles and initials aside) the query lacks, its first or
 * last one among them.
 */
function listedEndMissing(index: NameIndex, s: Scored): boolean {
  const start = index.nameTokenStart[s.nameId];
  let first = '';
  let last = '';
  let parts = 0;
  for (let k = 0; k < index.nameLengths[s.nameId]; k++) {
    const t = index.vocab[index.nameTokenIds[start + k]];
    if (t.particle || t.initial) continue;
    if (parts === 0) first = t.text;
    last = t.text;
    parts++;
  }
  return parts > 0 && (!isAligned(s, first) || !isAligned(s, last)) && s.name.unmatchedListed.length > 0;
}

/**
 * Whether a whole query part is aligned with a listed initial while at most one other pair of
 * whole parts is spelt alike (FIRM_PAIR).
 */
function restsOnAnInitial(s: Scored): boolean {
  let firm = 0;
  let initial = false;
  for (const p of s.name.pairs) {
    if (p.query.length > 1 && p.listed.length === 1) initial = true;
    else if (p.query.length > 1 && p.listed.length > 1 && p.similarity >= FIRM_PAIR) firm++;
  }
  return initial && firm <= 1;
}

/** Vocabulary ids of the listed name's parts (particles and initials aside) aligned with the query. */
function alignedListedParts(index: NameIndex, s: Scored): number[] {
  const start = index.nameTokenStart[s.nameId];
  const ids: number[] = [];
  for (let k = 0; k < index.nameLengths[s.nameId]; k++) {
    const id = index.nameTokenIds[start + k];
    const t = index.vocab[id];
    if (!t.particle && !t.initial && isAligned(s, t.text)) ids.push(id);
  }
  return ids;
}

/**
 * Whether the name matched is one many people bear: its aligned listed parts are all common, or
 * together no rarer than two common parts (rarity weights summed below twice
 * `COMMON_PART_WEIGHT`), each part counted by how many bear it over all spellings of its
 * name-variant group (`nameWeights`). A very common given name thus makes up for a family name
 * less common than the threshold ("Mohammad Jabir", "Ahmad Jibril"), whichever listed name or
 * alias was hit, without making a long name of fairly common parts common. A rare part (on a
 * handful of listed people) keeps the name uncommon, also when it is shaped like a patronymic
 * ("Abramovich"), which weighs little as evidence but is as rare as its bearers.
 */
function isCommonName(index: NameIndex, ids: readonly number[]): boolean {
  if (ids.length === 0) return false;
  let sum = 0;
  let rarest = 0;
  for (const id of ids) {
    // A part on a handful of distinct people at most is what identifies the person, however many
    // lists repeat them (counted by distinct bearers, not listings).
    if (index.bearerWeights[id] >= RARE_PART_WEIGHT) return false;
    sum += index.nameWeights[id];
    if (index.nameWeights[id] > rarest) rarest = index.nameWeights[id];
  }
  // Every part common, or together no more telling than two common parts.
  return rarest < COMMON_PART_WEIGHT || sum < COMMON_PART_WEIGHT * Math.min(ids.length, 2);
}

/** Whether the listed part `text` is aligned with some query part (alone or run together). */
function isAligned(s: Scored, text: string): boolean {
  for (const p of s.name.pairs) {
    if (p.listed === text) return true;
    if (p.listed.length > text.length && p.listed.split(' ').includes(text)) return true;
  }
  return false;
}

/** Whether the listed dates of birth cover more than one year (several years, or a range). */
function spansYears(dobs: readonly ListedDob[]): boolean {
  return listedYearCount(dobs) > 1;
}

/** Whether the subject's full date of birth is one of the listed full dates. */
function sameFullDate(query: string | undefined, listed: readonly ListedDob[]): boolean {
  const q = fullQueryDate(query);
  return q !== undefined && listed.some((d) => d.kind === 'date' && d.date === q);
}

function nameExplanation(
  s: Scored,
  displayName: string,
  weakAlias: boolean,
  band: NameBand,
  notes: readonly string[],
): FieldExplanation {
  const score = s.name.score;
  const aligned = s.name.pairs
    .map((p) => (p.similarity >= 0.999 ? p.query : `${p.query}≈${p.listed}`))
    .join(', ');
  const missing =
    s.name.unmatchedQuery.length > 0 ? `; not on the listed name: ${s.name.unmatchedQuery.join(', ')}` : '';
  const input = s.query.input === 'alias' ? 'alias' : 'name';
  const quality = weakAlias ? ' (low-quality alias)' : '';
  const why = notes.length > 0 ? `; ${notes.join('; ')}` : '';
  const detail = `${input} matches "${displayName}"${quality} with similarity ${score.toFixed(3)} (${aligned || 'no aligned parts'}${missing})${why}`;
  const status: FieldStatus = band === 'strong' ? 'matched' : 'near';
  return { status, detail };
}

/** The person's listings with their lists' names: the linked listings, or its one listing. */
function listingsOf(index: NameIndex, person: ListedPerson): MatchListing[] {
  const listName = (id: ListId) => index.lists.find((l) => l.id === id)?.name ?? id;
  if (person.listings) return person.listings.map((l) => ({ ...l, list_name: listName(l.list_id) }));
  const listing: MatchListing = {
    list_id: person.list_id,
    list_name: listName(person.list_id),
    entity_id: person.entity_id,
    primary_name: person.primary_name,
    programmes: person.programmes,
    linked_by: 'primary',
  };
  if (person.reference) listing.reference = person.reference;
  if (person.listed_on) listing.listed_on = person.listed_on;
  if (person.url) listing.url = person.url;
  return [listing];
}

function toMatch(
  index: NameIndex,
  s: Scored,
  subject: SubjectInput,
  nationalityCountry: string | undefined,
  locationCountry: string | undefined,
  context: VerdictContext,
): { match: Match } | undefined {
  if (s.name.score < MATCH_FLOOR && !mayReportBelowFloor(index, s, subject)) return undefined;
  const indexed: IndexedPerson = index.people[s.person];
  const listedName = listedNameOf(index, s.nameId);
  const weakAlias = listedName.strength === 'weak';
  const person = indexed.person;
  const dob = compareDob(subject.dob, person.dobs);
  const nationality = compareCountry(
    subject.nationality,
    nationalityCountry,
    indexed.nationalities,
    'nationality',
  );
  const fullDobMatched = sameFullDate(subject.dob, person.dobs);
  const verdict = nameVerdict(
    index,
    s,
    weakAlias,
    dob.status,
    fullDobMatched,
    listedYearCount(person.dobs),
    context,
    nationality.status === 'mismatched',
  );
  const band = verdict.band;
  if (!band) return undefined;
  const location = compareLocation(
    subject.location,
    locationCountry,
    person.locations,
    indexed.locationCountries,
  );
  // A weak name is lifted to MEDIUM by a matching date of birth (risk.ts), but not by a date that
  // matched only one of several listed years: "1975–1976", or eight possible years, hold more
  // people than one name's namesakes can tell apart. It then counts as near: LOW.
  const yearsOnly = band === 'weak' && dob.status === 'matched' && !fullDobMatched && spansYears(person.dobs);
  const dobForRisk = yearsOnly || verdict.yearTooCommon ? 'near' : dob.status;
  const dobExplained: FieldExplanation = verdict.yearTooCommon
    ? { ...dob, detail: `${dob.detail}; a listed year alone does not tell so common a name's bearers apart` }
    : yearsOnly
      ? { ...dob, detail: `${dob.detail}; a match on one of several listed years does not lift a weak name` }
      : dob;
  const withDob = verdictLevel(indexed, band, verdict.atLeastMedium, dobForRisk, nationality.status);
  // A date of birth the listing agrees with, if only by a listed year, never leaves the match
  // below its level by name alone: "SARWAR, Muhammad" born 1966, listed as born 1966-1968, is too
  // common a name for the year to lift, and no less likely the listed man for it (it had been LOW,
  // MEDIUM by name alone). Without a date a match is HIGH at most (risk.ts), so a match at HIGH
  // or above with the date is not read again.
  const alone =
    dob.status === 'matched' && riskRank(withDob) < riskRank('HIGH')
      ? levelByNameAlone(index, s, weakAlias, indexed, context, nationality.status)
      : undefined;
  const heldByName = alone !== undefined && riskRank(alone) > riskRank(withDob);
  const risk_level: RiskLevel = heldByName ? alone : withDob;
  const adjusted =
    s.name.score +
    SCORE_ADJUST[dob.status] +
    SCORE_ADJUST[nationality.status] / 2 +
    SCORE_ADJUST[location.status] / 5;
  const match: Match = {
    list_id: person.list_id,
    list_name: indexed.listName,
    entity_id: person.entity_id,
    primary_name: person.primary_name,
    matched_name: listedName.name,
    matched_input: s.query.input,
    score: round3(Math.min(1, Math.max(0, adjusted))),
    name_score: round3(s.name.score),
    risk_level,
    dobs: person.dobs.map(formatListedDob),
    nationalities: person.nationalities,
    programmes: person.programmes,
    explanation: {
      name: nameExplanation(s, listedName.name, weakAlias, band, verdict.notes),
      dob: heldByName
        ? { ...dobExplained, detail: `${dobExplained.detail}; held at ${alone}, the level by name alone` }
        : dobExplained,
      nationality,
      location,
    },
    listings: listingsOf(index, person),
  };
  if (person.url) match.url = person.url;
  if (person.pep) {
    match.pep = {
      tier: person.pep.tier,
      tier_label: PEP_TIER_LABELS[person.pep.tier] ?? `Tier ${person.pep.tier}`,
      category: person.pep.category,
      position: person.pep.position,
      current: person.pep.current,
    };
  }
  return { match };
}

/**
 * The level a match would have had without the date of birth (the subject's nationality and the
 * listing as they are); undefined when the name alone would not be reported.
 */
function levelByNameAlone(
  index: NameIndex,
  s: Scored,
  weakAlias: boolean,
  indexed: IndexedPerson,
  context: VerdictContext,
  nationality: FieldStatus,
): RiskLevel | undefined {
  const verdict = nameVerdict(
    index,
    s,
    weakAlias,
    'unknown',
    false,
    listedYearCount(indexed.person.dobs),
    { ...context, nameOnly: true },
    nationality === 'mismatched',
  );
  return verdict.band && verdictLevel(indexed, verdict.band, verdict.atLeastMedium, 'unknown', nationality);
}

/** A name verdict's risk level (risk.ts), at least MEDIUM when the verdict says so. */
function verdictLevel(
  indexed: IndexedPerson,
  band: NameBand,
  atLeastMedium: boolean,
  dob: FieldStatus,
  nationality: FieldStatus,
): RiskLevel {
  const { pep } = indexed.person;
  const level = matchRisk({
    check: indexed.category,
    band,
    dob,
    nationality,
    tier: pep?.tier,
    current: pep?.current,
  });
  return atLeastMedium ? maxRisk([level, 'MEDIUM']) : level;
}

function sanctionsResult(matches: Match[], lists: ListSummary[]): SanctionsResult {
  const risk_level = maxRisk(matches.map((m) => m.risk_level));
  return {
    risk_level,
    is_sanctioned: riskRank(risk_level) >= riskRank('HIGH'),
    matches,
    narrative: sanctionsNarrative(risk_level, matches, lists),
  };
}

function pepResult(matches: Match[], lists: ListSummary[]): PepResult {
  const risk_level = maxRisk(matches.map((m) => m.risk_level));
  const isPep = riskRank(risk_level) >= riskRank('MEDIUM');
  const best = isPep ? matches[0]?.pep : undefined;
  return {
    risk_level,
    is_pep: isPep,
    tier: best?.tier ?? null,
    tier_label: best?.tier_label ?? null,
    category: best?.category ?? null,
    narrative: pepNarrative(risk_level, matches, lists),
    matches,
  };
}

function criminalResult(matches: Match[], lists: ListSummary[]): CriminalResult {
  const risk_level = maxRisk(matches.map((m) => m.risk_level));
  return {
    risk_level,
    interpol_hits: matches.filter((m) => m.list_id === 'interpol_red'),
    fbi_hits: matches.filter((m) => m.list_id === 'fbi_wanted'),
    narrative: criminalNarrative(risk_level, matches, lists),
  };
}
