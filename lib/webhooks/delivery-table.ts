import * as v from 'valibot';
import { ConflictError } from '../common/errors.ts';
import { keys } from '../store/schema.ts';
import { parseItem, queryAll, queryPage, readItem, type Table } from '../store/table.ts';
import { sendWrite, type TableWrite, trySendWrite } from '../store/write.ts';
import { WEBHOOK_EVENT_TYPES } from './events.ts';

/**
 * The `webhook-delivery` item: one event's delivery to one endpoint
 * (`WHDELIVERY#<webhook_id>#<delivery_id>` in the tenant's partition), with its payload, outcome
 * and attempts. Declared once here, with its writes (recorded once, an attempt, an end, a replay)
 * and its reads (one delivery, an endpoint's deliveries newest first, the pending ones).
 */

export const DELIVERY_OUTCOMES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** Attempts kept on a delivery (the first and the latest ones past it): replays add attempts. */
const ATTEMPTS_KEPT = 30;

const AttemptSchema = v.object({
  at: v.string(),
  status_code: v.nullable(v.number()),
  latency_ms: v.number(),
  outcome: v.picklist(['succeeded', 'failed', 'refused']),
  response_body: v.string(),
  error: v.nullable(v.string()),
});
export type Attempt = v.InferOutput<typeof AttemptSchema>;

export const DeliveryItemSchema = v.object({
  entity: v.literal('webhook-delivery'),
  tenant_id: v.string(),
  webhook_id: v.string(),
  delivery_id: v.string(),
  event_id: v.string(),
  event_type: v.picklist(WEBHOOK_EVENT_TYPES),
  sequence: v.number(),
  payload: v.string(),
  created_at: v.string(),
  status: v.picklist(DELIVERY_OUTCOMES),
  attempts: v.array(AttemptSchema),
  attempt_count: v.number(),
  replays: v.optional(v.number(), 0),
  detail: v.optional(v.nullable(v.string()), null),
});
export type DeliveryItem = v.InferOutput<typeof DeliveryItemSchema>;

const keyOf = (delivery: Pick<DeliveryItem, 'tenant_id' | 'webhook_id' | 'delivery_id'>) =>
  keys.webhookDelivery(delivery.tenant_id, delivery.webhook_id, delivery.delivery_id);

/** The delivery (consistent read), or undefined. */
export async function readDeliveryItem(
  table: Table,
  tenantId: string,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryItem | undefined> {
  const item = await readItem(table, keys.webhookDelivery(tenantId, webhookId, deliveryId));
  return item ? parseItem(DeliveryItemSchema, item) : undefined;
}

export const deliveryWrites = {
  /** Puts a new delivery, condition attribute_not_exists; refused: it is already recorded (a 409). */
  record(item: DeliveryItem): TableWrite {
    return {
      Put: { Item: { ...keyOf(item), ...item }, ConditionExpression: 'attribute_not_exists(pk)' },
      what: 'webhook delivery',
      refused: () => new ConflictError(`Webhook delivery ${item.delivery_id} is already recorded`),
    };
  },

  /** Appends an attempt and sets the outcome; attempts past ATTEMPTS_KEPT drop the oldest but the first. */
  attempted(
    delivery: DeliveryItem,
    attempt: Attempt,
    status: DeliveryOutcome,
    detail: string | null,
  ): TableWrite {
    const kept = [...delivery.attempts, attempt];
    const attempts = kept.length > ATTEMPTS_KEPT ? [kept[0], ...kept.slice(-(ATTEMPTS_KEPT - 1))] : kept;
    return {
      Update: {
        Key: keyOf(delivery),
        UpdateExpression:
          'SET attempts = :attempts, #status = :status, detail = :detail ADD attempt_count :one',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':attempts': attempts, ':status': status, ':detail': detail, ':one': 1 },
      },
      what: 'webhook delivery',
    };
  },

  /** Ends a delivery without an attempt: failed, with why. */
  ended(delivery: DeliveryItem, detail: string): TableWrite {
    return {
      Update: {
        Key: keyOf(delivery),
        UpdateExpression: 'SET #status = :failed, detail = :detail',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':failed': 'failed', ':detail': detail },
      },
      what: 'webhook delivery',
    };
  },

  /** Makes a delivery pending again and counts the replay: only a delivery that exists. */
  replayed(tenantId: string, webhookId: string, deliveryId: string): TableWrite {
    return {
      Update: {
        Key: keys.webhookDelivery(tenantId, webhookId, deliveryId),
        UpdateExpression: 'SET #status = :pending, detail = :null ADD replays :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': 'pending', ':null': null, ':one': 1 },
      },
      what: 'webhook delivery',
    };
  },
};

/**
 * Records a delivery once ({@link deliveryWrites.record}): when it is already recorded (a drain
 * that runs again after a crash), returns the stored one instead, so it is not numbered again.
 */
export async function recordDeliveryOnce(
  table: Table,
  item: DeliveryItem,
): Promise<{ item: DeliveryItem; created: boolean }> {
  if ((await trySendWrite(table, deliveryWrites.record(item))).written) return { item, created: true };
  const stored = await readDeliveryItem(table, item.tenant_id, item.webhook_id, item.delivery_id);
  return { item: stored ?? item, created: false };
}

/** Sends {@link deliveryWrites.attempted}. */
export async function recordAttempt(
  table: Table,
  ...attempted: Parameters<typeof deliveryWrites.attempted>
): Promise<void> {
  await sendWrite(table, deliveryWrites.attempted(...attempted));
}

/** Ends a delivery without an attempt (its endpoint was deleted or disabled): {@link deliveryWrites.ended}. */
export async function endDelivery(table: Table, delivery: DeliveryItem, detail: string): Promise<void> {
  await sendWrite(table, deliveryWrites.ended(delivery, detail));
}

const ofEndpoint = (tenantId: string, webhookId: string) => ({
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: {
    ':pk': keys.tenantPartition(tenantId),
    ':prefix': keys.webhookDeliveryPrefix(webhookId),
  },
  ConsistentRead: true,
});

/**
 * Up to `limit` deliveries to an endpoint, newest first, of one event type and outcome when
 * given. A filter is applied after each page is read: pages are read until enough match (bounded).
 */
export async function findDeliveries(
  table: Table,
  tenantId: string,
  webhookId: string,
  filter: { event?: string; outcome?: DeliveryOutcome },
  limit: number,
): Promise<DeliveryItem[]> {
  const query = ofEndpoint(tenantId, webhookId);
  const filters: string[] = [];
  const values: Record<string, unknown> = { ...query.ExpressionAttributeValues };
  if (filter.event) {
    filters.push('event_type = :event');
    values[':event'] = filter.event;
  }
  if (filter.outcome) {
    filters.push('#status = :outcome');
    values[':outcome'] = filter.outcome;
  }
  const found: DeliveryItem[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  for (let page = 0; page < 20 && found.length < limit; page++) {
    const { items, more } = await queryPage(
      table,
      {
        ...query,
        FilterExpression: filters.length > 0 ? filters.join(' AND ') : undefined,
        ExpressionAttributeNames: filter.outcome ? { '#status': 'status' } : undefined,
        ExpressionAttributeValues: values,
        ExclusiveStartKey,
      },
      200,
    );
    found.push(...items.map((item) => parseItem(DeliveryItemSchema, item)));
    if (!more || items.length === 0) break;
    const last = items.at(-1) as Record<string, unknown>;
    ExclusiveStartKey = { pk: last.pk, sk: last.sk };
  }
  return found.slice(0, limit);
}

/** The ids of an endpoint's deliveries still `pending` (consistent reads). */
export async function pendingDeliveryIds(
  table: Table,
  tenantId: string,
  webhookId: string,
): Promise<string[]> {
  const query = ofEndpoint(tenantId, webhookId);
  const pending = await queryAll(table, {
    ...query,
    FilterExpression: '#status = :pending',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ...query.ExpressionAttributeValues, ':pending': 'pending' },
  });
  return pending.map((item) => String(item.delivery_id));
}
