import { sha256Hex } from '../audit/chain.ts';
import { auditedCommit, type CommitAudited } from '../audit/trail.ts';
import { ConflictError, ForbiddenError, InvalidRequestError, NotFoundError } from '../common/errors.ts';
import { isScreenId } from '../common/ids.ts';
import { isoSeconds } from '../common/time.ts';
import { outboxEvent } from '../outbox/outbox.ts';
import { approvalRuleFor } from '../policy/policy.ts';
import { currentPolicy } from '../policy/policy-table.ts';
import type { Table } from '../store/table.ts';
import type { TableWrite } from '../store/write.ts';
import type { Principal } from '../tenancy/auth.ts';
import { sharedCredential } from '../tenancy/key-lineage.ts';
import { getUser } from '../tenancy/tenants.ts';
import { memoryWrites } from './remembered-false-positives.ts';
import type { DisposeRequest } from './request.ts';
import { currentDisposition, historyView } from './screen-record.ts';
import {
  type ApprovalRecord,
  type DecisionRecord,
  findScreen,
  HISTORY_BYTES_LIMIT,
  historyEntryBytes,
  parseScreenItem,
  type ScreenItem,
  SYSTEM_ROLE,
  screenWrites,
} from './screen-table.ts';
import { noteScreenDecision } from './screened-subjects.ts';
import type { ScreenHistory } from './screens-read.ts';

type Caller = Pick<Principal, 'tenantId' | 'userId' | 'role' | 'keyLineage'>;

/** A follow-up run once a decision is written (lib/jobs/dispose-screen.ts passes monitoring's). */
export type AfterDecision = (table: Table, decided: ScreenItem, at: Date) => Promise<void>;

/**
 * What another feature joins to a decision (lib/jobs/dispose-screen.ts passes monitoring's):
 * - `alongside`: writes of other records made in the decision's own transaction, given the
 *   screen as the decision leaves it (a client's settled pointer). They never block the
 *   decision: when one of them is refused, the decision is made again without them.
 * - `after`: a follow-up run once the decision is written, never part of it.
 */
export interface DecisionHooks {
  alongside?: (decided: ScreenItem) => TableWrite[];
  after?: AfterDecision;
}

/** Reads and writes of one decision, before one of them lands (each retry is cheap: one read). */
const DECISION_ATTEMPTS = 8;

/** The write was refused because the screen changed since it was read: read it again and retry. */
class ScreenChangedMeanwhile extends ConflictError {}

/** A write joined to the decision (`alongside`) was refused: the decision goes ahead without it. */
class AlongsideRefused extends ConflictError {}

/**
 * POST /screens/{screen_id}/dispose, recorded in the tenant's audit trail (lib/audit/trail.ts,
 * `auditedCommit`): the decision (its screen write, which carries its outbox events) and its
 * `done` entry are ONE transaction. The entry names the screen, the action (a disposition, an
 * override or an approval), what was asked (the note only as its SHA-256), the decision in force
 * before it and what the write did (the version it produced, the decision in force after it and
 * whether it awaits approval), computed from a consistent read of the screen: the write is
 * conditional on the screen's history being still as read (`history_count`), so the entry states
 * exactly what it did. When it changed meanwhile (a concurrent decision), the screen is read again
 * and the decision retried, so a refusal is always its rule's own (`refused` entry, alone, nothing
 * written). The rules themselves are `decisionWrite`'s, below.
 */
export async function disposeScreen(
  table: Table,
  caller: Caller,
  screenId: string,
  request: DisposeRequest,
  at: Date = new Date(),
  hooks: DecisionHooks = {},
): Promise<ScreenHistory> {
  if (!isScreenId(screenId)) {
    checkRequest(caller, request);
    throw new NotFoundError(`Screen ${screenId} not found`);
  }
  const [read, policy] = await Promise.all([
    findScreen(table, caller.tenantId, screenId),
    currentPolicy(table, caller.tenantId),
  ]);
  // The tenant's policy may ask a second person to sign off this decision (docs/policies.md):
  // the decision is then recorded awaiting approval, whether or not the caller asked for it.
  const rule = read ? approvalRuleFor(policy.policy, request.disposition, read.risk_level) : undefined;
  if (rule && !request.approval_requested) request = { ...request, approval_requested: true };
  const decided = await auditedCommit(
    table,
    caller.tenantId,
    {
      action:
        request.disposition === 'approved'
          ? 'screen.approve'
          : request.override
            ? 'screen.override'
            : 'screen.dispose',
      actor: { user_id: caller.userId, role: caller.role },
      target: { screen_id: screenId },
      details: {
        disposition: request.disposition,
        override: request.override === true,
        approval_requested: request.approval_requested === true,
        approves_version: request.approves_version ?? null,
        note_sha256: request.note ? sha256Hex(request.note) : null,
        policy_version: policy.version,
        approval_required_by_policy: rule ?? null,
        ...inForceBefore(read),
      },
    },
    (commit) => recordDecision(table, caller, screenId, request, at, { read, commit, hooks }),
  );
  // Follow-ups of a decision written: derived data, each logs its own failure.
  await noteScreenDecision(table, decided, at);
  await hooks.after?.(table, decided, at);
  return {
    screen_id: decided.screen_id,
    disposition: currentDisposition(decided),
    history: historyView(decided.history),
  };
}

/** The decision in force before a decision, as its audit entry names it. */
function inForceBefore(found: ScreenItem | undefined) {
  return {
    risk_level: found?.risk_level ?? null,
    in_force_before: found?.disposition?.disposition ?? null,
    in_force_version_before: found?.decision_version ?? null,
  };
}

/** What a decision did, as its audit entry names it: from the screen as the decision leaves it. */
function decisionOutcome(decided: ScreenItem) {
  const inForce = currentDisposition(decided);
  return {
    version: decided.history.length,
    in_force: inForce?.disposition ?? null,
    in_force_version: inForce?.decision_version ?? null,
    awaiting_approval: inForce?.awaiting_approval ?? false,
  };
}

/** The request's own rules, whatever the screen: who may approve, which fields go together. */
function checkRequest(caller: Caller, request: DisposeRequest): void {
  if (request.disposition === 'approved') {
    if (caller.role !== 'admin') {
      throw new ForbiddenError(
        `Only an admin can give the approved disposition (a sign-off); your role is ${caller.role}`,
      );
    }
    if (request.approval_requested) {
      throw new InvalidRequestError(
        'approval_requested: cannot be set on an approval; an approval is the sign-off',
      );
    }
  } else if (request.approves_version !== undefined) {
    throw new InvalidRequestError('approves_version: only goes with the "approved" disposition');
  }
}

/**
 * POST /screens/{screen_id}/dispose: the state table and the sign-off rules. Each rule is one
 * conditional UpdateItem on the screen item (history appended with list_append in the same
 * write), committed with its audit entry, so two concurrent decisions on a pending screen cannot
 * both land: one wins, the other gets 409. When a condition fails, the item DynamoDB found
 * (ALL_OLD) says which status applies.
 *
 * - `approved` needs the admin role (403 whatever the state, checked first) and signs off one
 *   decision version (docs/api-guide.md#record-a-disposition-post-screensiddispose), on any
 *   decided screen, whether or not approval was requested (the contract: an admin's sign-off on a
 *   disposition):
 *   - with `approves_version`, that one: 409 when it is no longer the decision in force (a
 *     decision replaced while the admin reviewed it);
 *   - without it (the contract's body), the decision in force when the request arrives: the
 *     version is resolved from the first consistent read, and the write then binds to it exactly
 *     as if the admin had named it (a retry keeps it), so a decision replaced meanwhile is 409.
 *   409 on a pending or already-approved screen. 403 (four eyes, `four_eyes_required`) when the
 *   admin made the decision (wherever they made it: a decision the system carried to this screen
 *   keeps its author), or when either of the two could have held the other's key
 *   (lib/tenancy/key-lineage.ts), or when the decision names no person (the system carried it
 *   before carried decisions kept their author).
 * - Any other value on a pending screen records it; on a screen with a disposition it is a 409
 *   naming the disposition and its author, unless `override: true`, which replaces it (and any
 *   sign-off of it); both stay in the history.
 * - `approval_requested: true` marks the disposition as awaiting an admin's sign-off.
 * - The history is bounded by HISTORY_BYTES_LIMIT: past it, 409 (screen the subject afresh).
 * - Every entry records `author_key_lineage`: who besides the author could hold the key it was
 *   made with, so a later sign-off is judged by the key the decision was made with.
 *
 * The same write keeps the version counters: `history_count` (entries so far; SET expressions
 * read the item as it was, so the new decision's version is the old count plus one) and
 * `history_bytes`; it is conditional on `history_count` being as read, so the screen as the
 * decision leaves it is known before it is written: that is what it returns.
 *
 * `hooks.alongside` writes join the transaction (on a client's screen, a settled decision moves
 * the client's settled pointer: lib/monitoring/settled-decisions.ts); refused, the decision is
 * committed again without them.
 */
async function recordDecision(
  table: Table,
  caller: Caller,
  screenId: string,
  request: DisposeRequest,
  at: Date,
  { read, commit, hooks }: { read: ScreenItem | undefined; commit: CommitAudited; hooks: DecisionHooks },
): Promise<ScreenItem> {
  checkRequest(caller, request);
  const notFound = new NotFoundError(`Screen ${screenId} not found`);
  let found = read;
  let approvesVersion: number | undefined;
  let alongside = hooks.alongside;
  for (let attempt = 1; ; attempt += 1) {
    if (!found) throw notFound;
    if (request.disposition === 'approved') {
      // An approval binds to one decision version, named or resolved on the first read.
      approvesVersion ??= request.approves_version ?? versionInForce(found);
      await checkApproval(table, caller, found, request, approvesVersion);
    }
    const { write, decided } = decisionWrite(caller, found, request, at, approvesVersion, notFound);
    const joined = (alongside?.(decided) ?? []).map((extra) => ({
      ...extra,
      refused: () => new AlongsideRefused(`The ${extra.what} could not be written with the decision`),
    }));
    // The tenant's memory of decided false positives changes with the decision, in its transaction.
    const memory = memoryWrites(decided, at);
    try {
      await commit([write, ...memory.writes, ...joined], {
        details: {
          ...inForceBefore(found),
          ...decisionOutcome(decided),
          false_positives_remembered: memory.remembered,
          false_positives_forgotten: memory.forgotten,
        },
      });
      return decided;
    } catch (error) {
      if (attempt >= DECISION_ATTEMPTS) {
        if (error instanceof ScreenChangedMeanwhile || error instanceof AlongsideRefused)
          throw new ConflictError(
            `Screen ${screenId} changed while the decision was being recorded; send the request again`,
          );
        throw error;
      }
      if (error instanceof AlongsideRefused) alongside = undefined;
      else if (error instanceof ScreenChangedMeanwhile)
        found = await findScreen(table, caller.tenantId, screenId);
      else throw error;
    }
  }
}

/**
 * The decision's screen write, and the screen as it leaves it (the screen as read, with the
 * entry appended as the write appends it). The write is conditional on the screen's history
 * being still as read; refused, the screen DynamoDB found says why: changed meanwhile (retried),
 * or the rule's own refusal.
 */
function decisionWrite(
  caller: Caller,
  found: ScreenItem,
  request: DisposeRequest,
  at: Date,
  approvesVersion: number | undefined,
  notFound: NotFoundError,
): { write: TableWrite; decided: ScreenItem } {
  const { tenantId } = caller;
  const screenId = found.screen_id;
  const approving = approvesVersion !== undefined;
  const author = { user_id: caller.userId, role: caller.role };
  const authorKeyLineage = [...(caller.keyLineage ?? [])];
  const entry: DecisionRecord = {
    disposition: request.disposition,
    note: request.note ?? null,
    author,
    author_key_lineage: authorKeyLineage,
    at: isoSeconds(at),
    override: !approving && request.override === true,
    approval_requested: request.approval_requested === true,
    ...(approving ? { approves_version: approvesVersion } : {}),
  };
  const historyCount = found.history_count;
  const refused = (stored: Record<string, unknown> | undefined) => {
    if (!stored) return notFound;
    const now = parseScreenItem(stored);
    if (now.history_count !== historyCount)
      return new ScreenChangedMeanwhile(`Screen ${screenId} changed since it was read`);
    return explainRefusal(now, request, caller, approvesVersion);
  };
  // The screen as the write leaves it (SET reads the item as it was: the new version is the old count plus one).
  const version = (historyCount ?? 0) + 1;
  const appended = {
    ...found,
    history: [...found.history, entry],
    history_count: version,
    history_bytes: (found.history_bytes ?? 0) + historyEntryBytes(entry),
  };

  if (approving) {
    const approval: ApprovalRecord = {
      author,
      author_key_lineage: authorKeyLineage,
      at: entry.at,
      note: entry.note,
      approves_version: approvesVersion,
    };
    const approved = outboxEvent(
      'screen.approved',
      tenantId,
      {
        screen_id: screenId,
        approves_version: approvesVersion,
        approved_by: caller.userId,
        approved_at: entry.at,
      },
      at,
    );
    return {
      write: screenWrites.approve(tenantId, screenId, approval, entry, {
        approver: caller.userId,
        version: approvesVersion,
        historyCount,
        events: [approved],
        refused,
      }),
      decided: { ...appended, approval },
    };
  }
  // A decision that asks for an admin's sign-off is announced with it (the approvers' queue).
  const awaiting = request.approval_requested
    ? [
        outboxEvent(
          'screen.decision_awaiting_approval',
          tenantId,
          {
            screen_id: screenId,
            disposition: request.disposition,
            decided_by: caller.userId,
            decided_at: entry.at,
          },
          at,
        ),
      ]
    : [];
  const { approval: _replaced, ...withoutApproval } = appended;
  return {
    write: screenWrites.recordDecision(tenantId, screenId, entry, {
      override: request.override === true,
      historyCount,
      events: awaiting,
      refused,
    }),
    // An override removes any sign-off; a decision on a pending screen has none to remove.
    decided: {
      ...(request.override ? withoutApproval : appended),
      disposition: entry,
      decision_version: version,
    },
  };
}

/**
 * Whether the admin may sign off decision `version` of the screen as read: a refusal (stale
 * version, nothing awaiting, four eyes) is explained without writing; the write's condition then
 * re-checks what may have changed since.
 */
async function checkApproval(
  table: Table,
  caller: Caller,
  found: ScreenItem,
  request: DisposeRequest,
  version: number,
): Promise<void> {
  const author = found.disposition?.author;
  // The author's current key too: who could act as them now (a decision made before lineages were
  // recorded has no lineage of its own).
  const authorUser =
    author && author.role !== SYSTEM_ROLE ? await getUser(table, caller.tenantId, author.user_id) : undefined;
  const refusal = approvalRefusal(found, request, caller, version, authorUser?.key_lineage);
  if (refusal) throw refusal;
}

/**
 * Without `approves_version` (the contract's body), an approval signs off the decision in force as
 * the request found it: the version the admin read. A decision recorded before decisions were
 * versioned cannot be bound to one: 409, record it again. Pending and approved screens are named
 * by approvalRefusal.
 */
function versionInForce(found: ScreenItem): number {
  const decision = found.disposition;
  const version = found.decision_version;
  if (!decision || found.approval) return version ?? 0;
  if (!version) {
    throw new ConflictError(
      `Screen ${found.screen_id}: the decision in force, ${decision.disposition}, recorded by ${decision.author.user_id} (${decision.author.role}) at ${decision.at}, was recorded before decisions were versioned and cannot be approved; record it again to sign it off`,
      currentDisposition(found),
    );
  }
  return version;
}

/** Which rule refused the write, judged from the item as DynamoDB found it. */
function explainRefusal(
  found: ScreenItem,
  request: DisposeRequest,
  caller: Caller,
  approvesVersion: number | undefined,
): Error {
  if (request.disposition === 'approved') {
    return approvalRefusal(found, request, caller, approvesVersion) ?? historyFull(found);
  }
  const current = currentDisposition(found);
  if (!current) return historyFull(found);
  if (!request.override) {
    const who = `${current.author.user_id} (${current.author.role}) at ${current.at}`;
    return new ConflictError(
      `Screen ${found.screen_id} already has the disposition ${current.disposition}, recorded by ${who}; send "override": true to replace it`,
      current,
      'already_disposed',
    );
  }
  return historyFull(found);
}

/**
 * Why an admin may not sign off decision `version` of the screen as found, or undefined when they
 * may: nothing to approve (409), already approved (409), another decision in force (409), their own
 * decision or a key either of them could hold for the other (403, four eyes). `authorKeyLineage`
 * adds the author's current key's lineage where it was read.
 */
function approvalRefusal(
  found: ScreenItem,
  request: DisposeRequest,
  caller: Caller,
  version: number | undefined,
  authorKeyLineage?: readonly string[],
): Error | undefined {
  const current = currentDisposition(found);
  const decision = found.disposition;
  if (!current || !decision) {
    return new ConflictError(
      `Screen ${found.screen_id} is pending: there is no disposition to approve yet; record one first`,
    );
  }
  if (found.approval) {
    const who = `${current.author.user_id} (${current.author.role}) at ${current.at}`;
    return new ConflictError(`Screen ${found.screen_id} is already approved by ${who}`, current);
  }
  if (found.decision_version !== version) {
    const inForce = `${decision.disposition} (decision_version ${found.decision_version ?? 'unknown'}), recorded by ${decision.author.user_id} (${decision.author.role}) at ${decision.at}`;
    const seen = version ? found.history?.[version - 1] : undefined;
    const sawWhat = seen && seen.disposition !== 'approved' ? ` (${seen.disposition})` : '';
    const reviewed =
      request.approves_version === undefined
        ? `the decision in force when your request arrived was decision_version ${version}${sawWhat}`
        : `you reviewed decision_version ${version}${sawWhat}`;
    return new ConflictError(
      `Screen ${found.screen_id}: ${reviewed}, but the decision in force is now ${inForce}; review it and approve that version`,
      current,
    );
  }
  // Carried by the system, the decision is still its author's (on the screen where they made it).
  const carried = decision.carried_from
    ? ` on ${decision.carried_from.screen_id}, and the system carried it to this screen`
    : '';
  if (decision.author.user_id === caller.userId) {
    return new ForbiddenError(
      `Screen ${found.screen_id}: you recorded the disposition ${decision.disposition} yourself${carried}; another admin must approve it (four-eyes principle)`,
      'four_eyes_required',
    );
  }
  if (decision.author.role === SYSTEM_ROLE) {
    return new ForbiddenError(
      `Screen ${found.screen_id}: four-eyes principle: the disposition ${decision.disposition} was carried to this screen by the system before carried decisions kept the person who made them, so nobody can tell whether you made it; record it again ("override": true) and have another admin approve it`,
      'four_eyes_required',
    );
  }
  const shared = sharedCredential(
    { user_id: decision.author.user_id, lineages: [decision.author_key_lineage, authorKeyLineage] },
    { user_id: caller.userId, lineages: [caller.keyLineage] },
  );
  if (shared)
    return new ForbiddenError(
      `Screen ${found.screen_id}: four-eyes principle: ${shared}`,
      'four_eyes_required',
    );
  return undefined;
}

function historyFull(found: ScreenItem): ConflictError {
  return new ConflictError(
    `Screen ${found.screen_id}: its disposition history is full (${found.history_count ?? found.history?.length ?? 0} entries, ${found.history_bytes ?? 0} of ${HISTORY_BYTES_LIMIT} bytes); a decision already recorded can still be approved. Screen the subject again with "force": true to start a new screen`,
  );
}
