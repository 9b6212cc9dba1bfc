import { ConflictError } from '../common/errors.ts';
import type { Table } from '../store/table.ts';
import { type TableWrite, transact } from '../store/write.ts';
import { listTenants } from '../tenancy/tenants.ts';
import {
  blockingClient,
  type Claim,
  type ClaimedClient,
  claimsOf,
  clientClaimWrites,
  getClaim,
  type HeldPersonClaim,
  heldPersonClaim,
  holdsClient,
  legacyPersonClaim,
  referenceClaim,
} from './client-claim-table.ts';
import { activeClientsOf, clientWrites, getClientItem } from './client-table.ts';

/**
 * What makes a registered client unique in its tenant, each held by claim items naming the
 * client (client-claim-table.ts): the tenant's own reference, and the person as the matcher reads
 * a person (client-person.ts: the folded name, whatever the order of its parts, and the date of
 * birth and nationality, each the same or left out by one of the two), so the same person cannot
 * be monitored, and charged every cycle, twice.
 *
 * A registration reads the claims before anything is screened or charged (the 409 costs the
 * tenant nothing), then writes its claims in the one transaction that writes the client item
 * ({@link claimWrites}), each conditioned on what must not be there: a registration of the same
 * person or reference that won the race meanwhile refuses the whole transaction, so no client is
 * ever written without its claims, nor a claim without its client. The client item records its
 * person claims (`person_claims`), and stopping it releases them in the transaction that stops it
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
    `This person is already monitored as client ${named}: the same name as the matcher reads it ` +
      '(case, accents, punctuation and the order of the names aside), and no date of birth or ' +
      'nationality that tells them apart (each is the same, or one of the two leaves it out). ' +
      `To give that client a date of birth or nationality, stop it (DELETE /clients/${named}) and ` +
      'register the person again with them; if this is another person, give the date of birth or ' +
      'nationality that tells them apart.',
    holder,
  );
}

/** A claim a registration is to take, and the client of a claim it found not active, to replace. */
export interface FreeClaim {
  claim: Claim;
  leftover?: string;
}

/**
 * Reads the claims the client would take (consistent reads, reference first), and the person's
 * claim from before names were folded: a 409 naming the existing client (`existing_client_id`)
 * when one is held by, or lists, another active client; nothing is written. A claim naming this
 * very client (an earlier attempt of the same queued registration) is its own. A claim naming a
 * client that is stopped or was never written can only be left from before claims were written
 * with their client: the registration's transaction replaces it.
 */
export async function freeClaimsOf(table: Table, client: ClaimedClient): Promise<FreeClaim[]> {
  const claims = claimsOf(client);
  const legacy = legacyPersonClaim(client.tenantId, client.subject);
  const held = await Promise.all([...claims, legacy].map((claim) => getClaim(table, claim, true)));
  const active = async (holder: string) =>
    (await getClientItem(table, client.tenantId, holder, true))?.status === 'active';
  const legacyHolder = held[claims.length]?.client_id;
  if (legacyHolder && legacyHolder !== client.clientId && (await active(legacyHolder)))
    throw claimConflict(legacy, legacyHolder);
  const free: FreeClaim[] = [];
  for (const [i, claim] of claims.entries()) {
    const blocking = blockingClient(claim, held[i], client.clientId);
    if (!blocking) {
      free.push({ claim });
      continue;
    }
    // A set lists only clients registered with their claims: active until their stop releases them.
    if (!blocking.named || (await active(blocking.holder))) throw claimConflict(claim, blocking.holder);
    free.push({ claim, leftover: blocking.holder });
  }
  return free;
}

/** The person claims among `free`, as the client item records them. */
export function heldPersonClaims(free: readonly FreeClaim[]): HeldPersonClaim[] {
  return free.flatMap(({ claim }) => (claim.hash ? [{ hash: claim.hash, holds: claim.holds }] : []));
}

/**
 * The writes of the client's claims, for the transaction that writes its client item: each
 * refused (a {@link ClientExistsError} naming the client in the way) when another client took the
 * claim, or was listed where this one needs none, since {@link freeClaimsOf} read it.
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
 * The releases of the claims the client holds (consistent reads), for the transaction that stops
 * it: its reference, the person claims its item records and the person claim from before names
 * were folded. A claim that is gone, or held by another client (a copy of a person listed by the
 * {@link claimAllClientPersons} upgrade), is left alone. A claim read as this client's stays its
 * own until this client stops: no registration may take a claim of an active client.
 */
export async function releaseWrites(table: Table, client: ClaimedClient): Promise<TableWrite[]> {
  const claims = [
    ...(client.reference ? [referenceClaim(client.tenantId, client.reference)] : []),
    ...(client.personClaims ?? []).map((held) => heldPersonClaim(client.tenantId, held)),
    legacyPersonClaim(client.tenantId, client.subject),
  ];
  const held = await Promise.all(claims.map((claim) => getClaim(table, claim, true)));
  return claims
    .filter((claim, i) => holdsClient(claim, held[i], client.clientId))
    .map((claim) => clientClaimWrites.release(claim, client.clientId));
}

/**
 * Claims the person of one client whose item records no person claims (registered before
 * them): the claims and their record on the client item, in one transaction; the client in the
 * way when another active client is the same person (nothing written then).
 */
async function claimPersonOf(table: Table, client: ClaimedClient, at: Date): Promise<string | undefined> {
  try {
    const free = await freeClaimsOf(table, { ...client, reference: undefined });
    await transact(table, [
      clientWrites.recordPersonClaims(client.tenantId, client.clientId, heldPersonClaims(free)),
      ...claimWrites(free, client.clientId, at),
    ]);
    return undefined;
  } catch (error) {
    if (error instanceof ClientExistsError) return error.holder ?? '(unknown)';
    throw error;
  }
}

/**
 * Claims the person of every monitored client of every tenant (`npm run admin --
 * claim-client-persons`): once after upgrading a table whose clients were registered before
 * person claims existed, or before they folded names as the matcher does. Reads each tenant's
 * client items, never another partition; a client whose item records its person claims is left
 * as it is. Clients that are the same person as one claimed before them are listed, oldest claim
 * kept, for the tenant to stop the copies. Running it again is harmless.
 */
export async function claimAllClientPersons(table: Table, at: Date = new Date()) {
  const tenants = await listTenants(table);
  let claimed = 0;
  const duplicates: { tenant_id: string; client_id: string; existing_client_id: string }[] = [];
  for (const tenant of tenants) {
    for (const client of await activeClientsOf(table, tenant.tenant_id)) {
      if (client.person_claims) continue;
      const holder = await claimPersonOf(
        table,
        { tenantId: tenant.tenant_id, clientId: client.client_id, subject: client.subject },
        at,
      );
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
