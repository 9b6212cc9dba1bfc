import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { normaliseText, type Subject } from '../screening/subject.ts';
import { keys } from '../store/schema.ts';
import { parseItem, type Table } from '../store/table.ts';
import { type TableWrite, trySendWrite } from '../store/write.ts';
import { getClientItem } from './client-table.ts';

/**
 * The claim items (entities `client-ref` and `client-person`) that make a registered client
 * unique in its tenant, each naming the client that holds it: the tenant's own reference
 * (CLIENTREF#<reference>), and the person (CLIENTPERSON#<hash of the normalised name, date of
 * birth and nationality>), so the same person cannot be monitored, and charged every cycle,
 * twice. A claim is taken with one conditional put before anything is screened or charged, and
 * given back when monitoring stops (client-claims.ts says when).
 *
 * dynalite has no transactions, so the claim and the client item are two writes; a claim is
 * therefore taken over when the client it names was stopped (its release never happened) or never
 * appeared (its registration died) after a minute.
 */

/** A claim older than this whose client never appeared was left by a failed request. */
const STALE_CLAIM_MS = 60_000;

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

type ClaimKey = { pk: string; sk: string };

/** One claim: its key, and what its item holds besides the client naming it. */
interface Claim {
  key: ClaimKey;
  item: Pick<ClientClaimItem, 'entity' | 'reference'>;
}

/** The person a claim names: who the client is, never where they live or what else they are called. */
export type ClaimedPerson = Pick<Subject, 'name' | 'dob' | 'nationality'>;

/**
 * The person a client is: the normalised name, date of birth and nationality (the narrower
 * normalisation of the rescreen window: case, width and spacing only), hashed so the key holds no
 * name. Location and alias are left out: the same person moves and is known by other names.
 */
export function personHash(subject: ClaimedPerson): string {
  const canonical = [normaliseText(subject.name), subject.dob ?? '', normaliseText(subject.nationality)];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url');
}

function referenceClaim(tenantId: string, reference: string): Claim {
  return { key: keys.clientRef(tenantId, reference), item: { entity: 'client-ref', reference } };
}

function personClaim(tenantId: string, subject: ClaimedPerson): Claim {
  return { key: keys.clientPerson(tenantId, personHash(subject)), item: { entity: 'client-person' } };
}

function take(claim: Claim, clientId: string, at: Date): TableWrite {
  return {
    what: `${claim.item.entity} claim`,
    Put: {
      Item: { ...claim.key, ...claim.item, client_id: clientId, claimed_at: at.toISOString() },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export const clientClaimWrites = {
  /** Claims the reference for the client: refused when the reference is held already. */
  reference(tenantId: string, reference: string, clientId: string, at: Date): TableWrite {
    return take(referenceClaim(tenantId, reference), clientId, at);
  },

  /** Claims the person for the client: refused when the person is held already. */
  person(tenantId: string, subject: ClaimedPerson, clientId: string, at: Date): TableWrite {
    return take(personClaim(tenantId, subject), clientId, at);
  },

  /** Takes over a claim whose holder `stale` released it (stopped, or never registered). */
  takeOver(key: ClaimKey, clientId: string, at: Date, stale: string): TableWrite {
    return {
      what: 'client claim',
      Update: {
        Key: key,
        UpdateExpression: 'SET client_id = :mine, claimed_at = :at',
        ConditionExpression: 'client_id = :stale',
        ExpressionAttributeValues: { ':mine': clientId, ':at': at.toISOString(), ':stale': stale },
      },
    };
  },

  /** Gives back a claim: refused unless this client holds it. */
  release(key: ClaimKey, clientId: string): TableWrite {
    return {
      what: 'client claim',
      Delete: {
        Key: key,
        ConditionExpression: 'client_id = :mine',
        ExpressionAttributeValues: { ':mine': clientId },
      },
    };
  },
};

/** The claim item of `key` (consistent when asked), or undefined. */
async function getClaim(
  table: Table,
  key: ClaimKey,
  consistent: boolean,
): Promise<ClientClaimItem | undefined> {
  const { Item } = await table.doc.send(
    new GetCommand({ TableName: table.name, Key: key, ...(consistent ? { ConsistentRead: true } : {}) }),
  );
  return Item ? parseItem(ClientClaimItemSchema, Item) : undefined;
}

/**
 * Claims one key for `clientId`; the holder's id when another client holds it. A claim under
 * this very id (an earlier attempt of the same queued registration) is this client's.
 */
async function claim(
  table: Table,
  tenantId: string,
  wanted: Claim,
  clientId: string,
  at: Date,
): Promise<string | undefined> {
  const { key } = wanted;
  if ((await trySendWrite(table, take(wanted, clientId, at))).written) return undefined;
  const held = await getClaim(table, key, true);
  const holder = held?.client_id;
  if (holder === clientId) return undefined;
  if (!holder) return '(being registered)';
  const client = await getClientItem(table, tenantId, holder, true);
  const claimedAt = Date.parse(String(held?.claimed_at ?? ''));
  const released = client?.status === 'stopped' || (!client && at.getTime() - claimedAt > STALE_CLAIM_MS);
  if (released) {
    const tookOver = await trySendWrite(table, clientClaimWrites.takeOver(key, clientId, at, holder));
    if (tookOver.written) return undefined;
  }
  return holder;
}

/** Claims the reference for `clientId`; the holder's id when another client holds it. */
export function claimReference(
  table: Table,
  tenantId: string,
  reference: string,
  clientId: string,
  at: Date,
): Promise<string | undefined> {
  return claim(table, tenantId, referenceClaim(tenantId, reference), clientId, at);
}

/** Claims the person for `clientId`; the holder's id when another client holds it. */
export function claimPerson(
  table: Table,
  tenantId: string,
  subject: ClaimedPerson,
  clientId: string,
  at: Date,
): Promise<string | undefined> {
  return claim(table, tenantId, personClaim(tenantId, subject), clientId, at);
}

/** Gives back the reference if this client holds it. */
export async function releaseReference(
  table: Table,
  tenantId: string,
  reference: string,
  clientId: string,
): Promise<void> {
  await trySendWrite(table, clientClaimWrites.release(referenceClaim(tenantId, reference).key, clientId));
}

/** Gives back the person if this client holds it. */
export async function releasePerson(
  table: Table,
  tenantId: string,
  subject: ClaimedPerson,
  clientId: string,
): Promise<void> {
  await trySendWrite(table, clientClaimWrites.release(personClaim(tenantId, subject).key, clientId));
}

/** The client holding the reference (GET /clients?reference=), or undefined. */
export async function referenceHolder(
  table: Table,
  tenantId: string,
  reference: string,
): Promise<string | undefined> {
  return (await getClaim(table, referenceClaim(tenantId, reference).key, false))?.client_id;
}
