import { type NameToken, tokeniseName } from '../matcher/normalise.ts';
import { phoneticKey } from '../matcher/string-similarity.ts';
import type { Table } from '../store/table.ts';
import { listTenants } from '../tenancy/tenants.ts';
import type { ListedPerson } from '../watchlists/types.ts';
import { writeClientNameKeys } from './client-name-key-table.ts';
import { activeClientsOf } from './client-table.ts';

/**
 * Client name keys: how a list sync finds the registered clients an added or amended listing
 * could match without reading every client (delta rescreens, delta-rescreen.ts).
 *
 * A key is made of the matcher's own sound keys (normalise.ts: the consonant-skeleton phonetic
 * key, and that of the token's name-variant group, so "Bill" also keys as "William"), so a listed
 * spelling the matcher would pair with the client's yields the same key. Particles and initials
 * weigh little in matching and make no key.
 *
 * - A name of two or more parts keys by every PAIR of its parts (`ptn+vltmr`): the matcher only
 *   reports a person when most of the name agrees, and a pair is far more selective than one
 *   part, so a partition holds the clients sharing two name parts ("Mohammed" alone would hold
 *   a large share of some tenants' clients: a hot key read in full for every listed Mohammed).
 * - A name of one part keys by that part alone (`1:mtn`).
 *
 * A listed person is looked up by the pairs of each of its names and by each single part (so a
 * one-part client name is found by a longer listed name containing it). What the keys miss (a
 * one-part listed name against a longer client name; a spelling whose sound skeleton differs)
 * is still caught by the client's periodic rescreen. The keys only select candidates: the sync
 * then screens each candidate against the changed people before rescreening it (it costs the
 * tenant a screen).
 */

/** Name parts taken per name: 10 parts make 45 pairs; longer names are rare and keep their first 10. */
const MAX_PARTS = 10;

/** The sound keys of one name part. */
function partKeys(token: NameToken): string[] {
  const out = new Set<string>();
  if (token.phonetic) out.add(token.phonetic);
  for (const variant of token.variantKeys) {
    const key = phoneticKey(variant);
    if (key) out.add(key);
  }
  return [...out];
}

function partsOf(name: string): string[][] {
  return tokeniseName(name)
    .filter((token) => !token.particle && !token.initial)
    .map(partKeys)
    .filter((set) => set.length > 0)
    .slice(0, MAX_PARTS);
}

const single = (key: string) => `1:${key}`;
const pair = (a: string, b: string) => (a < b ? `${a}+${b}` : `${b}+${a}`);

function addPairs(parts: string[][], out: Set<string>): void {
  for (let i = 0; i < parts.length; i++)
    for (let j = i + 1; j < parts.length; j++)
      for (const a of parts[i]) for (const b of parts[j]) if (a !== b) out.add(pair(a, b));
}

/** The keys a client is filed under: one per pair of parts of its name and alias (one-part names: the part). */
export function clientNameKeys(subject: { name: string; alias?: string }): string[] {
  const out = new Set<string>();
  for (const name of [subject.name, subject.alias]) {
    if (!name) continue;
    const parts = partsOf(name);
    if (parts.length === 1) for (const key of parts[0]) out.add(single(key));
    addPairs(parts, out);
  }
  return [...out].sort();
}

/** The keys to look up for listed people: the pairs of each of their names, and each part alone. */
export function listedNameKeys(people: readonly Pick<ListedPerson, 'names'>[]): string[] {
  const out = new Set<string>();
  for (const person of people) {
    for (const { name } of person.names) {
      const parts = partsOf(name);
      for (const set of parts) for (const key of set) out.add(single(key));
      addPairs(parts, out);
    }
  }
  return [...out].sort();
}

/**
 * Files a client under its name keys (`file`: at registration, before the client item, since a
 * key whose client never appeared costs the sync one read while a client without keys would be
 * missed), or takes it off them (`remove`: monitoring stopped, no list change rescreens it).
 */
export async function updateClientNameKeys(
  table: Table,
  client: { tenantId: string; clientId: string; subject: { name: string; alias?: string } },
  action: 'file' | 'remove',
): Promise<void> {
  await writeClientNameKeys(table, client, clientNameKeys(client.subject), action);
}

/**
 * Files every monitored client of every tenant under its name keys (idempotent puts): once after
 * upgrading a table whose clients were registered before name keys existed (`npm run admin --
 * file-name-keys`). Reads each tenant's client items, never another partition.
 */
export async function fileAllClientNameKeys(table: Table): Promise<{ tenants: number; clients: number }> {
  const tenants = await listTenants(table);
  let clients = 0;
  for (const tenant of tenants) {
    for (const client of await activeClientsOf(table, tenant.tenant_id)) {
      await updateClientNameKeys(
        table,
        { tenantId: client.tenant_id, clientId: client.client_id, subject: client.subject },
        'file',
      );
      clients += 1;
    }
  }
  return { tenants: tenants.length, clients };
}
