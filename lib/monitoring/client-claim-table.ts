import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { normaliseText, type Subject } from '../screening/subject.ts';
import { keys } from '../store/schema.ts';
import { parseItem, readItem, type Table } from '../store/table.ts';
import type { TableWrite } from '../store/write.ts';

/**
 * The claim items (entities `client-ref` and `client-person`) that make a registered client
 * unique in its tenant, each naming the client that holds it: the tenant's own reference
 * (CLIENTREF#<reference>), and the person (CLIENTPERSON#<hash of the normalised name, date of
 * birth and nationality>), so the same person cannot be monitored, and charged every cycle,
 * twice. A client's claims are written in the same transaction as its client item, and deleted in
 * the same transaction as its stop (client-claims.ts says when), so a claim names an active client.
 */

export const ClientClaimItemSchema = v.object({
  pk: v.string(),
  sk: v.string(),
  entity: v.picklist(['client-ref', 'client-person']),
  /** The reference a `client-ref` claim holds. */
  reference: v.optional(v.string()),
  client_id: v.string(),
  claimed_at: v.optional(v.string()),
});

export type ClientClaimItem = v.InferOutput<typeof ClientClaimItemSchema>;

/** One claim: its key, and what its item holds besides the client naming it. */
export interface Claim {
  key: { pk: string; sk: string };
  item: Pick<ClientClaimItem, 'entity' | 'reference'>;
}

/** The person a claim names: who the client is, never where they live or what else they are called. */
export type ClaimedPerson = Pick<Subject, 'name' | 'dob' | 'nationality'>;

/** A client as its claims see it: the reference it holds (if any) and the person it is. */
export interface ClaimedClient {
  tenantId: string;
  clientId: string;
  reference?: string | null;
  subject: ClaimedPerson;
}

/**
 * The person a client is: the normalised name, date of birth and nationality (the narrower
 * normalisation of the rescreen window: case, width and spacing only), hashed so the key holds no
 * name. Location and alias are left out: the same person moves and is known by other names.
 */
export function personHash(subject: ClaimedPerson): string {
  const canonical = [normaliseText(subject.name), subject.dob ?? '', normaliseText(subject.nationality)];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url');
}

export function referenceClaim(tenantId: string, reference: string): Claim {
  return { key: keys.clientRef(tenantId, reference), item: { entity: 'client-ref', reference } };
}

export function personClaim(tenantId: string, subject: ClaimedPerson): Claim {
  return { key: keys.clientPerson(tenantId, personHash(subject)), item: { entity: 'client-person' } };
}

/** The claims a client holds, reference first: its reference (when it has one) and its person. */
export function claimsOf(client: ClaimedClient): Claim[] {
  return [
    ...(client.reference ? [referenceClaim(client.tenantId, client.reference)] : []),
    personClaim(client.tenantId, client.subject),
  ];
}

export const clientClaimWrites = {
  /**
   * Claims `claim` for the client: refused when another client holds it. The client's own claim
   * (an earlier attempt of the same queued registration) is taken again; so is a claim naming
   * `leftover`, a client the claimer found not active (a claim a table upgraded from separate
   * writes may still hold). `refused` turns the holder found into the error to throw; without
   * it, a ConflictError naming the claim.
   */
  take(
    claim: Claim,
    clientId: string,
    at: Date,
    options: { leftover?: string; refused?: (holder: string | undefined) => Error } = {},
  ): TableWrite {
    const { refused } = options;
    const { leftover } = options;
    return {
      what: `${claim.item.entity} claim`,
      Put: {
        Item: { ...claim.key, ...claim.item, client_id: clientId, claimed_at: at.toISOString() },
        ConditionExpression: `attribute_not_exists(pk) OR client_id = :mine${leftover ? ' OR client_id = :leftover' : ''}`,
        ExpressionAttributeValues: { ':mine': clientId, ...(leftover ? { ':leftover': leftover } : {}) },
      },
      ...(refused
        ? { refused: (found) => refused(typeof found?.client_id === 'string' ? found.client_id : undefined) }
        : {}),
    };
  },

  /**
   * Gives back the client's claim: deleted when this client holds it; a claim that is gone
   * already passes (and stays gone); refused when another client holds it.
   */
  release(claim: Claim, clientId: string): TableWrite {
    return {
      what: `${claim.item.entity} claim`,
      Delete: {
        Key: claim.key,
        ConditionExpression: 'attribute_not_exists(pk) OR client_id = :mine',
        ExpressionAttributeValues: { ':mine': clientId },
      },
    };
  },
};

/** The claim item of `key` (consistent when asked), or undefined. */
export async function getClaim(
  table: Table,
  claim: Claim,
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
