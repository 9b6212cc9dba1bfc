import { randomBytes } from 'node:crypto';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { DomainError, InvalidRequestError } from '../common/errors.ts';
import { isAuditId } from '../common/ids.ts';
import { keys, parseItem, type Table } from '../store/table.ts';
import { type Principal, requireRole } from './auth.ts';
import { ROLES } from './roles.ts';

/**
 * The tenant's audit trail of account administration: one item per action (adding a user,
 * disabling one, revoking a key, changing the plan), by a tenant admin or by operations (the ops
 * CLI). Items sort by time under `AUDIT#` in the tenant's partition, so only that tenant's admins
 * (and operations) ever read them.
 *
 * Write-ahead: the item is written as `started` BEFORE the action and completed after it with
 * `done` or `refused` (and the refusal's detail). There are no transactions to bind the action and
 * its record, so this order is what guarantees no action ever happens unrecorded: a process that
 * dies between the two leaves a `started` entry, never an action without one.
 */
export const AUDIT_ACTIONS = [
  'user.add',
  'user.disable',
  'user.revoke-key',
  'tenant.set-plan',
  // The retention settings (lib/tenancy/retention.ts) and the daily purge (lib/jobs/retention-purge.ts).
  'tenant.set-retention',
  'screens.purge',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Who acted: a tenant admin (their user id), operations through the ops CLI, or the service's own
 * scheduled jobs (`system`: the daily retention purge).
 */
export interface AuditActor {
  user_id: string;
  role: 'admin' | 'analyst' | 'ops' | 'system';
}

/** The ops CLI's actor: operations staff act across tenants, outside any tenant's users. */
export const OPS_ACTOR = { user_id: 'ops-cli', role: 'ops' } as const satisfies AuditActor;

export type AuditOutcome = 'started' | 'done' | 'refused' | 'failed';

export interface AuditEntry {
  audit_id: string;
  action: AuditAction;
  actor: AuditActor;
  /** The user acted on (user actions). */
  target_user_id?: string;
  /** What was asked or changed, never a key or a secret (e.g. the role added, the new plan). */
  details: Record<string, string>;
  at: string;
  outcome: AuditOutcome;
  /** The refusal's detail (`refused`), or what failed. */
  outcome_detail?: string;
  completed_at?: string;
}

const AuditEntrySchema = v.object({
  audit_id: v.string(),
  action: v.picklist(AUDIT_ACTIONS),
  actor: v.object({ user_id: v.string(), role: v.picklist([...ROLES, 'ops', 'system'] as const) }),
  target_user_id: v.optional(v.string()),
  details: v.record(v.string(), v.string()),
  at: v.string(),
  outcome: v.picklist(['started', 'done', 'refused', 'failed'] as const),
  outcome_detail: v.optional(v.string()),
  completed_at: v.optional(v.string()),
});

const auditKey = (tenantId: string, auditId: string) => ({
  pk: keys.tenantPartition(tenantId),
  sk: `AUDIT#${auditId}`,
});

/**
 * Runs `action` with its audit record around it (write-ahead, see above). The action's result is
 * returned; its error is recorded (`refused` for a domain error such as a 404 or 409, `failed`
 * otherwise) and rethrown. `resultDetails` adds what only the outcome knows (a purge's counts)
 * to the entry's details when it completes.
 */
export async function audited<T>(
  table: Table,
  tenantId: string,
  record: {
    action: AuditAction;
    actor: AuditActor;
    target_user_id?: string;
    details?: Record<string, string>;
    resultDetails?: (result: T) => Record<string, string>;
  },
  action: () => Promise<T>,
): Promise<T> {
  const { resultDetails, ...recorded } = record;
  const at = new Date();
  const audit_id = `${at.toISOString()}.${randomBytes(3).toString('hex')}`;
  const entry: AuditEntry = {
    audit_id,
    ...recorded,
    details: record.details ?? {},
    at: at.toISOString(),
    outcome: 'started',
  };
  await table.doc.send(
    new PutCommand({
      TableName: table.name,
      Item: { ...auditKey(tenantId, audit_id), entity: 'audit', tenant_id: tenantId, ...entry },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  const complete = (outcome: AuditOutcome, detail?: string, details?: Record<string, string>) =>
    table.doc.send(
      new UpdateCommand({
        TableName: table.name,
        Key: auditKey(tenantId, audit_id),
        UpdateExpression: `SET outcome = :outcome, completed_at = :at${detail ? ', outcome_detail = :detail' : ''}${details ? ', details = :details' : ''}`,
        ExpressionAttributeValues: {
          ':outcome': outcome,
          ':at': new Date().toISOString(),
          ...(detail ? { ':detail': detail } : {}),
          ...(details ? { ':details': { ...entry.details, ...details } } : {}),
        },
      }),
    );
  let result: T;
  try {
    result = await action();
  } catch (error) {
    await (error instanceof DomainError
      ? complete('refused', error.detail)
      : complete('failed', 'internal error')
    ).catch(() => undefined);
    throw error;
  }
  await complete('done', undefined, resultDetails?.(result));
  return result;
}

export const AUDIT_LIMIT_DEFAULT = 50;
export const AUDIT_LIMIT_MAX = 200;

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

/** The tenant's audit trail, newest first, a page at a time. The cursor is bound to the tenant. */
export async function listAudit(
  table: Table,
  tenantId: string,
  limit: number = AUDIT_LIMIT_DEFAULT,
  cursor?: string,
): Promise<AuditPage> {
  const after = cursor ? decodeAuditCursor(cursor, tenantId) : undefined;
  const { Items = [], LastEvaluatedKey } = await table.doc.send(
    new QueryCommand({
      TableName: table.name,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenantId), ':prefix': 'AUDIT#' },
      ScanIndexForward: false,
      Limit: limit + 1,
      ConsistentRead: true,
      ExclusiveStartKey: after ? auditKey(tenantId, after) : undefined,
    }),
  );
  const entries = Items.slice(0, limit).map((item) => parseItem(AuditEntrySchema, item));
  const more = Items.length > limit || (LastEvaluatedKey !== undefined && entries.length > 0);
  return {
    entries,
    next_cursor: more ? encodeAuditCursor(tenantId, entries[entries.length - 1].audit_id) : null,
  };
}

function encodeAuditCursor(tenantId: string, auditId: string): string {
  return Buffer.from(JSON.stringify({ l: 'audit', t: tenantId, id: auditId })).toString('base64url');
}

function decodeAuditCursor(cursor: string, tenantId: string): string {
  const invalid = new InvalidRequestError('cursor: is not a cursor this list issued; start again without it');
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw invalid;
  let body: { l?: unknown; t?: unknown; id?: unknown };
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) ?? {};
  } catch {
    throw invalid;
  }
  if (body.l !== 'audit' || body.t !== tenantId || typeof body.id !== 'string' || !isAuditId(body.id))
    throw invalid;
  return body.id;
}

/** GET /audit: the caller's tenant's trail, admins only. */
export function listAuditAsAdmin(
  table: Table,
  principal: Principal,
  limit?: number,
  cursor?: string,
): Promise<AuditPage> {
  requireRole(principal, 'admin', 'Reading the audit trail');
  return listAudit(table, principal.tenantId, limit, cursor);
}
