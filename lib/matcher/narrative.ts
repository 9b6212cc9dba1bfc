/**
 * Compliance narratives, rendered only from the structured result (risk level, matches and
 * their per-field explanations) so the text can never say more than the evidence shows.
 */

import type { ListSummary } from '../watchlists/types.ts';
import type { Match, RiskLevel } from './types.ts';

const LEVEL_MEANING: Record<RiskLevel, string> = {
  CRITICAL: 'Confirmed sanctions match: all dealings are prohibited pending escalation.',
  HIGH: 'Strong match requiring immediate review.',
  MEDIUM: 'Partial match requiring investigation.',
  LOW: 'Weak match; likely a different person.',
  CLEAR: 'No matches found.',
};

/** "OFAC SDN (source date 2021-07-07), UN Security Council (source date 2026-02-27)". */
export function describeLists(lists: readonly ListSummary[]): string {
  if (lists.length === 0) return 'no lists (none loaded for this check)';
  // Every screen describes its matcher's same few lists in each of its narratives: the text is
  // kept per list array, with the names and dates it was made from (checked, not assumed, fixed).
  const kept = describedLists.get(lists);
  if (kept !== undefined && sameDescription(kept, lists)) return kept.text;
  const text = lists.map((l) => `${l.name} (source date ${l.source_date ?? 'unknown'})`).join(', ');
  describedLists.set(lists, {
    names: lists.map((l) => l.name),
    dates: lists.map((l) => l.source_date),
    text,
  });
  return text;
}

interface ListsDescription {
  names: string[];
  dates: (string | null | undefined)[];
  text: string;
}

const describedLists = new WeakMap<readonly ListSummary[], ListsDescription>();

function sameDescription(kept: ListsDescription, lists: readonly ListSummary[]): boolean {
  if (kept.names.length !== lists.length) return false;
  for (let k = 0; k < lists.length; k++)
    if (kept.names[k] !== lists[k].name || kept.dates[k] !== lists[k].source_date) return false;
  return true;
}

function describeMatch(m: Match): string {
  const parts: string[] = [];
  const aka = m.matched_name !== m.primary_name ? ` via the listed name "${m.matched_name}"` : '';
  parts.push(
    `${m.primary_name} on ${m.list_name} (id ${m.entity_id})${aka}, score ${m.score.toFixed(3)}, ${m.risk_level}`,
  );
  if (m.pep) parts.push(`${m.pep.position} (${m.pep.tier_label})`);
  const fields: string[] = [`name: ${m.explanation.name.detail}`];
  for (const key of ['dob', 'nationality', 'location'] as const) {
    const f = m.explanation[key];
    if (f.status !== 'unknown') fields.push(f.detail);
  }
  parts.push(fields.join('; '));
  if (m.programmes.length > 0)
    parts.push(
      `${m.list_name.includes('FBI') || m.list_name.includes('INTERPOL') ? 'charges' : 'programmes'}: ${m.programmes.slice(0, 5).join(', ')}`,
    );
  return parts.join('. ');
}

function renderMatches(
  kind: string,
  level: RiskLevel,
  matches: readonly Match[],
  lists: readonly ListSummary[],
): string {
  if (matches.length === 0) {
    return `CLEAR: no ${kind} match for the subject on ${describeLists(lists)}.`;
  }
  const best = matches[0];
  const count = matches.length === 1 ? '1 possible match' : `${matches.length} possible matches`;
  const others =
    matches.length > 1
      ? ` Other candidates: ${matches
          .slice(1, 4)
          .map((m) => `${m.primary_name} (${m.list_name}, ${m.risk_level})`)
          .join('; ')}.`
      : '';
  return `${level}: ${LEVEL_MEANING[level]} ${count} on ${describeLists(lists)}. Best: ${describeMatch(best)}.${others}`;
}

export function sanctionsNarrative(
  level: RiskLevel,
  matches: readonly Match[],
  lists: readonly ListSummary[],
): string {
  return renderMatches('sanctions', level, matches, lists);
}

export function pepNarrative(
  level: RiskLevel,
  matches: readonly Match[],
  lists: readonly ListSummary[],
): string {
  return renderMatches('politically exposed person', level, matches, lists);
}

export function criminalNarrative(
  level: RiskLevel,
  matches: readonly Match[],
  lists: readonly ListSummary[],
): string {
  const text = renderMatches('criminal-record', level, matches, lists);
  // Wanted notices are allegations, not convictions; analysts must not treat them as proof.
  return matches.length > 0 ? `${text} Wanted notices are allegations, not convictions.` : text;
}
