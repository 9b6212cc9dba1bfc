import { audited } from '../audit/trail.ts';
import type { Logger } from '../common/log.ts';
import { isoSeconds } from '../common/time.ts';
import { createMatcher, type Matcher } from '../matcher/screen.ts';
import type { Services } from '../ports.ts';
import { matchesOf } from '../screening/change-detection.ts';
import type { Table } from '../store/table.ts';
import { PLANS } from '../tenancy/plans.ts';
import { getTenant } from '../tenancy/tenants.ts';
import { SNAPSHOT_FORMAT_VERSION } from '../watchlists/snapshot.ts';
import type { ListedPerson, ListSummary } from '../watchlists/types.ts';
import { clientsFiledUnder } from './client-name-key-table.ts';
import { listedNameKeys } from './client-name-keys.ts';
import { SYSTEM_ACTOR } from './client-record.ts';
import { type ClientItem, clientItemsOf, makeClientDue } from './client-table.ts';
import { type RunStarted, startRescreenRun } from './rescreen-run.ts';

/**
 * Delta rescreens: after a list sync publishes, the registered clients who could match a person
 * it added or amended are rescreened at once through the monitoring path (a rescreen run of
 * trigger `list_change`), so a client newly matching a fresh designation gets its alert the day
 * the list changed, not at its next due date. Only those clients, found without reading the
 * others:
 *
 * 1. the changed people's name keys (client-name-keys.ts) are looked up: the items read are the
 *    clients filed under the same keys, however many clients there are;
 * 2. each hit's client item is read from its tenant's partition, and screened in memory against
 *    a matcher over the changed people alone: a client none of them resembles is left alone
 *    (a rescreen charges the tenant a screen);
 * 3. the rest are made due now (one conditional write each) and handed to a rescreen run of their
 *    tenant, which claims, charges and queues them like any run; the worker compares each new
 *    screen with the client's previous one and raises the alert on a new or amended match.
 *    A client the month's quota cannot cover stays due: the hourly schedule takes it next.
 *    The run names the snapshot the sync published, so no worker screens its clients on the
 *    lists from before the change (lib/monitoring/run-lists.ts).
 */

/** Key lookups and client reads in flight at once. */
const CONCURRENCY = 16;

export interface DeltaRescreenInput {
  /** The people the sync added or amended, as each list states them. */
  people: readonly ListedPerson[];
  /** The published snapshot's lists (the changed people's lists among them). */
  lists: readonly ListSummary[];
  /** The sync's time. */
  syncedAt: string;
  /** The snapshot version the sync published: the run's screens use it or a newer one. */
  snapshotVersion: string;
  now: Date;
}

export interface DeltaRescreenReport {
  /** Added or amended people looked at. */
  people: number;
  /** Name keys looked up, and the items those lookups read (the cost; neither grows with clients). */
  keys_looked_up: number;
  key_items_read: number;
  /** Distinct active clients filed under those keys, read from their tenants' partitions. */
  candidates: number;
  /** Of those, the clients the changed people's matcher finds: made due and rescreened. */
  matching: number;
  /** Matching clients made due now (a client a run already holds is screened by that run). */
  made_due: number;
  runs: (Pick<RunStarted, 'run_id' | 'queued' | 'skipped_quota'> & {
    tenant_id: string;
  })[];
}

async function inBatches<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let offset = 0; offset < items.length; offset += CONCURRENCY)
    results.push(...(await Promise.all(items.slice(offset, offset + CONCURRENCY).map(work))));
  return results;
}

/** The clients filed under any of `nameKeys`: (tenant, client) pairs, and the items read. */
async function clientsUnder(table: Table, nameKeys: readonly string[]) {
  const pages = await inBatches(nameKeys, (nameKey) => clientsFiledUnder(table, nameKey));
  const hits = new Map<string, { tenantId: string; clientId: string }>();
  for (const { tenant_id: tenantId, client_id: clientId } of pages.flat())
    hits.set(`${tenantId}#${clientId}`, { tenantId, clientId });
  return { hits: [...hits.values()], itemsRead: pages.reduce((sum, page) => sum + page.length, 0) };
}

/** The active client items of `refs`, 100 keys per BatchGetItem (consistent: just registered counts). */
async function readClients(table: Table, refs: readonly { tenantId: string; clientId: string }[]) {
  const chunks: (typeof refs)[] = [];
  for (let offset = 0; offset < refs.length; offset += 100) chunks.push(refs.slice(offset, offset + 100));
  const found = await inBatches(chunks, (chunk) => clientItemsOf(table, chunk));
  return found.flat().filter((client) => client.status === 'active');
}

/**
 * Makes a client due now, unless it is due already; false when it changed meanwhile (stopped,
 * or claimed by a run in progress, which screens it anyway).
 */
async function makeDue(table: Table, client: ClientItem, now: Date): Promise<ClientItem | undefined> {
  const at = isoSeconds(now);
  if (client.next_due_at <= at && !client.claim_until) return client;
  const made = await makeClientDue(table, client, at);
  return made ? { ...client, next_due_at: at } : undefined;
}

/** A matcher over the changed people alone: which candidates could match one of them. */
function changedPeopleMatcher(input: DeltaRescreenInput): Matcher {
  return createMatcher({
    format_version: SNAPSHOT_FORMAT_VERSION,
    built_at: input.syncedAt,
    lists: [...input.lists],
    people: [...input.people],
  });
}

/**
 * Without a queue (`npm run sync` beside a running `npm start`) the clients are only made due:
 * the hourly rescreen of the process that owns the queue takes them within the hour.
 */
export async function rescreenChangedClients(
  services: { table: Table; batchQueue?: Services['batchQueue'] },
  input: DeltaRescreenInput,
  log: Logger,
): Promise<DeltaRescreenReport> {
  const { table } = services;
  const nameKeys = listedNameKeys(input.people);
  const { hits, itemsRead } = await clientsUnder(table, nameKeys);
  const candidates = await readClients(table, hits);
  const report: DeltaRescreenReport = {
    people: input.people.length,
    keys_looked_up: nameKeys.length,
    key_items_read: itemsRead,
    candidates: candidates.length,
    matching: 0,
    made_due: 0,
    runs: [],
  };
  if (candidates.length === 0) return report;

  const matcher = changedPeopleMatcher(input);
  const matching = candidates.filter(
    (client) => matchesOf(matcher.screen(client.subject, client.types)).length > 0,
  );
  report.matching = matching.length;
  const byTenant = new Map<string, ClientItem[]>();
  for (const client of matching)
    byTenant.set(client.tenant_id, [...(byTenant.get(client.tenant_id) ?? []), client]);

  for (const [tenantId, clients] of byTenant) {
    // One tenant failing (its plan unreadable, a write refused) does not stop the others.
    try {
      const tenant = await getTenant(table, tenantId);
      if (!tenant) continue;
      // The sync affected this tenant: recorded in its audit trail before its clients are touched.
      await audited(
        table,
        tenantId,
        {
          action: 'lists.synced',
          actor: { ...SYSTEM_ACTOR },
          details: {
            snapshot_version: input.snapshotVersion ?? null,
            listed_people_changed: input.people.length,
            clients_matching: clients.length,
          },
          done: (outcome) => ({
            target: 'run_id' in outcome ? { run_id: outcome.run_id } : {},
            details: {
              made_due: outcome.made_due,
              queued: 'queued' in outcome ? outcome.queued : 0,
              skipped_quota: 'skipped_quota' in outcome ? outcome.skipped_quota : 0,
            },
          }),
        },
        async (): Promise<{ made_due: number } | (RunStarted & { made_due: number })> => {
          const due = (await inBatches(clients, (client) => makeDue(table, client, input.now))).filter(
            (client): client is ClientItem => client !== undefined,
          );
          report.made_due += due.length;
          // Without a queue the clients are only made due: the hourly rescreen takes them.
          if (due.length === 0 || !services.batchQueue) return { made_due: due.length };
          const run = await startRescreenRun(
            { table, batchQueue: services.batchQueue },
            {
              tenantId,
              plan: PLANS[tenant.plan],
              trigger: 'list_change',
              startedBy: { ...SYSTEM_ACTOR },
              now: input.now,
              clients: due,
              snapshotVersion: input.snapshotVersion,
            },
            log,
          );
          report.runs.push({
            tenant_id: tenantId,
            run_id: run.run_id,
            queued: run.queued,
            skipped_quota: run.skipped_quota,
          });
          return { ...run, made_due: due.length };
        },
      );
    } catch (error) {
      log.error({ err: error, tenant: tenantId }, 'list-change rescreen not started');
    }
  }
  log.info({ ...report, runs: report.runs.length }, 'list-change rescreens started');
  return report;
}
