import * as v from 'valibot';
import { auditedCommit, type CommitAudited } from '../audit/trail.ts';
import { ForbiddenError, NotFoundError } from '../common/errors.ts';
import { ListQuerySchema } from '../common/fields.ts';
import { isoSeconds } from '../common/time.ts';
import { RISK_ORDER } from '../matcher/types.ts';
import { alertView, type ScreenAlert, type ScreenSummary, toSummary } from '../screening/screen-record.ts';
import { clientScreensPage } from '../screening/screen-table.ts';
import { getScreenItem } from '../screening/screens-read.ts';
import { decodeCursor, encodeCursor } from '../store/cursor.ts';
import type { Table } from '../store/table.ts';
import type { Principal } from '../tenancy/auth.ts';
import { referenceHolder } from './client-claim-table.ts';
import { releaseWrites } from './client-claims.ts';
import { updateClientNameKeys } from './client-name-keys.ts';
import { type ClientProfile, toClientProfile } from './client-record.ts';
import { clientsPage, findClient, getClientItem, stopClientItem } from './client-table.ts';
import { settledDecision } from './rescreen-review.ts';

/** Query of GET /clients: the list paging plus the two filters. */
export const ClientListQuerySchema = v.object({
  ...ListQuerySchema.entries,
  risk_level: v.optional(
    v.pipe(
      v.string(),
      v.description(`Only clients at this risk level (${RISK_ORDER.join(', ')}; any case)`),
      v.transform((text) => text.trim().toUpperCase()),
      v.picklist(RISK_ORDER, `must be one of ${RISK_ORDER.join(', ')}`),
    ),
  ),
  reference: v.optional(
    v.pipe(
      v.string(),
      v.description('Only the client registered under this reference'),
      v.trim(),
      v.minLength(1, 'must not be blank'),
      v.maxLength(128),
    ),
  ),
});

export type ClientListQuery = v.InferOutput<typeof ClientListQuerySchema>;

export interface ClientPage {
  clients: ClientProfile[];
  next_cursor: string | null;
}

/**
 * GET /clients: the tenant's client profiles, newest first (client ids sort by registration
 * time), optionally only those at one risk level (the clients-by-risk index), or the one client
 * registered under a reference (an exact lookup through the reference's uniqueness item).
 */
export async function listClients(
  table: Table,
  tenantId: string,
  query: ClientListQuery,
): Promise<ClientPage> {
  if (query.reference !== undefined) {
    const clientId = await referenceHolder(table, tenantId, query.reference);
    const client = clientId ? await getClientItem(table, tenantId, clientId) : undefined;
    const matches = client && (!query.risk_level || client.risk_level === query.risk_level);
    return { clients: matches ? [toClientProfile(client)] : [], next_cursor: null };
  }
  const scope = query.risk_level ?? 'all';
  const after = query.cursor ? decodeCursor(query.cursor, 'clients', tenantId, scope) : undefined;
  const page = await clientsPage(table, tenantId, query.risk_level, after, query.limit);
  const clients = page.clients.map(toClientProfile);
  return {
    clients,
    next_cursor: page.more
      ? encodeCursor('clients', tenantId, clients[clients.length - 1].client_id, scope)
      : null,
  };
}

/** An open alert on a client, as GET /clients/{client_id} shows it: the alert and the screen carrying it. */
export type OpenAlert = Required<ScreenAlert> & { screen_id: string };

export interface ClientDetail extends ClientProfile {
  /** The alert on the client's current screen while nobody has settled it (README, "Alert on change only"). */
  open_alert: OpenAlert | null;
  screens: ScreenSummary[];
  next_cursor: string | null;
}

async function readClient(table: Table, tenantId: string, clientId: string) {
  const client = await findClient(table, tenantId, clientId);
  if (!client) throw new NotFoundError(`Client ${clientId} not found`);
  return client;
}

/**
 * GET /clients/{client_id}: the profile, its open alert and its screens, newest first, paged. The
 * open alert is read from the client's current screen (one more read), the one place it is kept:
 * every re-screen carries an unsettled alert forward, and a settled decision closes it.
 */
export async function getClient(
  table: Table,
  tenantId: string,
  clientId: string,
  query: v.InferOutput<typeof ListQuerySchema>,
): Promise<ClientDetail> {
  const client = await readClient(table, tenantId, clientId);
  const after = query.cursor ? decodeCursor(query.cursor, 'client-screens', tenantId, clientId) : undefined;
  const page = await clientScreensPage(table, tenantId, clientId, after, query.limit);
  const screens = page.rows.map(toSummary);
  return {
    ...toClientProfile(client),
    open_alert: await openAlertOf(table, tenantId, client.last_screen_id),
    screens,
    next_cursor: page.more
      ? encodeCursor('client-screens', tenantId, screens[screens.length - 1].screen_id, clientId)
      : null,
  };
}

async function openAlertOf(table: Table, tenantId: string, screenId: string): Promise<OpenAlert | null> {
  // A deleted current screen carries no alert; the next re-screen compares with the baseline.
  const current = await getScreenItem(table, tenantId, screenId).catch((error) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
  if (!current?.alert || settledDecision(current)) return null;
  return { ...alertView(current.alert), screen_id: current.screen_id };
}

/**
 * DELETE /clients/{client_id}: stops monitoring, recorded in the tenant's audit trail
 * (lib/audit/trail.ts, write-ahead): `started`, then `done` with the client's status after it, or
 * `refused` (another analyst's client, no such client).
 */
export async function stopClient(
  table: Table,
  caller: Pick<Principal, 'tenantId' | 'userId' | 'role'>,
  clientId: string,
  at: Date = new Date(),
): Promise<ClientProfile> {
  return auditedCommit(
    table,
    caller.tenantId,
    {
      action: 'client.stop',
      actor: { user_id: caller.userId, role: caller.role },
      target: { client_id: clientId },
    },
    (commit) => stopMonitoring(table, caller, clientId, at, commit),
  );
}

/**
 * DELETE /clients/{client_id}: monitoring stops. The profile stays, marked `stopped` with who and
 * when (an auditor asks why a customer was no longer screened), leaves the due index so no run
 * picks it again, and frees its reference and its person (client-claims.ts) for a new
 * registration in the same transaction; its screens stay as they are, the audit record. Admins may stop any client, analysts only the ones they registered.
 */
async function stopMonitoring(
  table: Table,
  caller: Pick<Principal, 'tenantId' | 'userId' | 'role'>,
  clientId: string,
  at: Date,
  commit: CommitAudited,
): Promise<ClientProfile> {
  const client = await readClient(table, caller.tenantId, clientId);
  if (caller.role !== 'admin' && client.created_by.user_id !== caller.userId) {
    throw new ForbiddenError(
      `Analysts may stop monitoring only clients they registered; client ${clientId} was registered by ${client.created_by.user_id}`,
    );
  }
  // The stop and the deletion of the claims the client holds, in one transaction: its reference
  // and person are free again exactly when it is stopped.
  const releases = await releaseWrites(table, {
    tenantId: caller.tenantId,
    clientId,
    reference: client.reference,
    subject: client.subject,
    personClaims: client.person_claims,
  });
  const stopped = await stopClientItem(
    table,
    caller.tenantId,
    clientId,
    { user_id: caller.userId, role: caller.role },
    isoSeconds(at),
    releases,
    // The stop, the claims' release and its `done` entry: one transaction.
    (writes) => commit(writes, { details: { status: 'stopped', stopped_at: isoSeconds(at) } }),
  );
  // Stopped already: stopping again changes nothing and says so.
  if (!stopped) return toClientProfile(await readClient(table, caller.tenantId, clientId));
  await updateClientNameKeys(
    table,
    { tenantId: caller.tenantId, clientId, subject: client.subject },
    'remove',
  );
  return toClientProfile(stopped);
}
