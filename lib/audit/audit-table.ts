import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { keys } from '../store/schema.ts';
import { parseItem, queryPage, readItem, type Table } from '../store/table.ts';
import { sendWrite, type TableWrite } from '../store/write.ts';

/**
 * The `audit` item: one entry of a tenant's hash-chained trail (lib/audit/trail.ts), `AUDIT#<seq>`
 * in the tenant's partition; and the `audit-pending` item: an entry as its action wrote it, in the
 * action's own transaction, before the tenant's chain writer (lib/audit/chain-writer.ts) gives it
 * a seq and links it. This module declares the entry once, reads the chain (its head, a page after
 * a seq, a page before one) and the entries waiting for it, and builds the writes as values.
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
  // An admin's test event to an endpoint (lib/webhooks/test-event.ts).
  'webhook.test',
  // A decision the system carried to a client's newer screen, by its author (lib/monitoring/carried-decisions.ts).
  'screen.carry',
  // An admin's replay of a screen on its receipt's snapshot and today's lists (lib/screening/replay.ts).
  'screen.replay',
  // An admin's replay of a webhook delivery (lib/webhooks/deliveries.ts).
  'webhook.replay',
  // An admin's revocation of a remembered false positive (lib/screening/false-positive-memory.ts).
  'false-positive.revoke',
  // A version of a tenant's screening policy adopted (lib/policy/policy-settings.ts; docs/policies.md).
  'policy.adopt',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_ACTOR_ROLES = ['admin', 'analyst', 'ops', 'system'] as const;

export const AUDIT_OUTCOMES = ['started', 'done', 'refused', 'failed'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** Who acted: a tenant's user, operations through the ops CLI, or the service itself. */
const AuditActorSchema = v.object({ user_id: v.string(), role: v.picklist(AUDIT_ACTOR_ROLES) });
export type AuditActor = v.InferOutput<typeof AuditActorSchema>;

/** What the entry is about: ids only. */
const AuditTargetSchema = v.object({
  screen_id: v.optional(v.string()),
  client_id: v.optional(v.string()),
  user_id: v.optional(v.string()),
  run_id: v.optional(v.string()),
});
export type AuditTarget = v.InferOutput<typeof AuditTargetSchema>;

/**
 * What was asked or changed: flat values, never a key, a secret, a name or a date of birth (a
 * note is recorded as its SHA-256, `note_sha256`, so the record proves which note went with the
 * decision without copying what it says).
 */
const AuditDetailsSchema = v.record(v.string(), v.nullable(v.union([v.string(), v.number(), v.boolean()])));
export type AuditDetails = v.InferOutput<typeof AuditDetailsSchema>;

/** One entry of the chain, as stored (the item, less its keys and `entity`). */
const AuditEntrySchema = v.object({
  seq: v.number(),
  /** Unique id of the entry, kept across append retries. */
  entry_id: v.string(),
  tenant_id: v.string(),
  action: v.picklist(AUDIT_ACTIONS),
  /** `started` before the action; `done`, `refused` or `failed` after it. */
  outcome: v.picklist(AUDIT_OUTCOMES),
  /** An outcome entry of an action recorded before the chain writer: the seq of its `started` entry. */
  started_seq: v.optional(v.number()),
  /** An outcome entry: the `entry_id` of the `started` entry it completes. */
  started_entry_id: v.optional(v.string()),
  /** `refused`: the refusal's detail; `failed`: what failed (never internals). */
  outcome_detail: v.optional(v.string()),
  actor: AuditActorSchema,
  /** ISO 8601 with milliseconds. */
  at: v.string(),
  /** The HTTP request that acted (its X-Request-Id), null outside a request (CLI, scheduler). */
  request_id: v.nullable(v.string()),
  target: AuditTargetSchema,
  details: AuditDetailsSchema,
  prev_hash: v.string(),
  hash: v.string(),
});
export type AuditEntry = v.InferOutput<typeof AuditEntrySchema>;

/** An entry as its action writes it: everything but its place in the chain. */
export type UnchainedEntry = Omit<AuditEntry, 'seq' | 'prev_hash' | 'hash'>;

/**
 * The sort keys of chained entries: `AUDIT#` and 12 digits. Seqs stay below 10^11, so every key
 * starts `AUDIT#0`; account-administration items written before the chain (`AUDIT#<ISO time>`,
 * starting `AUDIT#2`) sort after all of them and are never read as part of it.
 */
const FIRST_KEY = 'AUDIT#000000000001';
const LAST_KEY = 'AUDIT#099999999999';
const inChain = (tenantId: string) => ({
  KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
  ConsistentRead: true,
  ExpressionAttributeValues: {
    ':pk': keys.tenantPartition(tenantId),
    ':first': FIRST_KEY,
    ':last': LAST_KEY,
  },
});

/** The seq a chained entry's sort key names. */
export const seqOfKey = (sk: string): number => Number(sk.slice('AUDIT#'.length));

/**
 * The item's entry: every attribute but the table's keys and the entity marker, NOT parsed: the
 * chain's own reads (head, export, verification) see every field as stored, so a verifier sees a
 * field an edit may have added, and a malformed entry is reported by the chain check, not here.
 */
function entryOfItem(item: Record<string, unknown>): AuditEntry {
  const { pk: _pk, sk: _sk, entity: _entity, ...entry } = item;
  return entry as AuditEntry;
}

/** The last entry of the tenant's trail (consistent read), or undefined for an empty trail. */
export async function readChainHead(table: Table, tenantId: string): Promise<AuditEntry | undefined> {
  const { items } = await queryChain(table, tenantId, { ScanIndexForward: false, Limit: 1 });
  return items[0] ? entryOfItem(items[0]) : undefined;
}

/** A `put` of entry `seq` found it taken by another append: read the head again. */
export class AuditSeqTakenError extends Error {
  constructor(seq: number) {
    super(`Audit entry ${seq} was appended meanwhile`);
    this.name = 'AuditSeqTakenError';
  }
}

/**
 * The append of a sealed entry: ONE put of `AUDIT#<seq>` with `attribute_not_exists(pk)`, so two
 * concurrent appends can never take the same seq; the loser's refusal is {@link AuditSeqTakenError}.
 */
export function appendEntryWrite(entry: AuditEntry): TableWrite {
  return {
    Put: {
      Item: { ...keys.auditEntry(entry.tenant_id, entry.seq), entity: 'audit', ...entry },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
    what: 'audit entry',
    refused: () => new AuditSeqTakenError(entry.seq),
  };
}

/** The chain writer found an entry it was linking already linked, by another writer meanwhile. */
export class AuditEntryChainedError extends Error {
  constructor(entryId: string) {
    super(`Audit entry ${entryId} was chained meanwhile`);
    this.name = 'AuditEntryChainedError';
  }
}

/**
 * An action's entry, written in the action's own transaction: a put of a fresh key
 * (`AUDITQ#<at>#<entry_id>`), so concurrent actions of one tenant never contend for it.
 */
export function pendingEntryWrite(entry: UnchainedEntry): TableWrite {
  return {
    Put: {
      Item: {
        ...keys.auditPending(entry.tenant_id, entry.at, entry.entry_id),
        entity: 'audit-pending',
        ...entry,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
    what: 'audit entry',
  };
}

/** An entry waiting for the chain writer, with the sort key it waits under. */
export interface PendingEntry {
  sk: string;
  entry: UnchainedEntry;
}

/** Up to `limit` of the tenant's entries waiting to be chained, oldest first (consistent read). */
export async function readPendingEntries(
  table: Table,
  tenantId: string,
  limit: number,
): Promise<PendingEntry[]> {
  const { Items = [] } = await table.doc.send(
    new QueryCommand({ TableName: table.name, ...waiting(tenantId), Limit: limit }),
  );
  return Items.map((item) => ({ sk: String(item.sk), entry: entryOfItem(item) as UnchainedEntry }));
}

/** How many of the tenant's entries wait to be chained (counted a page of 1 MB at a time). */
export async function countPendingEntries(table: Table, tenantId: string): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.doc.send(
      new QueryCommand({
        TableName: table.name,
        ...waiting(tenantId),
        Select: 'COUNT',
        ExclusiveStartKey: start,
      }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

/** The tenant's waiting entries, oldest first, read consistently. */
const waiting = (tenantId: string) => ({
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :pending)',
  ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenantId), ':pending': 'AUDITQ#' },
  ConsistentRead: true,
});

/** Whether the entry still waits for the chain writer (consistent read of its waiting item). */
export async function isWaiting(table: Table, entry: UnchainedEntry): Promise<boolean> {
  const item = await readItem(table, keys.auditPending(entry.tenant_id, entry.at, entry.entry_id));
  return item !== undefined;
}

/**
 * Linking one waiting entry: the put of its chained entry (seq not taken) and the delete of its
 * waiting item (still there: no other writer linked it meanwhile), for one transaction.
 */
export function chainEntryWrites(pending: PendingEntry, sealed: AuditEntry): TableWrite[] {
  return [
    appendEntryWrite(sealed),
    {
      Delete: {
        Key: { pk: keys.tenantPartition(sealed.tenant_id), sk: pending.sk },
        ConditionExpression: 'attribute_exists(pk)',
      },
      what: 'waiting audit entry',
      refused: () => new AuditEntryChainedError(sealed.entry_id),
    },
  ];
}

async function queryChain(
  table: Table,
  tenantId: string,
  page: { ScanIndexForward: boolean; Limit: number; ExclusiveStartKey?: Record<string, string> },
): Promise<{ items: Record<string, unknown>[]; more: boolean }> {
  const { Items = [], LastEvaluatedKey } = await table.doc.send(
    new QueryCommand({ TableName: table.name, ...inChain(tenantId), ...page }),
  );
  return { items: Items, more: LastEvaluatedKey !== undefined };
}

/**
 * Up to `limit` entries after `afterSeq` (0: from the first), oldest first, as stored (not
 * reshaped), with the seq of the last one's key when the store holds more (DynamoDB's
 * LastEvaluatedKey), else null.
 */
export async function chainEntriesAfter(
  table: Table,
  tenantId: string,
  afterSeq: number,
  limit: number,
): Promise<{ entries: AuditEntry[]; nextAfterSeq: number | null }> {
  const { items, more } = await queryChain(table, tenantId, {
    ScanIndexForward: true,
    Limit: limit,
    ...(afterSeq > 0 ? { ExclusiveStartKey: keys.auditEntry(tenantId, afterSeq) } : {}),
  });
  const last = items[items.length - 1];
  return {
    entries: items.map(entryOfItem),
    // The key, not the entry's own seq: a tampered seq must not make a reader skip or loop.
    nextAfterSeq: more && last ? seqOfKey(String(last.sk)) : null,
  };
}

/**
 * Up to `limit` entries before `beforeSeq` (undefined: from the head), newest first, parsed; with
 * the seq of the last one's key when there are more, else null.
 */
export async function chainEntriesBefore(
  table: Table,
  tenantId: string,
  beforeSeq: number | undefined,
  limit: number,
): Promise<{ entries: AuditEntry[]; lastSeq: number | null }> {
  const { items, more } = await queryPage(
    table,
    {
      ...inChain(tenantId),
      ExclusiveStartKey: beforeSeq ? keys.auditEntry(tenantId, beforeSeq) : undefined,
    },
    limit,
  );
  return {
    entries: items.map((item) => parseItem(AuditEntrySchema, item)),
    lastSeq: more ? seqOfKey(String(items[items.length - 1].sk)) : null,
  };
}
