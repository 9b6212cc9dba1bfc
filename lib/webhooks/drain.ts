import type { Logger } from '../common/log.ts';
import { markDrained, type OutboxEntry, type OutboxEvent, pendingOutbox } from '../outbox/outbox-table.ts';
import type { Table } from '../store/table.ts';
import { listTenants } from '../tenancy/tenants.ts';
import { type DeliveryMessage, recordDelivery, sendDeliveries } from './deliveries.ts';
import { pendingDeliveryIds } from './delivery-table.ts';
import type { WebhookDeps } from './deps.ts';
import { getWebhook, subscribedEndpoints } from './endpoints.ts';
import { listWebhookItems, nextWebhookSequence } from './webhook-table.ts';

/**
 * The outbox drain (every minute on AWS, every second under `npm start`): for each item carrying
 * events (oldest first) it records one delivery per subscribed endpoint, numbered by the tenant's
 * sequence, queues a message for each, and only then removes the events from the item. A drain
 * that dies part-way leaves the events in the outbox; the next one finds the deliveries already
 * recorded (same ids, same sequence) and queues them again: at least once, never lost.
 */

/** Items drained at once, and pages per run (a run stops earlier when the outbox is empty). */
const CONCURRENCY = 16;
const PAGE = 100;

export interface DrainReport {
  items: number;
  events: number;
  deliveries: number;
}

/** A `webhook.test` goes to the endpoint it was sent from, whatever it subscribes to. */
async function testedEndpoint(table: Table, tenantId: string, webhookId: string) {
  const endpoint = await getWebhook(table, tenantId, webhookId);
  return endpoint?.enabled ? [endpoint] : [];
}

async function tenantsOf(table: Table, event: OutboxEvent): Promise<string[]> {
  if (event.tenant_id) return [event.tenant_id];
  return (await listTenants(table)).map((tenant) => tenant.tenant_id);
}

/** Records and queues the deliveries of one event; returns how many were queued. */
async function fanOut(deps: WebhookDeps, event: OutboxEvent): Promise<number> {
  const messages: DeliveryMessage[] = [];
  for (const tenantId of await tenantsOf(deps.table, event)) {
    const endpoints =
      event.type === 'webhook.test'
        ? await testedEndpoint(deps.table, tenantId, String(event.data.webhook_id))
        : await subscribedEndpoints(deps.table, tenantId, event.type);
    if (endpoints.length === 0) continue;
    let sequence: number | undefined;
    for (const endpoint of endpoints) {
      sequence ??= await nextWebhookSequence(deps.table, tenantId);
      const { item } = await recordDelivery(deps.table, endpoint, event, sequence);
      if (item.status === 'pending')
        messages.push({
          tenant_id: tenantId,
          webhook_id: endpoint.webhook_id,
          delivery_id: item.delivery_id,
        });
    }
  }
  await sendDeliveries(deps, messages);
  return messages.length;
}

async function drainEntry(deps: WebhookDeps, entry: OutboxEntry): Promise<number> {
  let queued = 0;
  for (const event of entry.events) queued += await fanOut(deps, event);
  await markDrained(deps.table, entry);
  return queued;
}

/** Drains the outbox until it is empty or `budgetMs` has passed. */
export async function drainOutbox(deps: WebhookDeps, log: Logger, budgetMs = 50_000): Promise<DrainReport> {
  const started = Date.now();
  const report: DrainReport = { items: 0, events: 0, deliveries: 0 };
  while (Date.now() - started < budgetMs) {
    const entries = await pendingOutbox(deps.table, PAGE);
    if (entries.length === 0) break;
    let next = 0;
    let failed = 0;
    const lane = async () => {
      while (next < entries.length) {
        const entry = entries[next++];
        try {
          report.deliveries += await drainEntry(deps, entry);
          report.items++;
          report.events += entry.events.length;
        } catch (error) {
          failed++;
          log.error({ err: error, item: entry.key.sk.split('#')[0] }, 'webhook outbox item not drained');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, entries.length) }, lane));
    // Items that keep failing stay for the next run instead of spinning this one; an item holding
    // more than a pass takes (a burst) is drained on in this run, within the budget.
    if (failed === entries.length || (entries.length < PAGE && !entries.some((entry) => entry.more))) break;
  }
  if (report.items > 0) log.info(report, 'webhook outbox drained');
  return report;
}

/**
 * Queues again every delivery still `pending`, for a runtime whose queue does not outlive its
 * process: `npm start`'s delivery queue (fauxqs) is in memory, so a delivery queued but not yet
 * made when the process died would otherwise wait for a replay by hand. Called once at start, when
 * the fresh in-memory queue holds no message for them; a delivery already marked done is skipped,
 * and a repeated attempt carries the same webhook-id, which receivers deduplicate on (at least
 * once). SQS keeps its messages, so the AWS stack never calls it.
 */
export async function requeuePendingDeliveries(deps: Pick<WebhookDeps, 'table' | 'queue'>): Promise<number> {
  let queued = 0;
  for (const tenant of await listTenants(deps.table))
    for (const endpoint of await listWebhookItems(deps.table, tenant.tenant_id)) {
      const pending = await pendingDeliveryIds(deps.table, tenant.tenant_id, endpoint.webhook_id);
      const messages: DeliveryMessage[] = pending.map((deliveryId) => ({
        tenant_id: tenant.tenant_id,
        webhook_id: endpoint.webhook_id,
        delivery_id: deliveryId,
      }));
      await sendDeliveries(deps, messages);
      queued += messages.length;
    }
  return queued;
}
