import { createHash } from 'node:crypto';
import { type Match, type RiskLevel, riskRank, type ScreenChecks } from '../matcher/types.ts';
import type { MatchRef, ScreenAlert } from '../screening/screen-record.ts';

/**
 * Alert on change only. A re-screen of a monitored client is compared with the client's previous
 * screen match by match, a match being identified by its list and the publisher's entry id. It
 * has changed when it holds a match the previous screen did not, when its risk level is higher,
 * or when a listed entry it matches now says something else (names, dates of birth,
 * nationalities, programmes, PEP office): the publisher amended the listing. A match that went
 * away, or a lower risk, is reported in the alert of a changed screen but does not raise one on
 * its own: nothing new needs an analyst.
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

/** What the listing says, not how well the subject resembles it (score and explanation differ run to run). */
export function listingFingerprint(match: Match): string {
  const { primary_name, dobs, nationalities, programmes, pep, url } = match;
  const listings = (match as Match & { listings?: unknown }).listings;
  return createHash('sha1')
    .update(JSON.stringify({ primary_name, dobs, nationalities, programmes, pep, url, listings }))
    .digest('base64url');
}

const refOf = (match: Match): MatchRef => ({
  list_id: match.list_id,
  entity_id: match.entity_id,
  primary_name: match.primary_name,
  risk_level: match.risk_level,
});

export interface ScreenComparison {
  changed: boolean;
  alert: ScreenAlert;
}

export function compareScreens(
  previous: (Checks & { screen_id: string }) | undefined,
  next: Checks,
): ScreenComparison {
  const before = new Map((previous ? matchesOf(previous) : []).map((match) => [matchKey(match), match]));
  const after = new Map(matchesOf(next).map((match) => [matchKey(match), match]));
  const added: MatchRef[] = [];
  const changed: MatchRef[] = [];
  for (const [key, match] of after) {
    const earlier = before.get(key);
    if (!earlier) added.push(refOf(match));
    else if (listingFingerprint(earlier) !== listingFingerprint(match)) changed.push(refOf(match));
  }
  const removed = [...before].filter(([key]) => !after.has(key)).map(([, match]) => refOf(match));
  const riskBefore: RiskLevel | null = previous ? previous.risk_level : null;
  const riskRose = riskBefore !== null && riskRank(next.risk_level) > riskRank(riskBefore);
  return {
    changed: added.length > 0 || changed.length > 0 || riskRose,
    alert: {
      previous_screen_id: previous?.screen_id ?? null,
      risk_before: riskBefore,
      risk_after: next.risk_level,
      matches_added: added,
      matches_removed: removed,
      matches_changed: changed,
    },
  };
}
