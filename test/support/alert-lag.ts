/**
 * The designation-to-alert flow, shared by its test (test/sync/alert-lag.test.ts, a few hundred
 * clients on the in-process stack) and its benchmark (`npm run bench:alert-lag`, 20,000 clients
 * against the service run as its own process):
 *
 * 1. a mirror of the UN list as the publisher had it before a real designee (the file's first
 *    individual, Eric Badege, CDi.001) was listed, which the service syncs from;
 * 2. K clients registered through the API under the designee's name, while nobody lists him;
 * 3. N - K bystanders: clients bearing the real names of people on the other lists, written
 *    straight into the table with their name keys, as registration files them (the flow times
 *    the alerts, not 20,000 registrations);
 * 4. the publisher lists him (the mirror gets the real file back), and the service's next sync
 *    must put exactly K alerts in the pending queue and charge K screens.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createMatcher } from '../../lib/matcher/screen.ts';
import { clientNameKeys } from '../../lib/monitoring/client-name-keys.ts';
import { newClientId } from '../../lib/monitoring/client-record.ts';
import { matchesOf } from '../../lib/screening/change-detection.ts';
import { keys } from '../../lib/store/schema.ts';
import type { Table } from '../../lib/store/table.ts';
import { perListPeople } from '../../lib/watchlists/linking.ts';
import { defaultDataDir } from '../../lib/watchlists/snapshot.ts';
import type { WatchlistSnapshot } from '../../lib/watchlists/types.ts';
import { unWithoutIndividuals } from './list-mirror.ts';
import { monitoredClientItem, putItems } from './monitored-client.ts';

export const UN_MIRROR_FILE = 'sanctions/un/UN_consolidated.xml';
/** The UN file's first individual: the designee the sync adds. */
export const DESIGNEE = { name: 'Eric Badege', entity_id: '6907993' };

/** A mirror directory holding the UN file without the designee; `list()` puts the real file back. */
export function designationMirror(dir: string) {
  const path = join(dir, UN_MIRROR_FILE);
  mkdirSync(dirname(path), { recursive: true });
  const original = readFileSync(join(defaultDataDir(), UN_MIRROR_FILE), 'utf8');
  writeFileSync(path, unWithoutIndividuals(original, 1));
  return {
    dir,
    /** The publisher lists the designee: written beside and renamed, so a sync never reads half. */
    list(): void {
      writeFileSync(`${path}.tmp`, original);
      renameSync(`${path}.tmp`, path);
    },
  };
}

/** Minimal JSON client of the running service, as a tenant's integration would call it. */
export function serviceClient(url: string, apiKey: string) {
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    // biome-ignore lint/suspicious/noExplicitAny: the flow reads arbitrary JSON bodies
  ): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  return {
    get: (path: string) => call('GET', path),
    post: (path: string, body?: unknown) => call('POST', path, body),
  };
}
export type ServiceClient = ReturnType<typeof serviceClient>;

export interface RegisteredClient {
  client_id: string;
  last_screen_id: string;
}

/**
 * K clients registered under the designee's name: K different people who share it, so each has
 * its own date of birth within the designee's listed year (1971; a day of that year agrees with
 * it) besides its own reference and place. The same name with no date would be one person, and
 * a second registration of it a 409 (docs/monitoring.md).
 */
export async function registerMatching(api: ServiceClient, count: number): Promise<RegisteredClient[]> {
  if (count > 365) throw new Error('registerMatching: at most 365 people share the designee’s name and year');
  const clients: RegisteredClient[] = [];
  for (let i = 0; i < count; i++) {
    const response = await api.post('/clients', {
      name: DESIGNEE.name,
      dob: new Date(Date.UTC(1971, 0, 1 + i)).toISOString().slice(0, 10),
      reference: `alert-lag-${i}`,
      location: `Branch ${i}`,
      types: 'sanctions,pep',
    });
    if (response.status !== 201)
      throw new Error(`registration ${i}: ${response.status} ${JSON.stringify(response.body)}`);
    clients.push({ client_id: response.body.client_id, last_screen_id: response.body.last_screen_id });
  }
  return clients;
}

/**
 * `count` bystanders in the tenant: real names of people on lists other than the UN's, cycled,
 * so they share common name parts with the designee's as real customers do. Not due for a year.
 */
export async function seedBystanders(
  table: Table,
  tenantId: string,
  snapshot: WatchlistSnapshot,
  count: number,
): Promise<void> {
  const people = perListPeople(snapshot);
  // A bystander is someone the new listing does not concern: the names the designee's own
  // listing would match (another list's listing of the same man) are left out.
  const designee = people.filter((p) => p.list_id === 'un_sc' && p.entity_id === DESIGNEE.entity_id);
  const concerned = createMatcher({ ...snapshot, people: designee, listing_records: undefined });
  const names = people
    .filter((person) => person.list_id !== 'un_sc')
    .map((person) => person.names[0].name)
    .filter((name) => matchesOf(concerned.screen({ name }, ['sanctions'])).length === 0);
  const dueAt = new Date(Date.now() + 365 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const items: Record<string, unknown>[] = [];
  const started = Date.now();
  for (let i = 0; i < count; i++) {
    const clientId = newClientId(new Date(started - count + i));
    const subject = { name: names[i % names.length] };
    items.push(monitoredClientItem(tenantId, clientId, subject, dueAt));
    for (const nameKey of clientNameKeys(subject)) {
      items.push({
        ...keys.clientNameKey(nameKey, tenantId, clientId),
        entity: 'client-name-key',
        tenant_id: tenantId,
        client_id: clientId,
      });
    }
  }
  await putItems(table, items);
}

/** The month's screens charged to the caller's tenant. */
export async function screensUsed(api: ServiceClient): Promise<number> {
  const me = await api.get('/me');
  return me.body.usage.screens_used;
}

/** Where one client's alert stands: in the pending queue, not there yet (late), or never to come (missing). */
export interface ClientAlert {
  client_id: string;
  /** `pending`: its alert is on a screen in the pending queue. `late`: not re-screened yet. `missing`: re-screened, and the alert is not in the queue (why: `detail`). */
  state: 'pending' | 'late' | 'missing';
  /** The screen carrying the alert (pending), or the client's current screen. */
  screen_id: string;
  /** ms from `since` until the alert was seen in the queue (pending only). */
  ms: number | null;
  /** The client's screens since the one it was registered with. */
  rescreens: number;
  detail: string;
}

export interface AlertsSeen {
  /** True when every client's alert was in the pending queue before the deadline. */
  complete: boolean;
  /** ms from `since` until every client's alert was in the pending queue (or the deadline). */
  ms: number;
  /** The screens carrying the alerts in the queue, by client. */
  screens: Map<string, string>;
  /** Each client's alert, in the order given. */
  clients: ClientAlert[];
}

// biome-ignore lint/suspicious/noExplicitAny: the flow reads arbitrary JSON bodies
type Json = any;

const addsDesignee = (alert: Json) =>
  Boolean(alert?.matches_added?.some((m: { entity_id: string }) => m.entity_id === DESIGNEE.entity_id));

/** Every screen id in the tenant's pending queue, as an analyst's queue pages through it. */
async function pendingScreenIds(api: ServiceClient): Promise<Set<string>> {
  const pending = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = (await api.get(`/screens/pending?limit=200${cursor ? `&cursor=${cursor}` : ''}`)).body;
    for (const row of page.screens) pending.add(row.screen_id);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return pending;
}

/**
 * Polls, as an analyst's queue would, until each client's open alert adding the designee (GET
 * /clients/{id}: the alert on the client's current screen) is on a screen in the tenant's pending
 * queue; the time is taken then. Whichever screen of the client carries it counts, so a client
 * re-screened twice (its first alert screen superseded by a newer one carrying the alert forward)
 * is not waited for in vain. At the deadline each client still out is told apart: `late` when it
 * has not been re-screened yet, `missing` when it was and its alert is not in the queue (the
 * detail says what its current screen holds instead).
 */
export async function awaitAlerts(
  api: ServiceClient,
  clients: readonly RegisteredClient[],
  since: number,
  timeoutMs: number,
): Promise<AlertsSeen> {
  const arrived = new Map<string, ClientAlert>();
  const deadline = since + timeoutMs;
  for (;;) {
    const current = new Map<string, Json>();
    for (const client of clients) {
      if (arrived.has(client.client_id)) continue;
      current.set(client.client_id, (await api.get(`/clients/${client.client_id}`)).body);
    }
    const alerted = [...current.entries()].filter(([, detail]) => addsDesignee(detail.open_alert));
    if (alerted.length > 0) {
      const pending = await pendingScreenIds(api);
      const at = Date.now() - since;
      for (const [clientId, detail] of alerted) {
        const screenId: string = detail.open_alert.screen_id;
        if (pending.has(screenId))
          arrived.set(clientId, {
            client_id: clientId,
            state: 'pending',
            screen_id: screenId,
            ms: at,
            rescreens: detail.screens.length - 1,
            detail: 'in the pending queue',
          });
      }
    }
    const done = arrived.size === clients.length;
    if (done || Date.now() > deadline) {
      const outcomes: ClientAlert[] = [];
      for (const client of clients)
        outcomes.push(arrived.get(client.client_id) ?? (await whyNotPending(api, client)));
      const screens = new Map(
        outcomes.filter((o) => o.state === 'pending').map((o) => [o.client_id, o.screen_id]),
      );
      const ms = done ? Math.max(...outcomes.map((o) => o.ms ?? 0)) : Date.now() - since;
      return { complete: done, ms, screens, clients: outcomes };
    }
    // Each poll reads every waiting client and its current screen: often enough to time a lag of
    // seconds, seldom enough not to slow an in-process stack (test/sync/alert-lag.test.ts).
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A client whose alert is not in the queue at the deadline: not re-screened yet, or why its alert is missing. */
async function whyNotPending(api: ServiceClient, client: RegisteredClient): Promise<ClientAlert> {
  const detail = (await api.get(`/clients/${client.client_id}`)).body;
  const screenId: string = detail.last_screen_id;
  const base = {
    client_id: client.client_id,
    screen_id: screenId,
    ms: null,
    rescreens: detail.screens.length - 1,
  };
  if (screenId === client.last_screen_id)
    return {
      ...base,
      state: 'late',
      detail: 'not re-screened yet: its current screen is still its registration screen',
    };
  const screen = (await api.get(`/screens/${screenId}`)).body;
  const pending = await pendingScreenIds(api);
  const state = `${screenId}: risk ${screen.risk_level}, disposition ${screen.disposition?.disposition ?? 'none'}, superseded_by ${screen.superseded_by ?? 'none'}, ${pending.has(screenId) ? 'in' : 'not in'} the pending queue`;
  if (!addsDesignee(screen.alert))
    return {
      ...base,
      state: 'missing',
      detail: `re-screened, but its current screen raises no alert adding the designee (${state})`,
    };
  return { ...base, state: 'missing', detail: `its alert is on a screen that is not pending (${state})` };
}
