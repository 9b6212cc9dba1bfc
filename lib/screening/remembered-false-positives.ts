import { createHash } from 'node:crypto';
import { isoSeconds } from '../common/time.ts';
import { type Match, maxRisk, type RiskLevel, riskRank, type ScreenChecks } from '../matcher/types.ts';
import type { TableWrite } from '../store/write.ts';
import { listingChange, matchesOf } from './change-detection.ts';
import type { DecidedFalsePositiveMark, RememberedFalsePositive } from './false-positive-record.ts';
import { falsePositiveWrites, memoryIdOf } from './false-positive-table.ts';
import { foldPerson } from './person-folding.ts';
import type { ScreenItem } from './screen-table.ts';
import { normaliseText, type Subject } from './subject.ts';

/**
 * Decided false positives remembered on ad-hoc screens (issue 40, item 4; docs/policies.md).
 *
 * A settled `false_positive` (recorded without `approval_requested`, or signed off by an admin) on
 * a screen says that its subject is not the person of each listing it matched. The tenant
 * remembers that, per subject and listing, in the decision's own transaction. The subject is
 * folded as the one-client-per-person claims fold it (./person-folding.ts: the name as the matcher
 * reads it, order-free; the date of birth; the nationality's country), plus the alias: the
 * fields the matcher compares. A subject given with another date of birth, nationality or alias
 * is another subject here, so a decision never reaches a person it was not made about (the
 * monitoring rule: the client's own identifying data changed, the decision reopens).
 *
 * When the same subject is screened again through POST /screen (or a batch), each match on a
 * remembered listing is marked `decided_false_positive` (who, when, a link to the deciding
 * screen) and counts as LOW, "likely a different person", in its check's level and the screen's,
 * unless the listing changed materially since the decision, by monitoring's rules
 * (./change-detection.ts `listingChange`, lib/monitoring/rescreen-review.ts): it gained or lost a
 * date of birth or a nationality, gained a name closer to the subject's, or the match's level
 * rose. Then the mark says why it no longer applies and the match counts at its own level.
 * Cosmetic edits (programme wording, urls, references) keep the decision, and the mark names them.
 *
 * A decision that contradicts a memory (a `confirmed_hit`, or `needs_review`, on a screen of the
 * same subject and listing) forgets it in its own transaction; an admin can revoke one
 * (./false-positive-memory.ts). Client re-screens keep their own carried decisions (monitoring)
 * and do not read this memory.
 */

/** The folded subject's key: equal for inputs the matcher cannot tell apart. */
export function personKeyOf(subject: Pick<Subject, 'name' | 'dob' | 'nationality' | 'alias'>): string {
  const person = foldPerson(subject);
  const alias = normaliseText(subject.alias) || null;
  return createHash('sha256')
    .update(JSON.stringify(['fp-v1', person.name, person.dob, person.nationality, alias]))
    .digest('hex')
    .slice(0, 32);
}

/** The listing's key: its list and the publisher's entry id. */
export function listingKeyOf(match: { list_id: string; entity_id: string }): string {
  return createHash('sha256')
    .update(JSON.stringify([match.list_id, match.entity_id]))
    .digest('hex')
    .slice(0, 16);
}

/** A match as a screen holds it: with the mark when it was decided false positive for the subject before. */
export type MarkedMatch = Match & { decided_false_positive?: DecidedFalsePositiveMark };

type Checks = Pick<ScreenChecks, 'risk_level' | 'sanctions_result' | 'pep_result' | 'criminal_result'>;

/** The level a decided false positive that holds counts at: "weak match; likely a different person". */
const DECIDED_LEVEL: RiskLevel = 'LOW';

const countedLevel = (match: MarkedMatch): RiskLevel =>
  match.decided_false_positive?.applies && riskRank(match.risk_level) > riskRank(DECIDED_LEVEL)
    ? DECIDED_LEVEL
    : match.risk_level;

/**
 * A copy with every object's keys sorted: a match read back from the table has its map keys in
 * another order than the matcher's, and the listing comparison compares JSON.
 */
function sortedKeys<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (_key, item) =>
      item && typeof item === 'object' && !Array.isArray(item)
        ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : item,
    ),
  );
}

function markOf(memory: RememberedFalsePositive, match: Match): DecidedFalsePositiveMark {
  const change = listingChange(sortedKeys(memory.match), sortedKeys(match));
  const reasons = [...change.identifying];
  if (riskRank(match.risk_level) > riskRank(memory.risk_level)) {
    reasons.push(`risk rose from ${memory.risk_level} to ${match.risk_level}`);
  }
  return {
    memory_id: memory.memory_id,
    applies: reasons.length === 0,
    screen_id: memory.screen_id,
    link: `/screens/${memory.screen_id}`,
    decided_by: memory.decided_by,
    decided_at: memory.decided_at,
    approved_by: memory.approved_by,
    changes: reasons.length === 0 ? change.cosmetic : reasons,
  };
}

function withoutMark(match: MarkedMatch): Match {
  const { decided_false_positive: _mark, ...plain } = match;
  return plain;
}

const sentence = (held: readonly MarkedMatch[]) =>
  ` ${held.length === 1 ? 'One match was' : `${held.length} matches were`} decided false positive for this subject before (${held
    .map((match) => `${match.primary_name}, ${match.list_id} ${match.entity_id}`)
    .join('; ')}) and count${held.length === 1 ? 's' : ''} as LOW.`;

/**
 * The checks with the memories applied: matches on a remembered listing marked, each check's
 * level (and the flags that follow it) and the screen's recomputed with the decided ones that
 * hold counted as LOW. Pure; the result is a copy. Checks no memory touches come back equal.
 */
export function applyRemembered<T extends Checks>(
  checks: T,
  memories: readonly RememberedFalsePositive[],
): T {
  if (memories.length === 0) return checks;
  const byListing = new Map(memories.map((memory) => [listingKeyOf(memory), memory]));
  const mark = (matches: readonly Match[]): MarkedMatch[] =>
    matches.map((match) => {
      const memory = byListing.get(listingKeyOf(match));
      const plain = withoutMark(match);
      return memory ? { ...plain, decided_false_positive: markOf(memory, plain) } : plain;
    });
  const held = (matches: readonly MarkedMatch[]) =>
    matches.filter((match) => match.decided_false_positive?.applies);
  const out = structuredClone(checks);
  if (out.sanctions_result) {
    const matches = mark(out.sanctions_result.matches);
    if (held(matches).length > 0) {
      const level = maxRisk(matches.map(countedLevel));
      out.sanctions_result = {
        ...out.sanctions_result,
        matches,
        risk_level: level,
        is_sanctioned: riskRank(level) >= riskRank('HIGH'),
        narrative: out.sanctions_result.narrative + sentence(held(matches)),
      };
    } else out.sanctions_result.matches = matches;
  }
  if (out.pep_result) {
    const matches = mark(out.pep_result.matches);
    if (held(matches).length > 0) {
      const level = maxRisk(matches.map(countedLevel));
      const isPep = riskRank(level) >= riskRank('MEDIUM');
      const best = isPep ? matches.find((match) => !match.decided_false_positive?.applies)?.pep : undefined;
      out.pep_result = {
        ...out.pep_result,
        matches,
        risk_level: level,
        is_pep: isPep,
        tier: best?.tier ?? null,
        tier_label: best?.tier_label ?? null,
        category: best?.category ?? null,
        narrative: out.pep_result.narrative + sentence(held(matches)),
      };
    } else out.pep_result.matches = matches;
  }
  if (out.criminal_result) {
    const interpol = mark(out.criminal_result.interpol_hits);
    const fbi = mark(out.criminal_result.fbi_hits);
    const all = [...interpol, ...fbi];
    out.criminal_result = {
      ...out.criminal_result,
      interpol_hits: interpol,
      fbi_hits: fbi,
      ...(held(all).length > 0
        ? {
            risk_level: maxRisk(all.map(countedLevel)),
            narrative: out.criminal_result.narrative + sentence(held(all)),
          }
        : {}),
    };
  }
  out.risk_level = maxRisk(
    [out.sanctions_result, out.pep_result, out.criminal_result].flatMap((result) =>
      result ? [result.risk_level] : [],
    ),
  );
  return out;
}

/** The memories that bear on these checks: those whose listing the checks matched (stored on the screen). */
export function memoriesFor(
  checks: Checks,
  memories: readonly RememberedFalsePositive[],
): RememberedFalsePositive[] {
  const matched = new Set(matchesOf(checks).map(listingKeyOf));
  return memories.filter((memory) => matched.has(listingKeyOf(memory)));
}

/** The decision in force is a settled false positive: recorded without asking for a sign-off, or signed off. */
function settledFalsePositive(screen: Pick<ScreenItem, 'disposition' | 'approval'>): boolean {
  const decision = screen.disposition;
  if (decision?.disposition !== 'false_positive') return false;
  return Boolean(screen.approval) || !decision.approval_requested;
}

/** Decisions that contradict a remembered false positive: the subject may be the listed person. */
const CONTRADICTING = new Set(['confirmed_hit', 'needs_review']);

/**
 * What a decision writes to the tenant's memory, in its own transaction (lib/screening/dispose.ts):
 * a settled false positive remembers each listing the screen matched, for its subject; a
 * confirmed hit or needs_review forgets them; any other decision leaves the memory as it is.
 */
export function memoryWrites(
  decided: ScreenItem,
  at: Date,
): { writes: TableWrite[]; remembered: number; forgotten: number } {
  const personKey = personKeyOf(decided.subject);
  const listings = new Map(matchesOf(decided).map((match) => [listingKeyOf(match), withoutMark(match)]));
  if (settledFalsePositive(decided) && decided.disposition) {
    const decision = decided.disposition;
    const writes = [...listings].map(([listingKey, match]) =>
      falsePositiveWrites.remember({
        tenant_id: decided.tenant_id,
        person_key: personKey,
        listing_key: listingKey,
        subject: decided.subject,
        remembered_at: isoSeconds(at),
        memory_id: memoryIdOf(personKey, listingKey),
        screen_id: decided.screen_id,
        decision_version: decided.decision_version ?? null,
        decided_by: decision.author,
        decided_at: decision.carried_from?.decided_at ?? decision.at,
        approved_by: decided.approval?.author ?? null,
        list_id: match.list_id,
        entity_id: match.entity_id,
        primary_name: match.primary_name,
        risk_level: match.risk_level,
        match,
      }),
    );
    return { writes, remembered: writes.length, forgotten: 0 };
  }
  if (decided.disposition && CONTRADICTING.has(decided.disposition.disposition)) {
    const writes = [...listings.keys()].map((listingKey) =>
      falsePositiveWrites.forget(decided.tenant_id, personKey, listingKey),
    );
    return { writes, remembered: 0, forgotten: writes.length };
  }
  return { writes: [], remembered: 0, forgotten: 0 };
}
