import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { normaliseText, type Subject } from '../screening/subject.ts';
import { keys } from '../store/schema.ts';
import { parseItem, readItem, type Table } from '../store/table.ts';
import type { TableWrite } from '../store/write.ts';
import { foldPerson, type PersonHolding, personClaimPlan } from './client-person.ts';

/**
 * The claim items (entities `client-ref` and `client-person`) that make a registered client
 * unique in its tenant: the tenant's own reference (CLIENTREF#<reference>), naming the client that
 * holds it, and the person (CLIENTPERSON#<hash of the folded name, date of birth and
 * nationality>, client-person.ts), so the same person cannot be monitored, and charged every
 * cycle, twice. A person item names the client of exactly that person (`client_id`) and lists the
 * clients of the same name given with more (`with_both`, `dob_only`, `nationality_only`: string
 * sets of client ids, absent when empty). A client's claims are written in the same transaction as
 * its client item, and released in the same transaction as its stop (client-claims.ts says
 * when), so a claim names an active client.
 */

const HOLDER_SETS = ['with_both', 'dob_only', 'nationality_only'] as const;
type HolderSet = (typeof HOLDER_SETS)[number];

const ClientIdSet = v.optional(v.set(v.string()));

export const ClientClaimItemSchema = v.object({
  pk: v.string(),
  sk: v.string(),
  entity: v.picklist(['client-ref', 'client-person']),
  /** The reference a `client-ref` claim holds. */
  reference: v.optional(v.string()),
  /** The client of exactly this reference or person; absent on a person item only listing others. */
  client_id: v.optional(v.string()),
  claimed_at: v.optional(v.string()),
  with_both: ClientIdSet,
  dob_only: ClientIdSet,
  nationality_only: ClientIdSet,
});

export type ClientClaimItem = v.InferOutput<typeof ClientClaimItemSchema>;

/**
 * One claim: its key, what its item holds besides the client naming it, and (a person claim) how
 * the client holds it and which of the item's sets must be empty (client-person.ts).
 */
export interface Claim {
  key: { pk: string; sk: string };
  item: Pick<ClientClaimItem, 'entity' | 'reference'>;
  holds: PersonHolding;
  mustBeEmpty: readonly HolderSet[];
  /** A person claim's hash, which the client item records (`person_claims`). */
  hash?: string;
}

/** A person claim as the client item records it (`person_claims`): released from there at its stop. */
export interface HeldPersonClaim {
  hash: string;
  holds: PersonHolding;
}

/** The person a claim names: who the client is, never where they live or what else they are called. */
export type ClaimedPerson = Pick<Subject, 'name' | 'dob' | 'nationality'>;

/** A client as its claims see it: the reference it holds (if any), the person it is, the claims it took. */
export interface ClaimedClient {
  tenantId: string;
  clientId: string;
  reference?: string | null;
  subject: ClaimedPerson;
  /** The person claims the client item records; absent for a client registered before them. */
  personClaims?: readonly HeldPersonClaim[];
}

/**
 * The key of a person claim as it was before person claims folded names as the matcher does (the
 * narrower normalisation of the rescreen window: case, width and spacing only). No registration
 * takes one any more; one still held by an active client is respected, and released at its stop.
 */
export function legacyPersonHash(subject: ClaimedPerson): string {
  const canonical = [normaliseText(subject.name), subject.dob ?? '', normaliseText(subject.nationality)];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url');
}

export function referenceClaim(tenantId: string, reference: string): Claim {
  return {
    key: keys.clientRef(tenantId, reference),
    item: { entity: 'client-ref', reference },
    holds: 'client',
    mustBeEmpty: [],
  };
}

/** The claim of the legacy person key (exact text): read and released, never taken. */
export function legacyPersonClaim(tenantId: string, subject: ClaimedPerson): Claim {
  return {
    key: keys.clientPerson(tenantId, legacyPersonHash(subject)),
    item: { entity: 'client-person' },
    holds: 'client',
    mustBeEmpty: [],
  };
}

/** The person claims a registration of `subject` takes, its own first (client-person.ts). */
export function personClaims(tenantId: string, subject: ClaimedPerson): Claim[] {
  return personClaimPlan(foldPerson(subject)).map((step) => ({
    key: keys.clientPerson(tenantId, step.hash),
    item: { entity: 'client-person' },
    holds: step.holds,
    mustBeEmpty: step.mustBeEmpty,
    hash: step.hash,
  }));
}

/** The claim of a person claim the client item records. */
export function heldPersonClaim(tenantId: string, held: HeldPersonClaim): Claim {
  return {
    key: keys.clientPerson(tenantId, held.hash),
    item: { entity: 'client-person' },
    holds: held.holds,
    mustBeEmpty: [],
    hash: held.hash,
  };
}

/** The claims a new registration takes, reference first: its reference (when it has one) and its person. */
export function claimsOf(client: ClaimedClient): Claim[] {
  return [
    ...(client.reference ? [referenceClaim(client.tenantId, client.reference)] : []),
    ...personClaims(client.tenantId, client.subject),
  ];
}

/** Whether the claim item, as read, holds `clientId` where the claim says. */
export function holdsClient(claim: Claim, item: ClientClaimItem | undefined, clientId: string): boolean {
  if (!item) return false;
  return claim.holds === 'client' ? item.client_id === clientId : Boolean(item[claim.holds]?.has(clientId));
}

/**
 * The client in the way of `claim` on its item as read (or as a refused write found it): the one it
 * names, unless it is `clientId` itself, else the first one listed in a set that must be empty.
 */
export function blockingClient(
  claim: Claim,
  item: Pick<ClientClaimItem, 'client_id' | HolderSet> | undefined,
  clientId: string,
): { holder: string; named: boolean } | undefined {
  if (item?.client_id && item.client_id !== clientId) return { holder: item.client_id, named: true };
  for (const set of claim.mustBeEmpty) {
    const listed = [...(item?.[set] ?? [])].sort()[0];
    if (listed) return { holder: listed, named: false };
  }
  return undefined;
}

/** The item a refused write found, as far as the claims read it. */
function foundClaim(found: Record<string, unknown> | undefined) {
  const set = (value: unknown) => (value instanceof Set ? (value as Set<string>) : undefined);
  return found
    ? {
        client_id: typeof found.client_id === 'string' ? found.client_id : undefined,
        with_both: set(found.with_both),
        dob_only: set(found.dob_only),
        nationality_only: set(found.nationality_only),
      }
    : undefined;
}

export const clientClaimWrites = {
  /**
   * Claims `claim` for the client: refused when another client holds it, or (a person claim) when
   * a set that must be empty lists a client. The client's own claim (an earlier attempt of the
   * same queued registration) is taken again; so is a claim naming `leftover`, a client the
   * claimer found not active (a claim a table upgraded from separate writes may still hold).
   * `refused` turns the client found in the way into the error to throw; without it, a
   * ConflictError naming the claim.
   */
  take(
    claim: Claim,
    clientId: string,
    at: Date,
    options: { leftover?: string; refused?: (holder: string | undefined) => Error } = {},
  ): TableWrite {
    const { refused, leftover } = options;
    const names: Record<string, string> = {};
    const empty = claim.mustBeEmpty.map((set) => {
      names[`#${set}`] = set;
      return ` AND attribute_not_exists(#${set})`;
    });
    const values: Record<string, unknown> = {
      ':entity': claim.item.entity,
      ...(leftover ? { ':leftover': leftover } : {}),
    };
    const otherClient = leftover ? 'client_id = :leftover' : undefined;
    let update: string;
    let free: string;
    if (claim.holds === 'client') {
      update = 'SET entity = :entity, client_id = :mine, claimed_at = :at';
      if (claim.item.reference !== undefined) {
        update += ', #reference = :reference';
        names['#reference'] = 'reference';
        values[':reference'] = claim.item.reference;
      }
      values[':mine'] = clientId;
      values[':at'] = at.toISOString();
      free = `(attribute_not_exists(client_id) OR client_id = :mine${otherClient ? ` OR ${otherClient}` : ''})`;
    } else {
      update = `SET entity = :entity ADD #holds :me`;
      names['#holds'] = claim.holds;
      values[':me'] = new Set([clientId]);
      free = `(attribute_not_exists(client_id)${otherClient ? ` OR ${otherClient}` : ''})`;
    }
    return {
      what: `${claim.item.entity} claim`,
      Update: {
        Key: claim.key,
        UpdateExpression: update,
        ConditionExpression: free + empty.join(''),
        ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
      },
      ...(refused
        ? { refused: (found) => refused(blockingClient(claim, foundClaim(found), clientId)?.holder) }
        : {}),
    };
  },

  /**
   * Gives back the client's claim, read as held by it: its own item is deleted (nobody can list
   * a client under an item a client holds, so it holds nothing else), its id leaves a set;
   * refused unless the client still holds it there.
   */
  release(claim: Claim, clientId: string): TableWrite {
    if (claim.holds === 'client')
      return {
        what: `${claim.item.entity} claim`,
        Delete: {
          Key: claim.key,
          ConditionExpression: 'client_id = :mine',
          ExpressionAttributeValues: { ':mine': clientId },
        },
      };
    return {
      what: `${claim.item.entity} claim`,
      Update: {
        Key: claim.key,
        UpdateExpression: 'DELETE #holds :me',
        ConditionExpression: 'contains(#holds, :mine)',
        ExpressionAttributeNames: { '#holds': claim.holds },
        ExpressionAttributeValues: { ':me': new Set([clientId]), ':mine': clientId },
      },
    };
  },
};

/** The claim item of `key` (consistent when asked), or undefined. */
export async function getClaim(
  table: Table,
  claim: Pick<Claim, 'key'>,
  consistent: boolean,
): Promise<ClientClaimItem | undefined> {
  const item = await readItem(table, claim.key, consistent);
  return item ? parseItem(ClientClaimItemSchema, item) : undefined;
}

/** The client holding the reference (GET /clients?reference=), or undefined. */
export async function referenceHolder(
  table: Table,
  tenantId: string,
  reference: string,
): Promise<string | undefined> {
  return (await getClaim(table, referenceClaim(tenantId, reference), false))?.client_id;
}
