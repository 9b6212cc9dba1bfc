import { createHash, randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { isClientId } from '../common/ids.ts';
import { DAY_MS, isoSeconds } from '../common/time.ts';
import { RISK_ORDER, type RiskLevel } from '../matcher/types.ts';
import { ActorSchema } from '../screening/screen-record.ts';
import { SubjectSchema } from '../screening/subject.ts';
import { indexKeys, keys } from '../store/schema.ts';
import { parseItem, queryAll, type Table } from '../store/table.ts';
import { CHECK_TYPES } from '../watchlists/types.ts';

/**
 * A registered client: one subject the tenant keeps under ongoing monitoring. Its screens are
 * ordinary screens (origin `client_registration` or `rescreen`, carrying the client id); the
 * client item holds the profile, the latest outcome and when it is next due.
 */

/**
 * Default days between re-screens, by the latest risk level: the riskier the last outcome, the
 * sooner it is looked at again. A sanctions or high-confidence hit is re-checked weekly, a
 * partial match monthly, a clean or weak result quarterly (the cadence banks commonly apply to
 * high, medium and low risk customers). `rescreen_interval_days` on the client overrides it.
 */
export const DEFAULT_RESCREEN_DAYS: Record<RiskLevel, number> = {
  CRITICAL: 7,
  HIGH: 7,
  MEDIUM: 30,
  LOW: 90,
  CLEAR: 90,
};

/**
 * A tenant's due index is split over this many partitions by client id, so that one hot
 * partition (DynamoDB allows about 3,000 reads and 1,000 writes a second per partition) cannot
 * cap how many of a large tenant's clients fall due or are read back at once; a run reads the
 * shards in parallel.
 */
export const DUE_SHARDS = 16;

/** How long a claim holds a client before another run may take it (the worker's retries fit in it). */
export const RUN_CLAIM_LEASE_MS = 60 * 60_000;

export type ClientStatus = 'active' | 'stopped';

export const SYSTEM_ACTOR = { user_id: 'system', role: 'system' } as const;

/** `CLI-YYYYMMDD-hhmmssSSS-<6 hex>`: ids sort by registration time, so lists read newest first. */
export function newClientId(at: Date, suffix = randomBytes(3).toString('hex')): string {
  const stamp = at.toISOString().replace(/[-:T.Z]/g, '');
  return `CLI-${stamp.slice(0, 8)}-${stamp.slice(8, 17)}-${suffix}`;
}

/**
 * The client id of the subject at `index` of a client-registration batch: the same on every
 * attempt of that subject's job, so a retry after the client was written finds its own client
 * (and reference) instead of registering the subject twice or refusing it as a duplicate. The
 * time part is the batch's time plus the index in milliseconds (distinct within the batch, in
 * subject order); the suffix comes from the batch id.
 */
export function queuedClientId(batchCreatedAt: string, batchId: string, index: number): string {
  const suffix = createHash('sha256').update(batchId).digest('hex').slice(0, 6);
  return newClientId(new Date(Date.parse(batchCreatedAt) + index), suffix);
}

export function dueShardOf(clientId: string): number {
  return createHash('sha1').update(clientId).digest()[0] % DUE_SHARDS;
}

export function effectiveIntervalDays(
  client: Pick<ClientItem, 'rescreen_interval_days' | 'risk_level'>,
): number {
  return client.rescreen_interval_days ?? DEFAULT_RESCREEN_DAYS[client.risk_level];
}

export function nextDueAt(screenedAt: string, intervalDays: number): string {
  return isoSeconds(new Date(Date.parse(screenedAt) + intervalDays * DAY_MS));
}

/** The client's entries in the due index (only while monitored) and the by-risk index. */
export function clientIndexKeys(tenantId: string, clientId: string, riskLevel: RiskLevel, dueAt: string) {
  return {
    ...indexKeys('clientsByRisk', keys.clientsByRiskIndex(tenantId, riskLevel), clientId),
    ...dueIndexKeys(tenantId, clientId, dueAt),
  };
}

export function dueIndexKeys(tenantId: string, clientId: string, dueAt: string) {
  return indexKeys('clientsDue', keys.dueShard(tenantId, dueShardOf(clientId)), `${dueAt}#${clientId}`);
}

export const ClientItemSchema = v.object({
  pk: v.string(),
  sk: v.string(),
  entity: v.literal('client'),
  tenant_id: v.string(),
  client_id: v.string(),
  reference: v.nullable(v.string()),
  subject: SubjectSchema,
  types: v.array(v.picklist(CHECK_TYPES)),
  status: v.picklist(['active', 'stopped']),
  created_at: v.string(),
  created_by: ActorSchema,
  last_screen_id: v.string(),
  last_screened_at: v.string(),
  risk_level: v.picklist(RISK_ORDER),
  rescreen_interval_days: v.nullable(v.number()),
  next_due_at: v.string(),
  /** While a rescreen run holds the client: which run, and until when (a lease). */
  claim_run_id: v.optional(v.string()),
  claim_until: v.optional(v.string()),
  /**
   * The newest of the client's screens that received a settled decision (lib/monitoring/
   * settled-decisions.ts): a re-screen's baseline is never older than it.
   */
  settled_screen_id: v.optional(v.string()),
  /** The rescreen run that recorded `last_screen_id` (a redelivered job then does nothing). */
  last_run_id: v.optional(v.string()),
  stopped_at: v.optional(v.string()),
  stopped_by: v.optional(ActorSchema),
});

export type ClientItem = v.InferOutput<typeof ClientItemSchema>;

export function parseClientItem(item: Record<string, unknown>): ClientItem {
  return parseItem(ClientItemSchema, item);
}

/** The client profile as the API shows it. */
export interface ClientProfile {
  client_id: string;
  reference: string | null;
  subject: ClientItem['subject'];
  types: ClientItem['types'];
  status: ClientStatus;
  created_at: string;
  created_by: ClientItem['created_by'];
  last_screen_id: string;
  last_screened_at: string;
  risk_level: RiskLevel;
  /** The interval in force: the client's own, or the default for its risk level. */
  rescreen_interval_days: number;
  /** Whether `rescreen_interval_days` is the client's own (true) or the risk-level default. */
  rescreen_interval_custom: boolean;
  /** null once monitoring has stopped. */
  next_due_at: string | null;
  stopped_at?: string;
  stopped_by?: ClientItem['stopped_by'];
}

export function toClientProfile(item: ClientItem): ClientProfile {
  return {
    client_id: item.client_id,
    reference: item.reference,
    subject: item.subject,
    types: item.types,
    status: item.status,
    created_at: item.created_at,
    created_by: item.created_by,
    last_screen_id: item.last_screen_id,
    last_screened_at: item.last_screened_at,
    risk_level: item.risk_level,
    rescreen_interval_days: effectiveIntervalDays(item),
    rescreen_interval_custom: item.rescreen_interval_days !== null,
    next_due_at: item.status === 'active' ? item.next_due_at : null,
    ...(item.stopped_at ? { stopped_at: item.stopped_at, stopped_by: item.stopped_by } : {}),
  };
}

/** The tenant's client with this id (consistent read), or undefined. */
export async function findClient(table: Table, tenantId: string, clientId: string) {
  if (!isClientId(clientId)) return undefined;
  const { Item } = await table.doc.send(
    new GetCommand({ TableName: table.name, Key: keys.client(tenantId, clientId), ConsistentRead: true }),
  );
  return Item ? parseClientItem(Item) : undefined;
}

/**
 * Every monitored client of a tenant, oldest first (client ids sort by registration time): the
 * operator backfills (name keys, person claims) read each tenant's client items this way.
 */
export async function activeClientsOf(table: Table, tenantId: string): Promise<ClientItem[]> {
  const items = await queryAll(table, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :clients)',
    FilterExpression: '#status = :active',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':pk': keys.tenantPartition(tenantId),
      ':clients': 'CLIENT#',
      ':active': 'active',
    },
  });
  return items.map(parseClientItem);
}
