import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { ConflictError } from '../common/errors.ts';
import { isClientId } from '../common/ids.ts';
import { isoSeconds } from '../common/time.ts';
import { RISK_ORDER, type RiskLevel } from '../matcher/types.ts';
import { type Actor, ActorSchema } from '../screening/screen-record.ts';
import { SubjectSchema } from '../screening/subject.ts';
import { INDEXES, indexAttributes, indexKeys, keys } from '../store/schema.ts';
import {
  getAll,
  parseItem,
  queryAll,
  queryIndexPage,
  queryPage,
  readItem,
  type Table,
} from '../store/table.ts';
import { type TableWrite, transact, trySendWrite } from '../store/write.ts';
import { CHECK_TYPES } from '../watchlists/types.ts';

/**
 * The client item (entity `client`, sk CLIENT#<client_id>): a registered client's profile, its
 * latest outcome and when it is next due, with its entries in the clients-by-risk index and,
 * while monitored, in the sharded clients-due index. This module is the one that reads and
 * writes it; the profile as the API shows it and the re-screen cadence are in client-record.ts.
 */

/**
 * A tenant's due index is split over this many partitions by client id, so that one hot
 * partition (DynamoDB allows about 3,000 reads and 1,000 writes a second per partition) cannot
 * cap how many of a large tenant's clients fall due or are read back at once; a run reads the
 * shards in parallel.
 */
export const DUE_SHARDS = 16;

export function dueShardOf(clientId: string): number {
  return createHash('sha1').update(clientId).digest()[0] % DUE_SHARDS;
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
  /**
   * The person claims the client holds (lib/monitoring/client-claim-table.ts), released from this
   * record at its stop, so a later change of how names are folded cannot strand one. Absent on a
   * client registered before they were recorded (`npm run admin -- claim-client-persons`).
   */
  person_claims: v.optional(
    v.array(
      v.object({
        hash: v.string(),
        holds: v.picklist(['client', 'with_both', 'dob_only', 'nationality_only']),
      }),
    ),
  ),
});

export type ClientItem = v.InferOutput<typeof ClientItemSchema>;

export function parseClientItem(item: Record<string, unknown>): ClientItem {
  return parseItem(ClientItemSchema, item);
}

/** A new client's item: its fields under its key. */
export function newClientItem(fields: Omit<ClientItem, 'pk' | 'sk' | 'entity'>): ClientItem {
  return { ...keys.client(fields.tenant_id, fields.client_id), entity: 'client', ...fields };
}

/** The client as a rescreen run found it due: its due date and the screen it had then. */
export interface SeenClient {
  dueAt: string | undefined;
  lastScreenId: string | undefined;
}

/** A rescreen's new outcome, as the client records it. */
export interface RescreenOutcome {
  screen_id: string;
  screened_at: string;
  risk_level: RiskLevel;
}

export const clientWrites = {
  /** A new client with its by-risk and due index entries; refused when the id is taken. */
  register(client: ClientItem): TableWrite {
    return {
      what: 'client',
      Put: {
        Item: {
          ...client,
          ...clientIndexKeys(client.tenant_id, client.client_id, client.risk_level, client.next_due_at),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
      refused: () => new ConflictError(`Client ${client.client_id} is already registered`),
    };
  },

  /**
   * Records the person claims taken for an active client registered before its item recorded
   * them (the claim-client-persons upgrade); refused when it is not active or records them already.
   */
  recordPersonClaims(
    tenantId: string,
    clientId: string,
    personClaims: NonNullable<ClientItem['person_claims']>,
  ): TableWrite {
    return {
      what: 'client',
      Update: {
        Key: keys.client(tenantId, clientId),
        UpdateExpression: 'SET person_claims = :claims',
        ConditionExpression: '#status = :active AND attribute_not_exists(person_claims)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':claims': personClaims, ':active': 'active' },
      },
    };
  },

  /**
   * Monitoring stops: the client is marked `stopped` with who and when, and leaves the due index
   * so no run picks it again; refused unless it is active.
   */
  stop(tenantId: string, clientId: string, by: Actor, at: string): TableWrite {
    const [duePk, dueSk] = indexAttributes('clientsDue');
    return {
      what: 'client',
      Update: {
        Key: keys.client(tenantId, clientId),
        UpdateExpression: `SET #status = :stopped, stopped_at = :at, stopped_by = :by REMOVE ${duePk}, ${dueSk}`,
        ConditionExpression: 'attribute_exists(pk) AND #status = :active',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':stopped': 'stopped', ':active': 'active', ':at': at, ':by': by },
      },
    };
  },

  /**
   * Claims the client for a rescreen run: still monitored, still the due date and last screen
   * the run saw, and not held by another run's live claim (this run's own claim is taken again by
   * a retry). The last screen is what tells one due window from the next: every re-screen changes
   * it, whereas the due date, kept to the second, can come back the same (a run whose cut-off is
   * ahead of the clock, as a test's scheduled event is, re-screens a client in the second it was
   * registered), and a run that saw the client before another run re-screened it would then
   * screen and charge it again. The claim moves the client's due-index key to the end of the
   * lease (`leaseUntil`), so no other run finds it due meanwhile, and a run that dies leaves it
   * due again.
   */
  claimForRun(
    tenantId: string,
    clientId: string,
    runId: string,
    seen: SeenClient,
    lease: { now: string; leaseUntil: string },
  ): TableWrite {
    const [, skName] = indexAttributes('clientsDue');
    return {
      what: 'client claim',
      Update: {
        Key: keys.client(tenantId, clientId),
        UpdateExpression: 'SET claim_run_id = :run, claim_until = :lease, #dueSk = :dueSk',
        ConditionExpression:
          '#status = :active AND next_due_at = :seen AND last_screen_id = :seenScreen AND ' +
          '(attribute_not_exists(claim_until) OR claim_until < :now OR claim_run_id = :run)',
        ExpressionAttributeNames: { '#status': 'status', '#dueSk': skName },
        ExpressionAttributeValues: {
          ':run': runId,
          ':lease': lease.leaseUntil,
          ':dueSk': dueIndexKeys(tenantId, clientId, lease.leaseUntil)[skName],
          ':active': 'active',
          ':seen': seen.dueAt ?? '',
          ':seenScreen': seen.lastScreenId ?? '',
          ':now': lease.now,
        },
      },
    };
  },

  /**
   * The client's latest outcome and next due date (its by-risk and due index entries with them),
   * giving up the run's claim; refused unless this run still holds it and the client is active.
   */
  recordRescreen(client: ClientItem, runId: string, screen: RescreenOutcome, dueAt: string): TableWrite {
    const indexed = clientIndexKeys(client.tenant_id, client.client_id, screen.risk_level, dueAt);
    const names = Object.keys(indexed);
    return {
      what: 'client',
      Update: {
        Key: keys.client(client.tenant_id, client.client_id),
        UpdateExpression:
          'SET last_screen_id = :screen, last_screened_at = :at, risk_level = :risk, next_due_at = :due, ' +
          `last_run_id = :run, ${names.map((_name, i) => `#k${i} = :k${i}`).join(', ')} ` +
          'REMOVE claim_run_id, claim_until',
        ConditionExpression: 'claim_run_id = :run AND #status = :active',
        ExpressionAttributeNames: {
          '#status': 'status',
          ...Object.fromEntries(names.map((name, i) => [`#k${i}`, name])),
        },
        ExpressionAttributeValues: {
          ':screen': screen.screen_id,
          ':at': screen.screened_at,
          ':risk': screen.risk_level,
          ':due': dueAt,
          ':run': runId,
          ':active': 'active',
          ...Object.fromEntries(names.map((name, i) => [`:k${i}`, indexed[name as keyof typeof indexed]])),
        },
      },
    };
  },

  /**
   * Makes the client due at `at`; refused when it changed since it was read (stopped, due date
   * moved) or a run holds a live claim on it.
   */
  makeDue(client: ClientItem, at: string): TableWrite {
    const [, skName] = indexAttributes('clientsDue');
    return {
      what: 'client',
      Update: {
        Key: keys.client(client.tenant_id, client.client_id),
        UpdateExpression: 'SET next_due_at = :at, #dueSk = :dueSk',
        ConditionExpression:
          '#status = :active AND next_due_at = :seen AND (attribute_not_exists(claim_until) OR claim_until < :at)',
        ExpressionAttributeNames: { '#status': 'status', '#dueSk': skName },
        ExpressionAttributeValues: {
          ':at': at,
          ':dueSk': dueIndexKeys(client.tenant_id, client.client_id, at)[skName],
          ':active': 'active',
          ':seen': client.next_due_at,
        },
      },
    };
  },

  /**
   * The client's settled screen moves forward to `screenId`, never back (screen ids sort by
   * time): refused when the client is gone or a newer screen is settled already.
   */
  settle(tenantId: string, clientId: string, screenId: string): TableWrite {
    return {
      what: 'client settled screen',
      Update: {
        Key: keys.client(tenantId, clientId),
        UpdateExpression: 'SET settled_screen_id = :decided',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(settled_screen_id) OR settled_screen_id <= :decided)',
        ExpressionAttributeValues: { ':decided': screenId },
      },
    };
  },
};

/**
 * Writes a new client (clientWrites.register) in one transaction with `alongside` (its claims):
 * all of them or none. A ConflictError when a client with its id exists already (an earlier
 * attempt of the same queued registration wrote it); otherwise the refusal of the first of
 * `alongside` that was refused.
 */
export async function registerClientItem(
  table: Table,
  client: ClientItem,
  alongside: readonly TableWrite[] = [],
  commit: Commit = (writes) => transact(table, writes),
): Promise<void> {
  // The client first: when it is refused, its refusal is the one reported.
  await commit([clientWrites.register(client), ...alongside]);
}

/**
 * How a caller has its writes committed: by default one transaction of them alone; the audit
 * trail's commit (lib/audit/trail.ts `auditedCommit`) adds the action's entry to it.
 */
export type Commit = (writes: readonly TableWrite[]) => Promise<void>;

/**
 * Stops monitoring the client (clientWrites.stop) in one transaction with `alongside` (the
 * deletion of its claims): the stopped client, or undefined when it was not active (nothing
 * written then).
 */
export async function stopClientItem(
  table: Table,
  tenantId: string,
  clientId: string,
  by: Actor,
  at: string,
  alongside: readonly TableWrite[] = [],
  commit: Commit = (writes) => transact(table, writes),
): Promise<ClientItem | undefined> {
  const notActive = new Error('client not active');
  try {
    // The stop first: when it is refused, its refusal is the one reported.
    await commit([
      { ...clientWrites.stop(tenantId, clientId, by, at), refused: () => notActive },
      ...alongside,
    ]);
  } catch (error) {
    if (error === notActive) return undefined;
    throw error;
  }
  return getClientItem(table, tenantId, clientId, true);
}

export type ClientClaim =
  | { claimed: true; client: ClientItem }
  | { claimed: false; client: ClientItem | undefined };

/**
 * Claims the client for a rescreen run with one conditional write that also returns it
 * (clientWrites.claimForRun); when refused, the client as found (undefined when there is none).
 */
export async function claimDueClient(
  table: Table,
  tenantId: string,
  clientId: string,
  runId: string,
  seen: SeenClient,
  lease: { now: string; leaseUntil: string },
): Promise<ClientClaim> {
  const outcome = await trySendWrite(
    table,
    clientWrites.claimForRun(tenantId, clientId, runId, seen, lease),
    'ALL_NEW',
  );
  if (outcome.written) return { claimed: true, client: parseClientItem(outcome.attributes ?? {}) };
  return { claimed: false, client: outcome.found ? parseClientItem(outcome.found) : undefined };
}

/** Records a rescreen on the client (clientWrites.recordRescreen); nothing when the run no longer holds it. */
export async function recordRescreenOnClient(
  table: Table,
  client: ClientItem,
  runId: string,
  screen: RescreenOutcome,
  dueAt: string,
): Promise<void> {
  await trySendWrite(table, clientWrites.recordRescreen(client, runId, screen, dueAt));
}

/** Makes the client due at `at` (clientWrites.makeDue); false when it changed meanwhile or a run holds it. */
export async function makeClientDue(table: Table, client: ClientItem, at: string): Promise<boolean> {
  const outcome = await trySendWrite(table, clientWrites.makeDue(client, at));
  return outcome.written;
}

/** The tenant's client with this id (consistent when asked), or undefined. */
export async function getClientItem(
  table: Table,
  tenantId: string,
  clientId: string,
  consistent = false,
): Promise<ClientItem | undefined> {
  const item = await readItem(table, keys.client(tenantId, clientId), consistent);
  return item ? parseClientItem(item) : undefined;
}

/** The tenant's client with this id (consistent read), or undefined. */
export async function findClient(table: Table, tenantId: string, clientId: string) {
  if (!isClientId(clientId)) return undefined;
  return getClientItem(table, tenantId, clientId, true);
}

/** The client items of up to 100 (tenant, client) pairs, in one consistent BatchGetItem; absent ones left out. */
export async function clientItemsOf(
  table: Table,
  refs: readonly { tenantId: string; clientId: string }[],
): Promise<ClientItem[]> {
  const found = await getAll(
    table,
    refs.map((ref) => keys.client(ref.tenantId, ref.clientId)),
  );
  return found.map(parseClientItem);
}

/**
 * One page of the tenant's clients, newest first (client ids sort by registration time), after the
 * client `after`: every client, or those at one risk level (the clients-by-risk index).
 */
export async function clientsPage(
  table: Table,
  tenantId: string,
  riskLevel: RiskLevel | undefined,
  after: string | undefined,
  limit: number,
): Promise<{ clients: ClientItem[]; more: boolean }> {
  const page = riskLevel
    ? await queryIndexPage(
        table,
        'clientsByRisk',
        keys.clientsByRiskIndex(tenantId, riskLevel),
        after ? { sortKey: after, itemKey: keys.client(tenantId, after) } : undefined,
        limit,
      )
    : await queryPage(
        table,
        {
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': keys.tenantPartition(tenantId), ':prefix': 'CLIENT#' },
          ExclusiveStartKey: after ? keys.client(tenantId, after) : undefined,
        },
        limit,
      );
  return { clients: page.items.map(parseClientItem), more: page.more };
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

/** The tenant's clients whose next due date has passed, read shard by shard in parallel. */
export async function findDueClients(table: Table, tenantId: string, now: Date): Promise<ClientItem[]> {
  const [pkName, skName] = indexAttributes('clientsDue');
  const shards = await Promise.all(
    Array.from({ length: DUE_SHARDS }, (_, shard) =>
      queryAll(table, {
        IndexName: INDEXES.clientsDue.name,
        KeyConditionExpression: `${pkName} = :pk AND ${skName} <= :now`,
        // '~' sorts after every client id, so clients due at exactly `now` are included.
        ExpressionAttributeValues: { ':pk': keys.dueShard(tenantId, shard), ':now': `${isoSeconds(now)}#~` },
      }),
    ),
  );
  return shards.flat().map(parseClientItem);
}
