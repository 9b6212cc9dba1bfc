import { randomUUID } from 'node:crypto';
import { DomainError, InvalidRequestError } from '../common/errors.ts';
import { currentRequestId, logger } from '../common/log.ts';
import type { Table } from '../store/table.ts';
import { type TableWrite, TransactionConflictError, transact } from '../store/write.ts';
import {
  AUDIT_ACTIONS,
  AUDIT_ACTOR_ROLES,
  AUDIT_OUTCOMES,
  type AuditAction,
  type AuditActor,
  type AuditDetails,
  type AuditEntry,
  type AuditOutcome,
  AuditSeqTakenError,
  type AuditTarget,
  appendEntry,
  appendEntryWrite,
  chainEntriesAfter,
  chainEntriesBefore,
  readChainHead,
} from './audit-table.ts';
import { GENESIS_HASH, sealEntry } from './chain.ts';

// The trail's vocabulary is declared with the stored entry (./audit-table.ts); callers name it here.
export type { AuditAction, AuditActor, AuditDetails, AuditEntry, AuditOutcome, AuditTarget };
export { AUDIT_ACTIONS, AUDIT_ACTOR_ROLES, AUDIT_OUTCOMES };

/**
 * The tenant's audit trail: every decision on a screen (disposition, override, approval request,
 * approval, deletion), every client registration and stop, manual rescreen trigger and list-change
 * rescreen run, and every account action (users, keys, plan), by a tenant's user, by operations
 * (the ops CLI) or by the service itself (`system`). One item per entry, `AUDIT#<seq>` in the
 * tenant's partition, so only that tenant's admins (and operations) ever read them.
 *
 * Entries are immutable and hash-chained (lib/audit/chain.ts): appending entry `seq` is ONE
 * conditional put (`attribute_not_exists(pk)`) after a consistent read of the head, so two
 * concurrent appends can never take the same seq; the loser re-reads the head and retries. This
 * serialises the trail per tenant without a lock or a transaction.
 *
 * Two ways to record an action:
 * - `auditedCommit()`: the action's writes and its `done` entry are ONE transaction (decisions,
 *   approvals, deletions, client registrations and stops, webhook endpoint changes), so the
 *   record and the change cannot disagree. A refusal changes nothing and is appended alone.
 * - `audited()`, write-ahead, for actions that are not a handful of writes (an export streamed
 *   out, a list sync, a purge of many screens, account actions that call out of the table): a
 *   `started` entry BEFORE the action and an outcome entry (`done`, `refused` or `failed`, naming
 *   the started entry's seq) after it, so no such action happens unrecorded: a process that dies
 *   between the two leaves a `started` entry with no outcome, never an action without one.
 */

/** The ops CLI's actor: operations staff act across tenants, outside any tenant's users. */
export const OPS_ACTOR = { user_id: 'ops-cli', role: 'ops' } as const satisfies AuditActor;

/** The service itself: list-change rescreen runs and the scheduler's jobs. */
export const SYSTEM_ACTOR = { user_id: 'system', role: 'system' } as const satisfies AuditActor;

/** What a caller appends: the chain's own fields (seq, hashes, id, time, request) are filled in. */
export interface AuditDraft {
  action: AuditAction;
  outcome: AuditOutcome;
  actor: AuditActor;
  target?: AuditTarget;
  details?: AuditDetails;
  started_seq?: number;
  outcome_detail?: string;
}

/**
 * How often an append retries after another append took its seq. Each round one of the racing
 * appends wins, so this many concurrent appends to one tenant always land.
 */
const APPEND_ATTEMPTS = 64;

/**
 * Appends one entry to the tenant's chain and returns it sealed: read the head, put `head.seq + 1`
 * with `attribute_not_exists(pk)`; when another append took that seq first, read the head again.
 */
export async function appendAuditEntry(
  table: Table,
  tenantId: string,
  draft: AuditDraft,
): Promise<AuditEntry> {
  return appendWith(table, tenantId, draft, (entry) => appendEntry(table, entry));
}

/**
 * The append loop both ways of writing share: reads the head, seals the draft as `head.seq + 1`
 * and hands it to `write`; when another append took that seq first (AuditSeqTakenError), reads the
 * head again, with a short random pause to spread the racing appends out.
 */
async function appendWith(
  table: Table,
  tenantId: string,
  draft: AuditDraft,
  write: (entry: AuditEntry) => Promise<void>,
): Promise<AuditEntry> {
  const entryId = randomUUID();
  const requestId = currentRequestId() ?? null;
  for (let attempt = 1; ; attempt += 1) {
    const head = await readChainHead(table, tenantId);
    const seq = (head?.seq ?? 0) + 1;
    const entry = sealEntry(
      {
        seq,
        entry_id: entryId,
        tenant_id: tenantId,
        action: draft.action,
        outcome: draft.outcome,
        ...(draft.started_seq !== undefined ? { started_seq: draft.started_seq } : {}),
        ...(draft.outcome_detail !== undefined ? { outcome_detail: draft.outcome_detail } : {}),
        actor: { user_id: draft.actor.user_id, role: draft.actor.role },
        // Taken on each attempt: entries' times follow their seqs.
        at: new Date().toISOString(),
        request_id: requestId,
        target: withoutUndefined(draft.target ?? {}),
        details: withoutUndefined(draft.details ?? {}),
      },
      head?.hash ?? GENESIS_HASH,
    ) as AuditEntry;
    try {
      await write(entry);
      return entry;
    } catch (error) {
      // Another append took the seq, or its transaction was writing the same head meanwhile.
      const lost = error instanceof AuditSeqTakenError || error instanceof TransactionConflictError;
      if (!lost || attempt >= APPEND_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 * attempt)));
    }
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
      started_seq: started.seq,
      ...extra,
      target: { ...record.target, ...extra.target },
    }).catch((error) => {
      logger.error({ err: error, tenant: tenantId, startedSeq: started.seq }, 'audit outcome not recorded');
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

/**
 * Runs `action`, which makes its change through `commit`: the change's writes (a decision, an
 * approval, a deletion, a client and its claims, an endpoint) and the action's `done` entry
 * (what was asked, from `record`, merged with what changed, from the commit) are one
 * TransactWriteItems, so no change is ever written without its entry nor an entry without its
 * change. A commit whose entry lost its seq to a concurrent append is sent again at the new head
 * (the change's own conditions are checked again each time, so it lands at most once).
 *
 * An action refused (a DomainError, from its own checks or a refused condition of the commit)
 * writes nothing, and its refusal is appended alone as a `refused` entry with the refusal's
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
    await appendWith(table, tenantId, draft('done', outcome), (entry) =>
      transact(table, [...writes, appendEntryWrite(entry)]),
    );
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
