import { type Match, type RiskLevel, riskRank, type ScreenChecks } from '../matcher/types.ts';
import type { MatchRef } from './screen-table.ts';
import type { Subject } from './subject.ts';

/**
 * What a re-screen of a monitored client finds different from the client's last settled state
 * (its baseline screen), match by match, a match being identified by its list and the
 * publisher's entry id:
 *
 * - a match the baseline did not hold (`added`);
 * - a match whose listed entry gained or lost IDENTIFYING data, data that bears on whether the
 *   client is the listed person: a date of birth, a nationality, or a listed name closer to the
 *   client's than any before (the best-matching listed name changed and the name score rose);
 * - a match whose listed entry changed only COSMETICALLY: programme or regime wording, the
 *   primary name's spelling when no closer name came with it, the url, the publisher's reference
 *   or listing date, PEP office details, the other lists linked to the person;
 * - a higher or lower risk level; matches gone.
 *
 * rescreen-review.ts decides what each means for the alert and for a decision carried forward.
 */

type Checks = Pick<ScreenChecks, 'risk_level' | 'sanctions_result' | 'pep_result' | 'criminal_result'>;

export function matchesOf(checks: Checks): Match[] {
  return [
    ...(checks.sanctions_result?.matches ?? []),
    ...(checks.pep_result?.matches ?? []),
    ...(checks.criminal_result?.interpol_hits ?? []),
    ...(checks.criminal_result?.fbi_hits ?? []),
  ];
}

const matchKey = (match: Pick<Match, 'list_id' | 'entity_id'>) => `${match.list_id}#${match.entity_id}`;

export const refOf = (match: Match): MatchRef => ({
  list_id: match.list_id,
  entity_id: match.entity_id,
  primary_name: match.primary_name,
  risk_level: match.risk_level,
});

/** One matched listing the publisher amended, in words (no scores or explanations: those vary). */
export interface ListingChange {
  match: MatchRef;
  /** Changes that bear on whether the client is the listed person. */
  identifying: string[];
  /** Changes that do not (wording, links, references). */
  cosmetic: string[];
}

const setOf = (values: readonly string[]) => new Set(values.map((value) => value.trim().toLowerCase()));
const missingFrom = (values: readonly string[], other: Set<string>) =>
  values.filter((value) => !other.has(value.trim().toLowerCase()));
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * How a matched listing changed between two screens of the same subject. The matcher is the same
 * and so is the subject, so a different best-matching listed name with a higher name score means
 * the listing gained a name closer to the client's.
 */
export function listingChange(before: Match, after: Match): ListingChange {
  const identifying: string[] = [];
  const cosmetic: string[] = [];
  const dobsBefore = setOf(before.dobs);
  const dobsAfter = setOf(after.dobs);
  for (const dob of missingFrom(after.dobs, dobsBefore)) identifying.push(`gained date of birth ${dob}`);
  for (const dob of missingFrom(before.dobs, dobsAfter)) identifying.push(`lost date of birth ${dob}`);
  const nationalitiesBefore = setOf(before.nationalities);
  const nationalitiesAfter = setOf(after.nationalities);
  for (const nationality of missingFrom(after.nationalities, nationalitiesBefore)) {
    identifying.push(`gained nationality ${nationality}`);
  }
  for (const nationality of missingFrom(before.nationalities, nationalitiesAfter)) {
    identifying.push(`lost nationality ${nationality}`);
  }
  const closerName = after.matched_name !== before.matched_name && after.name_score > before.name_score;
  if (closerName) {
    identifying.push(
      `gained a name closer to the client's: "${after.matched_name}" (name score ${before.name_score} -> ${after.name_score})`,
    );
  }
  if (before.primary_name !== after.primary_name && !closerName) {
    cosmetic.push(`primary name now "${after.primary_name}"`);
  }
  if (!sameJson(before.programmes, after.programmes)) cosmetic.push('programmes reworded or changed');
  if (!sameJson(before.url, after.url)) cosmetic.push('url changed');
  if (!sameJson(before.pep, after.pep)) cosmetic.push('PEP office details changed');
  if (!sameJson(before.listings, after.listings) && cosmetic.length === 0 && identifying.length === 0) {
    // Whatever else the listing says: the reference, the listing date, another list linked.
    cosmetic.push('listing details changed (reference, dates, linked listings)');
  }
  return { match: refOf(after), identifying, cosmetic };
}

/** Whether the listing a match points at says anything else now, identifying or cosmetic. */
export function listingChanged(before: Match, after: Match): boolean {
  const change = listingChange(before, after);
  return change.identifying.length > 0 || change.cosmetic.length > 0;
}

export interface BaselineComparison {
  matches_added: MatchRef[];
  matches_removed: MatchRef[];
  /** Matches whose listing gained or lost identifying data, and what. */
  identifying: ListingChange[];
  /** Matches whose listing changed cosmetically only. */
  cosmetic: ListingChange[];
  risk_before: RiskLevel | null;
  risk_after: RiskLevel;
  risk_rose: boolean;
  /** The client's own data that differs from the baseline screen's subject (field names). */
  subject_changed: (keyof Subject)[];
}

/** The subject fields the matcher compares: a change in any of them bears on every decision. */
const IDENTIFYING_SUBJECT_FIELDS = ['name', 'dob', 'nationality', 'alias'] as const;
const normalised = (text: string | undefined) => (text ?? '').trim().replace(/\s+/g, ' ').toLowerCase();

/** Compares a fresh re-screen with the baseline (undefined: there is none, every match is new). */
export function compareWithBaseline(
  baseline: (Checks & { subject: Subject }) | undefined,
  next: Checks & { subject: Subject },
): BaselineComparison {
  const before = new Map((baseline ? matchesOf(baseline) : []).map((match) => [matchKey(match), match]));
  const after = new Map(matchesOf(next).map((match) => [matchKey(match), match]));
  const added: MatchRef[] = [];
  const identifying: ListingChange[] = [];
  const cosmetic: ListingChange[] = [];
  for (const [key, match] of after) {
    const earlier = before.get(key);
    if (!earlier) {
      added.push(refOf(match));
      continue;
    }
    const change = listingChange(earlier, match);
    if (change.identifying.length > 0) identifying.push(change);
    else if (change.cosmetic.length > 0) cosmetic.push(change);
  }
  const removed = [...before].filter(([key]) => !after.has(key)).map(([, match]) => refOf(match));
  const riskBefore = baseline ? baseline.risk_level : null;
  return {
    matches_added: added,
    matches_removed: removed,
    identifying,
    cosmetic,
    risk_before: riskBefore,
    risk_after: next.risk_level,
    risk_rose: riskBefore !== null && riskRank(next.risk_level) > riskRank(riskBefore),
    subject_changed: baseline
      ? IDENTIFYING_SUBJECT_FIELDS.filter(
          (field) => normalised(baseline.subject[field]) !== normalised(next.subject[field]),
        )
      : [],
  };
}

/** `<list> <entry id> (<primary name>)`: how a reason names a listing. */
export const listingName = (match: MatchRef) => `${match.list_id} ${match.entity_id} (${match.primary_name})`;
