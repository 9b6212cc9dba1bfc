import { canonicalJson, sha256Hex } from './chain.ts';
import type { AuditDetails } from './trail.ts';

/**
 * What the audit trail keeps of a deleted screen (DELETE /screens/{screen_id} removes the item,
 * its history and notes for good): which screen, its risk level, when it was screened and by whom,
 * the decision in force (disposition, version, author) and its sign-off, and the SHA-256 of the
 * stored item's canonical JSON. No name, date of birth or note: whoever holds a copy of the item
 * (a backup, an export) can prove it is the one deleted, and the trail holds nothing personal.
 *
 * Reads the stored item structurally (it may predate any field), so it depends on no screen code.
 */
export function tombstoneOf(item: Record<string, unknown>): AuditDetails {
  const decision = record(item.disposition);
  const author = record(decision?.author);
  const approval = record(item.approval);
  const approver = record(approval?.author);
  const creator = record(item.created_by);
  return {
    screen_id: text(item.screen_id),
    risk_level: text(item.risk_level),
    screened_at: text(item.screened_at),
    created_by: text(creator?.user_id),
    client_id: text(item.client_id),
    origin: text(item.origin),
    history_count: typeof item.history_count === 'number' ? item.history_count : null,
    last_disposition: text(decision?.disposition),
    last_decision_version: typeof item.decision_version === 'number' ? item.decision_version : null,
    last_decision_by: text(author?.user_id),
    last_decision_role: text(author?.role),
    last_decision_at: text(decision?.at),
    approved_by: text(approver?.user_id),
    approved_at: text(approval?.at),
    content_sha256: sha256Hex(canonicalJson(item)),
  };
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
