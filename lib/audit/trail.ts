import { randomUUID } from 'node:crypto';
import { DomainError, InvalidRequestError } from '../common/errors.ts';
import { currentRequestId, logger } from '../common/log.ts';
import type { Table } from '../store/table.ts';
import { sendWrite, type TableWrite, TransactionConflictError, transact } from '../store/write.ts';
import {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_ROLES,
  AUDIT_OUTCOMES,
  type AuditAction,
  type AuditActor,
  type AuditDetails,
  type AuditEntry,
  type AuditOutcome,
  type AuditTarget,
  chainEntriesAfter,
  chainEntriesBefore,
  isWaiting,
  pendingEntryWrite,
  type UnchainedEntry,
} from './audit-table.ts';
import { entriesWaiting } from './chain-writer.ts';

// The trail's vocabulary is declared with the stored entry (./audit-table.ts); callers name it here.
export type { AuditAction, AuditActor, AuditDetails, AuditEntry, AuditOutcome, AuditTarget, UnchainedEntry };
export { AUDIT_ACTIONS, AUDIT_ACTOR_ROLES, AUDIT_OUTCOMES };

/**
 * The tenant's audit trail: every decision on a screen (disposition, override, approval request,
 * approval, deletion, a decision the service carries to a newer screen), every client registration
 * and stop, manual rescreen trigger and list-change rescreen run, webhook change and test, replay,
 * and every account action (users, keys, plan), by a tenant's user, by operations (the ops CLI) or
 * by the service itself (`system`). One item per entry, in the tenant's partition, so only that
 * tenant's admins (and operations) ever read them.
 *
 * Writing is split in two, so that no action waits for another:
 * - An action writes its entry with no place in the chain (`audit-pending`, a fresh key): with
 *   `auditedCommit()` in the same transaction as the action's own writes (decisions, approvals,
 *   deletions, client registrations and stops, webhook endpoint changes), so the record and the
 *   change cannot disagree; with `appendAuditEntry()` alone. No action reads the chain or contends
 *   for its head, however many run at once in one tenant.
 * - The chain writer (./chain-writer.ts), one per tenant, links waiting entries into the hash
 *   chain (lib/audit/chain.ts) in the order they were written, seconds later at most, and anchors
 *   the head outside the table (./anchor-store.ts). Readers of the trail (GET /audit, exports,
 *   verify-audit) see chained entries.
 *
 * `audited()` remains, write-ahead, for actions that are not a handful of writes (an export
 * streamed out, a list sync, a purge of many screens, account actions that call out of the
 * table): a `started` entry BEFORE the action and an outcome entry (`done`, `refused` or
 * `failed`, naming the started entry's `entry_id`) after it, so no such action happens unrecorded.
 */

/** The ops CLI's actor: operations staff act across tenants, outside any tenant's users. */
export const OPS_ACTOR = { user_id: 'ops-cli', role: 'ops' } as const satisfies AuditActor;

/** The service itself: list-change rescreen runs, decisions it carries, the scheduler's jobs. */
export const SYSTEM_ACTOR = { user_id: 'system', role: 'system' } as const satisfies AuditActor;

/** What a caller records: the entry's own fields (id, time, request) are filled in, its chain fields later. */
export interface AuditDraft {
  action: AuditAction;
  outcome: AuditOutcome;
  actor: AuditActor;
  target?: AuditTarget;
  details?: AuditDetails;
  /** An outcome entry: the `entry_id` of the `started` entry it completes. */
  started_entry_id?: string;
  outcome_detail?: string;
}

/**
 * The entry's time: now, but always after the previous entry this process made, so that entries
 * one process makes in turn (an action's `started` entry and its outcome) are chained in turn,
 * never in a same-millisecond tie broken by their ids.
 */
let lastAt = 0;
function entryTime(): string {
  lastAt = Math.max(Date.now(), lastAt + 1);
  return new Date(lastAt).toISOString();
}

/** The entry a draft makes, as it waits for the chain writer. */
function unchainedEntry(tenantId: string, draft: AuditDraft): UnchainedEntry {
  return {
    entry_id: randomUUID(),
    tenant_id: tenantId,
    action: draft.action,
    outcome: draft.outcome,
    ...(draft.started_entry_id !== undefined ? { started_entry_id: draft.started_entry_id } : {}),
    ...(draft.outcome_detail !== undefined ? { outcome_detail: draft.outcome_detail } : {}),
    actor: { user_id: draft.actor.user_id, role: draft.actor.role },
    at: entryTime(),
    request_id: currentRequestId() ?? null,
    target: withoutUndefined(draft.target ?? {}),
    details: withoutUndefined(draft.details ?? {}),
  };
}

/**
 * Records one entry alone (one put of a fresh key: it never waits for another append) and returns
 * it as written; the chain writer gives it its seq.
 */
export async function appendAuditEntry(
  table: Table,
  tenantId: string,
  draft: AuditDraft,
): Promise<UnchainedEntry> {
  const entry = unchainedEntry(tenantId, draft);
  await sendWrite(table, pendingEntryWrite(entry));
  entriesWaiting(table, tenantId);
  return entry;
}

/**
 * Waits, polling every 100 ms up to `timeoutMs`, until the chain writer has linked `entry`;
 * true once it has. For a reader that must see its own entry on the chain (an audit export
 * shows who took it).
 */
export async function untilChained(table: Table, entry: UnchainedEntry, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!(await isWaiting(table, entry))) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The stored form leaves undefined fields out; the hash must be taken over the same fields. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

/** What `audited()` records around an action. */
export interface AuditRecord<T> {
  action: AuditAction;
  actor: AuditActor;
  /** What the action is on, as known before it (a new client's id is only known after: `done`). */
  target?: AuditTarget;
  /** What was asked. */
  details?: AuditDetails;
  /** What the action did, from its result, recorded on the `done` entry. */
  done?: (result: T) => { target?: AuditTarget; details?: AuditDetails };
}

/**
 * Runs `action` with its audit entries around it (write-ahead, see above): a `started` entry
 * first (if it cannot be written, the action does not run), then `done` with what changed. The
 * action's error is recorded (`refused` with its detail for a domain error such as a 404 or 409,
 * `failed` otherwise) and rethrown. If the outcome entry cannot be written, the action's result
 * still stands (its `started` entry records it) and the failure is logged.
 */
export async function audited<T>(
  table: Table,
  tenantId: string,
  record: AuditRecord<T>,
  action: () => Promise<T>,
): Promise<T> {
  const started = await appendAuditEntry(table, tenantId, {
    action: record.action,
    outcome: 'started',
    actor: record.actor,
    target: record.target,
    details: record.details,
  });
  const complete = (outcome: AuditOutcome, extra: Partial<AuditDraft>) =>
    appendAuditEntry(table, tenantId, {
      action: record.action,
      outcome,
      actor: record.actor,
      started_entry_id: started.entry_id,
      ...extra,
      target: { ...record.target, ...extra.target },
    }).catch((error) => {
      logger.error(
        { err: error, tenant: tenantId, startedEntry: started.entry_id },
        'audit outcome not recorded',
      );
    });
  let result: T;
  try {
    result = await action();
  } catch (error) {
    await complete(
      error instanceof DomainError ? 'refused' : 'failed',
      error instanceof DomainError ? { outcome_detail: error.detail } : { outcome_detail: 'internal error' },
    );
    throw error;
  }
  let changed: { target?: AuditTarget; details?: AuditDetails } = {};
  try {
    changed = record.done?.(result) ?? {};
  } catch (error) {
    logger.error({ err: error, tenant: tenantId }, 'audit outcome details unavailable');
  }
  await complete('done', changed);
  return result;
}

/** What an action's entry records beside the request: what it was on and what it changed. */
export interface AuditOutcomeDetails {
  target?: AuditTarget;
  details?: AuditDetails;
}

/**
 * Commits an action's change: its writes and its `done` entry in ONE transaction, so the change
 * and its record are written together or not at all.
 */
export type CommitAudited = (writes: readonly TableWrite[], outcome?: AuditOutcomeDetails) => Promise<void>;

/** Times a commit still cancelled by transactions in flight on the same items is sent again. */
const COMMIT_ATTEMPTS = 3;

/**
 * Runs `action`, which makes its change through `commit`: the change's writes (a decision, an
 * approval, a deletion, a client and its claims, an endpoint) and the action's `done` entry
 * (what was asked, from `record`, merged with what changed, from the commit) are one
 * TransactWriteItems, so no change is ever written without its entry nor an entry without its
 * change. The entry has a fresh key, so the transaction contends only for the items the change
 * itself touches.
 *
 * An action refused (a DomainError, from its own checks or a refused condition of the commit)
 * writes nothing, and its refusal is recorded alone as a `refused` entry with the refusal's
 * detail; any other failure as `failed`. Both are then rethrown. A refusal's entry is a record of
 * an attempt that changed nothing, so if it cannot be written the attempt is logged instead.
 */
export async function auditedCommit<T>(
  table: Table,
  tenantId: string,
  record: Omit<AuditRecord<T>, 'done'>,
  action: (commit: CommitAudited) => Promise<T>,
): Promise<T> {
  const draft = (outcome: AuditOutcome, extra: Partial<AuditDraft> = {}): AuditDraft => ({
    action: record.action,
    outcome,
    actor: record.actor,
    ...extra,
    target: { ...record.target, ...extra.target },
    details: { ...record.details, ...extra.details },
  });
  const commit: CommitAudited = async (writes, outcome = {}) => {
    const entry = unchainedEntry(tenantId, draft('done', outcome));
    for (let attempt = 1; ; attempt += 1) {
      try {
        // The change's conditions are checked again on each attempt: it lands at most once.
        await transact(table, [...writes, pendingEntryWrite(entry)]);
        break;
      } catch (error) {
        if (!(error instanceof TransactionConflictError) || attempt >= COMMIT_ATTEMPTS) throw error;
      }
    }
    entriesWaiting(table, tenantId);
  };
  try {
    return await action(commit);
  } catch (error) {
    const refused = error instanceof DomainError;
    await appendAuditEntry(
      table,
      tenantId,
      draft(refused ? 'refused' : 'failed', {
        outcome_detail: refused ? (error as DomainError).detail : 'internal error',
      }),
    ).catch((appendError) => {
      logger.error(
        { err: appendError, tenant: tenantId, action: record.action },
        'audit refusal not recorded',
      );
    });
    throw error;
  }
}

export const AUDIT_READ_LIMIT_MAX = 1000;

export interface AuditEntriesPage {
  /** Entries in seq order, exactly as stored (so their hashes verify). */
  entries: AuditEntry[];
  /** Pass as `afterSeq` for the next page; null when the trail has no more entries. */
  next_after_seq: number | null;
}

/**
 * Entries after `afterSeq` (default 0: from the first), oldest first, at most `limit` (default and
 * most 1000): for exports and verification, which walk the whole chain a page at a time. Entries
 * are returned as stored, not reshaped, so a verifier sees every field an edit may have added.
 */
export async function readAuditEntries(
  table: Table,
  tenantId: string,
  { afterSeq = 0, limit = AUDIT_READ_LIMIT_MAX }: { afterSeq?: number; limit?: number } = {},
): Promise<AuditEntriesPage> {
  const size = Math.max(1, Math.min(AUDIT_READ_LIMIT_MAX, Math.floor(limit)));
  const { entries, nextAfterSeq } = await chainEntriesAfter(table, tenantId, afterSeq, size);
  return { entries, next_after_seq: nextAfterSeq };
}

/** Every entry of the tenant's trail, oldest first, a page at a time (for verification). */
export async function* allAuditEntries(table: Table, tenantId: string): AsyncGenerator<AuditEntry> {
  let afterSeq: number | null = 0;
  while (afterSeq !== null) {
    const page = await readAuditEntries(table, tenantId, { afterSeq });
    yield* page.entries;
    afterSeq = page.next_after_seq;
  }
}

export const AUDIT_LIMIT_DEFAULT = 50;
export const AUDIT_LIMIT_MAX = 200;

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

/** The tenant's audit trail, newest first, a page at a time (GET /audit). The cursor is bound to the tenant. */
export async function listAudit(
  table: Table,
  tenantId: string,
  limit: number = AUDIT_LIMIT_DEFAULT,
  cursor?: string,
): Promise<AuditPage> {
  const before = cursor ? decodeAuditCursor(cursor, tenantId) : undefined;
  const { entries, lastSeq } = await chainEntriesBefore(table, tenantId, before, limit);
  return { entries, next_cursor: lastSeq === null ? null : encodeAuditCursor(tenantId, lastSeq) };
}

function encodeAuditCursor(tenantId: string, seq: number): string {
  return Buffer.from(JSON.stringify({ l: 'audit', t: tenantId, seq })).toString('base64url');
}

function decodeAuditCursor(cursor: string, tenantId: string): number {
  const invalid = new InvalidRequestError(
    'cursor: is not a cursor this list issued; start again without it',
    'invalid_cursor',
  );
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw invalid;
  let body: { l?: unknown; t?: unknown; seq?: unknown };
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) ?? {};
  } catch {
    throw invalid;
  }
  if (
    body.l !== 'audit' ||
    body.t !== tenantId ||
    typeof body.seq !== 'number' ||
    !Number.isSafeInteger(body.seq) ||
    body.seq < 1 ||
    body.seq > 99_999_999_999
  )
    throw invalid;
  return body.seq;
}
