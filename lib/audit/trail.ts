import { randomUUID } from 'node:crypto';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { DomainError, InvalidRequestError } from '../common/errors.ts';
import { currentRequestId, logger } from '../common/log.ts';
import { keys } from '../store/schema.ts';
import { isConditionalCheckFailed, parseItem, type Table } from '../store/table.ts';
import { type ChainedEntry, GENESIS_HASH, sealEntry } from './chain.ts';

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
 * Write-ahead: `audited()` appends a `started` entry BEFORE the action and an outcome entry
 * (`done`, `refused` or `failed`, naming the started entry's seq) after it. There are no
 * transactions to bind the action and its record, so this order is what guarantees no action ever
 * happens unrecorded: a process that dies between the two leaves a `started` entry with no outcome
 * (the action may or may not have happened; the item itself says which), never an action without one.
 */
export const AUDIT_ACTIONS = [
  'screen.dispose',
  'screen.override',
  'screen.approve',
  'screen.delete',
  'client.register',
  'client.stop',
  'clients.rescreen',
  'lists.synced',
  // An operator's decision on a list file the sync held for review (lib/sync/review.ts).
  'lists.accept-held',
  'lists.reject-held',
  'tenant.set-plan',
  // The retention settings (lib/tenancy/retention.ts) and the daily purge (lib/jobs/retention-purge.ts).
  'tenant.set-retention',
  'screens.purge',
  'user.add',
  'user.disable',
  'user.revoke-key',
  'user.rotate-key',
  'audit.export',
  'screens.export',
  // An admin's change to a webhook endpoint (lib/webhooks/endpoints.ts); never the secret.
  'webhook.create',
  'webhook.update',
  'webhook.delete',
  'webhook.rotate-secret',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_ACTOR_ROLES = ['admin', 'analyst', 'ops', 'system'] as const;

/** Who acted: a tenant's user, operations through the ops CLI, or the service itself. */
export interface AuditActor {
  user_id: string;
  role: (typeof AUDIT_ACTOR_ROLES)[number];
}

/** The ops CLI's actor: operations staff act across tenants, outside any tenant's users. */
export const OPS_ACTOR = { user_id: 'ops-cli', role: 'ops' } as const satisfies AuditActor;

/** The service itself: list-change rescreen runs and the scheduler's jobs. */
export const SYSTEM_ACTOR = { user_id: 'system', role: 'system' } as const satisfies AuditActor;

export const AUDIT_OUTCOMES = ['started', 'done', 'refused', 'failed'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** What the entry is about: ids only. */
export interface AuditTarget {
  screen_id?: string;
  client_id?: string;
  user_id?: string;
  run_id?: string;
}

/**
 * What was asked or changed: flat values, never a key, a secret, a name or a date of birth (a
 * note is recorded as its SHA-256, `note_sha256`, so the record proves which note went with the
 * decision without copying what it says).
 */
export type AuditDetails = Record<string, string | number | boolean | null>;

/** One entry of the chain, as stored (the item, less its keys and `entity`). */
export interface AuditEntry extends ChainedEntry {
  seq: number;
  /** Unique id of the entry, kept across append retries. */
  entry_id: string;
  tenant_id: string;
  action: AuditAction;
  /** `started` before the action; `done`, `refused` or `failed` after it. */
  outcome: AuditOutcome;
  /** An outcome entry: the seq of the `started` entry it completes. */
  started_seq?: number;
  /** `refused`: the refusal's detail; `failed`: what failed (never internals). */
  outcome_detail?: string;
  actor: AuditActor;
  /** ISO 8601 with milliseconds. */
  at: string;
  /** The HTTP request that acted (its X-Request-Id), null outside a request (CLI, scheduler). */
  request_id: string | null;
  target: AuditTarget;
  details: AuditDetails;
  prev_hash: string;
  hash: string;
}

const AuditEntrySchema = v.object({
  seq: v.number(),
  entry_id: v.string(),
  tenant_id: v.string(),
  action: v.picklist(AUDIT_ACTIONS),
  outcome: v.picklist(AUDIT_OUTCOMES),
  started_seq: v.optional(v.number()),
  outcome_detail: v.optional(v.string()),
  actor: v.object({ user_id: v.string(), role: v.picklist(AUDIT_ACTOR_ROLES) }),
  at: v.string(),
  request_id: v.nullable(v.string()),
  target: v.object({
    screen_id: v.optional(v.string()),
    client_id: v.optional(v.string()),
    user_id: v.optional(v.string()),
    run_id: v.optional(v.string()),
  }),
  details: v.record(v.string(), v.nullable(v.union([v.string(), v.number(), v.boolean()]))),
  prev_hash: v.string(),
  hash: v.string(),
});

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
 * The sort keys of chained entries: `AUDIT#` and 12 digits. Seqs stay below 10^11, so every key
 * starts `AUDIT#0`; account-administration items written before the chain (`AUDIT#<ISO time>`,
 * starting `AUDIT#2`) sort after all of them and are never read as part of it.
 */
const FIRST_KEY = 'AUDIT#000000000001';
const LAST_KEY = 'AUDIT#099999999999';
const inChain = {
  KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
  ConsistentRead: true,
};
const chainValues = (tenantId: string) => ({
  ':pk': keys.tenantPartition(tenantId),
  ':first': FIRST_KEY,
  ':last': LAST_KEY,
});

/** The item's entry: every attribute but the table's keys and the entity marker. */
function entryOfItem(item: Record<string, unknown>): AuditEntry {
  const { pk: _pk, sk: _sk, entity: _entity, ...entry } = item;
  return entry as AuditEntry;
}

/** The last entry of the tenant's trail (consistent read), or undefined for an empty trail. */
export async function readChainHead(table: Table, tenantId: string): Promise<AuditEntry | undefined> {
  const { Items = [] } = await table.doc.send(
    new QueryCommand({
      TableName: table.name,
      ...inChain,
      ExpressionAttributeValues: chainValues(tenantId),
      ScanIndexForward: false,
      Limit: 1,
    }),
  );
  return Items[0] ? entryOfItem(Items[0]) : undefined;
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
      await table.doc.send(
        new PutCommand({
          TableName: table.name,
          Item: { ...keys.auditEntry(tenantId, seq), entity: 'audit', ...entry },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return entry;
    } catch (error) {
      if (!isConditionalCheckFailed(error) || attempt >= APPEND_ATTEMPTS) throw error;
      // A short random pause spreads the racing appends out.
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
  const { Items = [], LastEvaluatedKey } = await table.doc.send(
    new QueryCommand({
      TableName: table.name,
      ...inChain,
      ExpressionAttributeValues: chainValues(tenantId),
      ScanIndexForward: true,
      Limit: size,
      ...(afterSeq > 0 ? { ExclusiveStartKey: keys.auditEntry(tenantId, afterSeq) } : {}),
    }),
  );
  const entries = Items.map(entryOfItem);
  const last = Items[Items.length - 1];
  return {
    entries,
    // The key, not the entry's own seq: a tampered seq must not make a reader skip or loop.
    next_after_seq: LastEvaluatedKey && last ? seqOfKey(String(last.sk)) : null,
  };
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

const seqOfKey = (sk: string): number => Number(sk.slice('AUDIT#'.length));

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
  const { Items = [], LastEvaluatedKey } = await table.doc.send(
    new QueryCommand({
      TableName: table.name,
      ...inChain,
      ExpressionAttributeValues: chainValues(tenantId),
      ScanIndexForward: false,
      Limit: limit + 1,
      ExclusiveStartKey: before ? keys.auditEntry(tenantId, before) : undefined,
    }),
  );
  const page = Items.slice(0, limit);
  const entries = page.map((item) => parseItem(AuditEntrySchema, item) as AuditEntry);
  const more = Items.length > limit || (LastEvaluatedKey !== undefined && page.length > 0);
  return {
    entries,
    next_cursor: more ? encodeAuditCursor(tenantId, seqOfKey(String(page[page.length - 1].sk))) : null,
  };
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
