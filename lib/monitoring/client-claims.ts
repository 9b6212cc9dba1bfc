import { createHash } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../common/errors.ts';
import { normaliseText, type Subject } from '../screening/subject.ts';
import { keys } from '../store/schema.ts';
import { type Table, writeIf } from '../store/table.ts';
import { listTenants } from '../tenancy/tenants.ts';
import { activeClientsOf } from './client-record.ts';

/**
 * What makes a registered client unique in its tenant, each held by one claim item naming the
 * client: the tenant's own reference (CLIENTREF#<reference>), and the person (CLIENTPERSON#<hash
 * of the normalised name, date of birth and nationality>), so the same person cannot be monitored,
 * and charged every cycle, twice. A claim is taken with one conditional put before anything is
 * screened or charged (the 409 costs the tenant nothing) and given back when monitoring stops.
 *
 * dynalite has no transactions, so the claim and the client item are two writes; a claim is
 * therefore taken over when the client it names was stopped (its release never happened) or never
 * appeared (its registration died) after a minute.
 */

/** A claim older than this whose client never appeared was left by a failed request. */
const STALE_CLAIM_MS = 60_000;

type ClaimKey = { pk: string; sk: string };

/**
 * The person a client is: the normalised name, date of birth and nationality (the narrower
 * normalisation of the rescreen window: case, width and spacing only), hashed so the key holds no
 * name. Location and alias are left out: the same person moves and is known by other names.
 */
export function personHash(subject: Pick<Subject, 'name' | 'dob' | 'nationality'>): string {
  const canonical = [normaliseText(subject.name), subject.dob ?? '', normaliseText(subject.nationality)];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url');
}

function personKey(tenantId: string, subject: Pick<Subject, 'name' | 'dob' | 'nationality'>) {
  return keys.clientPerson(tenantId, personHash(subject));
}

/** The existing client named in a 409: the `detail` says which, `existing_client_id` carries it. */
function conflict(detail: string, holder: string | undefined): ConflictError {
  return new ConflictError(
    detail,
    { client_id: holder },
    'client_exists',
    holder ? { existing_client_id: holder } : {},
  );
}

/**
 * Claims one key for `clientId`; the holder's id when another client holds it. A claim under
 * this very id (an earlier attempt of the same queued registration) is this client's.
 */
async function claim(
  table: Table,
  tenantId: string,
  key: ClaimKey,
  item: Record<string, unknown>,
  clientId: string,
  at: Date,
): Promise<string | undefined> {
  const claimed = await writeIf(
    table,
    new PutCommand({
      TableName: table.name,
      Item: { ...key, ...item, client_id: clientId, claimed_at: at.toISOString() },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  if (claimed) return undefined;
  const { Item: held } = await table.doc.send(
    new GetCommand({ TableName: table.name, Key: key, ConsistentRead: true }),
  );
  const holder = held?.client_id as string | undefined;
  if (holder === clientId) return undefined;
  if (!holder) return '(being registered)';
  const { Item: client } = await table.doc.send(
    new GetCommand({ TableName: table.name, Key: keys.client(tenantId, holder), ConsistentRead: true }),
  );
  const claimedAt = Date.parse(String(held?.claimed_at ?? ''));
  const released = client?.status === 'stopped' || (!client && at.getTime() - claimedAt > STALE_CLAIM_MS);
  if (released) {
    const tookOver = await writeIf(
      table,
      new UpdateCommand({
        TableName: table.name,
        Key: key,
        UpdateExpression: 'SET client_id = :mine, claimed_at = :at',
        ConditionExpression: 'client_id = :stale',
        ExpressionAttributeValues: { ':mine': clientId, ':at': at.toISOString(), ':stale': holder },
      }),
    );
    if (tookOver) return undefined;
  }
  return holder;
}

/** Gives back a claim this client holds (a failed registration, or monitoring stopped). */
async function release(table: Table, key: ClaimKey, clientId: string): Promise<void> {
  await writeIf(
    table,
    new DeleteCommand({
      TableName: table.name,
      Key: key,
      ConditionExpression: 'client_id = :mine',
      ExpressionAttributeValues: { ':mine': clientId },
    }),
  );
}

export interface ClaimedClient {
  tenantId: string;
  clientId: string;
  reference?: string | null;
  subject: Pick<Subject, 'name' | 'dob' | 'nationality'>;
}

/**
 * Claims the reference (when given) and the person for a new client: a 409 naming the existing
 * client (`existing_client_id`) when either is held by another monitored client, with nothing
 * left claimed.
 */
export async function claimReferenceAndPerson(table: Table, client: ClaimedClient, at: Date): Promise<void> {
  const { tenantId, clientId, reference } = client;
  if (reference) {
    const holder = await claim(
      table,
      tenantId,
      keys.clientRef(tenantId, reference),
      { entity: 'client-ref', reference },
      clientId,
      at,
    );
    if (holder) throw conflict(`reference: ${reference} is already registered as client ${holder}`, holder);
  }
  const holder = await claim(
    table,
    tenantId,
    personKey(tenantId, client.subject),
    { entity: 'client-person' },
    clientId,
    at,
  );
  if (holder) {
    if (reference) await release(table, keys.clientRef(tenantId, reference), clientId);
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
  if (reference) await release(table, keys.clientRef(tenantId, reference), clientId);
  await release(table, personKey(tenantId, client.subject), clientId);
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
      const holder = await claim(
        table,
        tenant.tenant_id,
        personKey(tenant.tenant_id, client.subject),
        { entity: 'client-person' },
        client.client_id,
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
