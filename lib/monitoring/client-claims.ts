import { ConflictError } from '../common/errors.ts';
import type { Table } from '../store/table.ts';
import { type TableWrite, trySendWrite } from '../store/write.ts';
import { listTenants } from '../tenancy/tenants.ts';
import {
  type Claim,
  type ClaimedClient,
  claimsOf,
  clientClaimWrites,
  getClaim,
  personClaim,
} from './client-claim-table.ts';
import { activeClientsOf, getClientItem } from './client-table.ts';

/**
 * What makes a registered client unique in its tenant, each held by one claim item naming the
 * client (client-claim-table.ts): the tenant's own reference, and the person (the normalised
 * name, date of birth and nationality), so the same person cannot be monitored, and charged every
 * cycle, twice.
 *
 * A registration reads the claims before anything is screened or charged (the 409 costs the
 * tenant nothing), then writes its claims in the one transaction that writes the client item
 * ({@link claimWrites}): a registration of the same person or reference that won the race meanwhile
 * refuses the whole transaction, so no client is ever written without its claims, nor a claim
 * without its client. Stopping a client deletes its claims in the transaction that stops it
 * ({@link releaseWrites}).
 */

/**
 * The 409 of a reference or person held by another monitored client: the `detail` says which,
 * `existing_client_id` carries it, and `holder` names it for the code that lost the race.
 */
export class ClientExistsError extends ConflictError {
  constructor(
    detail: string,
    readonly holder: string | undefined,
  ) {
    super(detail, { client_id: holder }, 'client_exists', holder ? { existing_client_id: holder } : {});
  }
}

/** The 409 of `claim` held by `holder`. */
function claimConflict(claim: Claim, holder: string | undefined): ClientExistsError {
  const named = holder ?? '(being registered)';
  if (claim.item.entity === 'client-ref')
    return new ClientExistsError(
      `reference: ${claim.item.reference} is already registered as client ${named}`,
      holder,
    );
  return new ClientExistsError(
    `This person (the same name, date of birth and nationality) is already monitored as client ${named}; ` +
      'stop that client first, or give the date of birth or nationality that tells them apart',
    holder,
  );
}

/** A claim a registration is to take, and the client of a claim it found not active, to replace. */
export interface FreeClaim {
  claim: Claim;
  leftover?: string;
}

/**
 * Reads the claims the client would take (consistent reads, reference first): a 409 naming the
 * existing client (`existing_client_id`) when either is held by another active client; nothing is
 * written. A claim naming this very client (an earlier attempt of the same queued registration)
 * is its own. A claim naming a client that is stopped or was never written can only be left from
 * before claims were written with their client: the registration's transaction replaces it.
 */
export async function freeClaimsOf(table: Table, client: ClaimedClient): Promise<FreeClaim[]> {
  const claims = claimsOf(client);
  const held = await Promise.all(claims.map((claim) => getClaim(table, claim, true)));
  const free: FreeClaim[] = [];
  for (const [i, claim] of claims.entries()) {
    const holder = held[i]?.client_id;
    if (!holder || holder === client.clientId) {
      free.push({ claim });
      continue;
    }
    const holding = await getClientItem(table, client.tenantId, holder, true);
    if (holding?.status === 'active') throw claimConflict(claim, holder);
    free.push({ claim, leftover: holder });
  }
  return free;
}

/**
 * The puts of the client's claims, for the transaction that writes its client item: each refused
 * (a {@link ClientExistsError} naming the holder) when another client took the claim since
 * {@link freeClaimsOf} read it.
 */
export function claimWrites(free: readonly FreeClaim[], clientId: string, at: Date): TableWrite[] {
  return free.map(({ claim, leftover }) =>
    clientClaimWrites.take(claim, clientId, at, {
      leftover,
      refused: (holder) => claimConflict(claim, holder),
    }),
  );
}

/**
 * The deletions of the claims the client holds (consistent reads), for the transaction that stops
 * it. A claim that is gone, or held by another client (a copy of a person listed by the
 * {@link claimAllClientPersons} upgrade), is left alone. A claim read as this client's stays its
 * own until this client stops: no registration may take a claim of an active client.
 */
export async function releaseWrites(table: Table, client: ClaimedClient): Promise<TableWrite[]> {
  const claims = claimsOf(client);
  const held = await Promise.all(claims.map((claim) => getClaim(table, claim, true)));
  return claims
    .filter((_claim, i) => held[i]?.client_id === client.clientId)
    .map((claim) => clientClaimWrites.release(claim, client.clientId));
}

/**
 * Takes one claim for an existing client with one conditional put; the holder's id when another
 * active client holds it. A claim naming a client that is not active is replaced.
 */
async function claimAlone(
  table: Table,
  tenantId: string,
  claim: Claim,
  clientId: string,
  at: Date,
): Promise<string | undefined> {
  let leftover: string | undefined;
  for (let attempt = 1; ; attempt++) {
    const outcome = await trySendWrite(table, clientClaimWrites.take(claim, clientId, at, { leftover }));
    if (outcome.written) return undefined;
    const holder = typeof outcome.found?.client_id === 'string' ? outcome.found.client_id : undefined;
    if (!holder || attempt === 2) return holder ?? '(unknown)';
    const holding = await getClientItem(table, tenantId, holder, true);
    if (holding?.status === 'active') return holder;
    leftover = holder;
  }
}

/**
 * Claims the person of every monitored client of every tenant (`npm run admin --
 * claim-client-persons`): once after upgrading a table whose clients were registered before
 * person claims existed. Reads each tenant's client items, never another partition. Clients that
 * are the same person as one claimed before them are listed, oldest claim kept, for the tenant
 * to stop the copies. Running it again is harmless.
 */
export async function claimAllClientPersons(table: Table, at: Date = new Date()) {
  const tenants = await listTenants(table);
  let claimed = 0;
  const duplicates: { tenant_id: string; client_id: string; existing_client_id: string }[] = [];
  for (const tenant of tenants) {
    for (const client of await activeClientsOf(table, tenant.tenant_id)) {
      const claim = personClaim(tenant.tenant_id, client.subject);
      const holder = await claimAlone(table, tenant.tenant_id, claim, client.client_id, at);
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
