import { ConflictError } from '../common/errors.ts';
import type { Table } from '../store/table.ts';
import { listTenants } from '../tenancy/tenants.ts';
import {
  type ClaimedPerson,
  claimPerson,
  claimReference,
  releasePerson,
  releaseReference,
} from './client-claim-table.ts';
import { activeClientsOf } from './client-table.ts';

/**
 * What makes a registered client unique in its tenant, each held by one claim item naming the
 * client (client-claim-table.ts): the tenant's own reference, and the person (the normalised
 * name, date of birth and nationality), so the same person cannot be monitored, and charged every
 * cycle, twice. A claim is taken with one conditional put before anything is screened or charged
 * (the 409 costs the tenant nothing) and given back when monitoring stops.
 */

/** The existing client named in a 409: the `detail` says which, `existing_client_id` carries it. */
function conflict(detail: string, holder: string | undefined): ConflictError {
  return new ConflictError(
    detail,
    { client_id: holder },
    'client_exists',
    holder ? { existing_client_id: holder } : {},
  );
}

export interface ClaimedClient {
  tenantId: string;
  clientId: string;
  reference?: string | null;
  subject: ClaimedPerson;
}

/**
 * Claims the reference (when given) and the person for a new client: a 409 naming the existing
 * client (`existing_client_id`) when either is held by another monitored client, with nothing
 * left claimed.
 */
export async function claimReferenceAndPerson(table: Table, client: ClaimedClient, at: Date): Promise<void> {
  const { tenantId, clientId, reference } = client;
  if (reference) {
    const holder = await claimReference(table, tenantId, reference, clientId, at);
    if (holder) throw conflict(`reference: ${reference} is already registered as client ${holder}`, holder);
  }
  const holder = await claimPerson(table, tenantId, client.subject, clientId, at);
  if (holder) {
    if (reference) await releaseReference(table, tenantId, reference, clientId);
    throw conflict(
      `This person (the same name, date of birth and nationality) is already monitored as client ${holder}; ` +
        'stop that client first, or give the date of birth or nationality that tells them apart',
      holder,
    );
  }
}

/** Gives back the client's claims: its registration failed, or its monitoring stopped. */
export async function releaseReferenceAndPerson(table: Table, client: ClaimedClient): Promise<void> {
  const { tenantId, clientId, reference } = client;
  if (reference) await releaseReference(table, tenantId, reference, clientId);
  await releasePerson(table, tenantId, client.subject, clientId);
}

/**
 * Claims the person of every monitored client of every tenant (`npm run admin --
 * claim-client-persons`): once after upgrading a table whose clients were registered before
 * person claims existed. Reads each tenant's client items, never another partition. Clients that
 * are the same person as one claimed before them are listed, oldest claim kept, for the tenant
 * to stop the copies.
 */
export async function claimAllClientPersons(table: Table, at: Date = new Date()) {
  const tenants = await listTenants(table);
  let claimed = 0;
  const duplicates: { tenant_id: string; client_id: string; existing_client_id: string }[] = [];
  for (const tenant of tenants) {
    for (const client of await activeClientsOf(table, tenant.tenant_id)) {
      const holder = await claimPerson(table, tenant.tenant_id, client.subject, client.client_id, at);
      if (holder)
        duplicates.push({
          tenant_id: tenant.tenant_id,
          client_id: client.client_id,
          existing_client_id: holder,
        });
      else claimed += 1;
    }
  }
  return { tenants: tenants.length, claimed, duplicates };
}
