import * as v from 'valibot';
import { auditedCommit } from '../audit/trail.ts';
import { NotFoundError } from '../common/errors.ts';
import type { OutboxEvent } from '../outbox/outbox-table.ts';
import type { Table } from '../store/table.ts';
import { type Principal, requireRole } from '../tenancy/auth.ts';
import {
  DELIVERY_OUTCOMES,
  type DeliveryItem,
  deliveryWrites,
  findDeliveries,
  readDeliveryItem,
  recordDeliveryOnce,
} from './delivery-table.ts';
import type { WebhookDeps } from './deps.ts';
import { requireWebhook } from './endpoints.ts';
import { PAYLOAD_MAX_BYTES, payloadOf, WEBHOOK_EVENT_TYPES } from './events.ts';
import type { WebhookItem } from './webhook-table.ts';

/**
 * The delivery log: one item per event per endpoint, holding the signed payload (so a retry or a
 * replay sends exactly the same bytes under the same `webhook-id`), its outcome and every attempt
 * with its time, latency, status code and the start of the answer.
 */

/** The `webhook-id` of one event to one endpoint: the same on every retry and replay. */
export function deliveryIdOf(event: Pick<OutboxEvent, 'event_id'>, webhookId: string): string {
  return `msg_${event.event_id.slice(4)}${webhookId.slice(4)}`;
}

export const DELIVERY_ID_PATTERN = /^msg_[0-9a-z]{21}[0-9a-f]{16}$/;

/** The message on the delivery queue: ids only (the payload stays in the table). */
export interface DeliveryMessage {
  tenant_id: string;
  webhook_id: string;
  delivery_id: string;
  replay?: number;
}

/**
 * Records the delivery of an event to an endpoint, once: a drain that runs again after a crash
 * finds it (condition attribute_not_exists) and does not number it again. Returns the stored
 * delivery, new or found.
 */
export async function recordDelivery(
  table: Table,
  endpoint: WebhookItem,
  event: OutboxEvent,
  sequence: number,
  now = new Date(),
): Promise<{ item: DeliveryItem; created: boolean }> {
  const deliveryId = deliveryIdOf(event, endpoint.webhook_id);
  const payload = payloadOf(event, endpoint.tenant_id, sequence);
  const tooLarge = Buffer.byteLength(payload) > PAYLOAD_MAX_BYTES;
  const item: DeliveryItem = {
    entity: 'webhook-delivery',
    tenant_id: endpoint.tenant_id,
    webhook_id: endpoint.webhook_id,
    delivery_id: deliveryId,
    event_id: event.event_id,
    event_type: event.type as DeliveryItem['event_type'],
    sequence,
    payload: tooLarge ? '' : payload,
    created_at: now.toISOString(),
    status: tooLarge ? 'failed' : 'pending',
    attempts: [],
    attempt_count: 0,
    replays: 0,
    detail: tooLarge ? `The payload is over ${PAYLOAD_MAX_BYTES} bytes; not sent` : null,
  };
  return recordDeliveryOnce(table, item);
}

export async function getDelivery(
  table: Table,
  tenantId: string,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryItem | undefined> {
  if (!DELIVERY_ID_PATTERN.test(deliveryId)) return undefined;
  return readDeliveryItem(table, tenantId, webhookId, deliveryId);
}

export const DeliveriesQuerySchema = v.object({
  event: v.optional(
    v.pipe(
      v.picklist(WEBHOOK_EVENT_TYPES, `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`),
      v.description('Only deliveries of this event type'),
    ),
  ),
  outcome: v.optional(
    v.pipe(
      v.picklist(DELIVERY_OUTCOMES, `must be one of ${DELIVERY_OUTCOMES.join(', ')}`),
      v.description('Only deliveries with this outcome'),
    ),
  ),
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,3}$/, 'must be a whole number between 1 and 200'),
      v.transform(Number),
      v.minValue(1, 'must be a whole number between 1 and 200'),
      v.maxValue(200, 'must be at most 200'),
      v.description('Deliveries to return, newest first, 1 to 200 (default 50)'),
    ),
  ),
});

export function deliveryView(item: DeliveryItem) {
  const last = item.attempts.at(-1);
  return {
    delivery_id: item.delivery_id,
    event_id: item.event_id,
    event_type: item.event_type,
    sequence: item.sequence,
    outcome: item.status,
    created_at: item.created_at,
    attempt_count: item.attempt_count,
    replays: item.replays,
    last_status_code: last?.status_code ?? null,
    last_attempt_at: last?.at ?? null,
    detail: item.detail,
    attempts: item.attempts,
  };
}

async function requireEndpoint(table: Table, caller: Principal, webhookId: string): Promise<WebhookItem> {
  requireRole(caller, 'admin', 'Reading webhook deliveries');
  return requireWebhook(table, caller, webhookId);
}

/** GET /webhooks/{id}/deliveries: newest first, filtered by event type and outcome. */
export async function listDeliveries(
  table: Table,
  caller: Principal,
  webhookId: string,
  query: v.InferOutput<typeof DeliveriesQuerySchema>,
) {
  await requireEndpoint(table, caller, webhookId);
  const found = await findDeliveries(table, caller.tenantId, webhookId, query, query.limit ?? 50);
  return { deliveries: found.map(deliveryView) };
}

/** POST /webhooks/{id}/deliveries/{delivery_id}/replay: the same payload and webhook-id, queued again. */
export async function replayDelivery(
  deps: Pick<WebhookDeps, 'table' | 'queue'>,
  caller: Principal,
  webhookId: string,
  deliveryId: string,
) {
  const { table } = deps;
  const endpoint = await requireEndpoint(table, caller, webhookId);
  // The delivery made pending again and its `webhook.replay` entry are one transaction; a replay
  // of a delivery the endpoint does not have (404) writes nothing and is one `refused` entry.
  const replayed = await auditedCommit(
    table,
    caller.tenantId,
    {
      action: 'webhook.replay',
      actor: { user_id: caller.userId, role: caller.role },
      details: { webhook_id: webhookId, delivery_id: deliveryId.slice(0, 100) },
    },
    async (commit) => {
      const delivery = await getDelivery(table, caller.tenantId, webhookId, deliveryId);
      if (!delivery) throw new NotFoundError(`No delivery ${deliveryId} of webhook ${webhookId}`);
      await commit([deliveryWrites.replayed(caller.tenantId, webhookId, deliveryId)], {
        details: { event_id: delivery.event_id, replays: delivery.replays + 1 },
      });
      return { ...delivery, status: 'pending' as const, detail: null, replays: delivery.replays + 1 };
    },
  );
  await sendDeliveries(deps, [
    {
      tenant_id: caller.tenantId,
      webhook_id: endpoint.webhook_id,
      delivery_id: deliveryId,
      replay: replayed.replays,
    },
  ]);
  return { delivery: deliveryView(replayed), detail: 'Queued again with the same webhook-id and payload' };
}

/** Queues delivery messages; throws when SQS did not take one (the caller's work is then retried). */
export async function sendDeliveries(deps: Pick<WebhookDeps, 'queue'>, messages: readonly DeliveryMessage[]) {
  if (messages.length === 0) return;
  const { failed } = await deps.queue().sendAll(messages.map((message) => JSON.stringify(message)));
  if (failed.length > 0) throw new Error(`${failed.length} webhook deliveries not queued`);
}
