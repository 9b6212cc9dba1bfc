import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { INDEXES, indexAttributes, keys } from '../store/schema.ts';
import { parseItem, type Table } from '../store/table.ts';
import { type TableWrite, trySendWrite } from '../store/write.ts';

/**
 * The outbox's side of the table: the events an item carries (`webhook_events`), the sparse
 * `webhook-outbox` index the items wait in, read oldest first by the drain, and the write that
 * removes what a drain took. What a change appends is built by ./outbox.ts.
 */

/** An event as it waits in the outbox: ids and facts, no secrets; the drain gives it its sequence. */
export const OutboxEventSchema = v.object({
  /** `evt_<time><random>`: sorts by the time it was minted; the root of every delivery's `webhook-id`. */
  event_id: v.string(),
  type: v.string(),
  /** The tenant it belongs to; null for an event every tenant may hear of (`lists.updated`). */
  tenant_id: v.nullable(v.string()),
  occurred_at: v.string(),
  data: v.record(v.string(), v.unknown()),
});
export type OutboxEvent = v.InferOutput<typeof OutboxEventSchema>;

/** An item as the drain reads it from the index: its key and its events. */
const OutboxItemSchema = v.object({
  pk: v.string(),
  sk: v.string(),
  webhook_events: v.array(OutboxEventSchema),
});

/** The attribute names of an item's entry in the webhook-outbox index. */
export const [OUTBOX_PK, OUTBOX_SK] = indexAttributes('webhookOutbox');

/** An item waiting in the outbox: its key and the events it carries, oldest first. */
export interface OutboxEntry {
  key: { pk: string; sk: string };
  events: OutboxEvent[];
  /** The item holds more events than this pass takes. */
  more: boolean;
}

/** Events taken from one item per pass, so a burst on one item (test events on one endpoint) is drained in bounded steps. */
const EVENTS_PER_PASS = 25;

/** Up to `limit` items carrying undrained events, oldest first (consistent reads are not offered on a GSI). */
export async function pendingOutbox(table: Table, limit = 100): Promise<OutboxEntry[]> {
  const { Items = [] } = await table.doc.send(
    new QueryCommand({
      TableName: table.name,
      IndexName: INDEXES.webhookOutbox.name,
      KeyConditionExpression: `${OUTBOX_PK} = :pk`,
      ExpressionAttributeValues: { ':pk': keys.outboxIndex },
      ProjectionExpression: 'pk, sk, webhook_events',
      Limit: limit,
    }),
  );
  return Items.filter((item) => Array.isArray(item.webhook_events) && item.webhook_events.length > 0)
    .map((item) => parseItem(OutboxItemSchema, item))
    .map((item) => ({
      key: { pk: item.pk, sk: item.sk },
      events: item.webhook_events.slice(0, EVENTS_PER_PASS),
      more: item.webhook_events.length > EVENTS_PER_PASS,
    }));
}

/**
 * The write that removes the first `drained` events of an item's `current` list: it sets the list
 * to what followed them (or removes it and the index entry when nothing did), under the condition
 * that the list still has the size and first id it was read with: refused when events joined or
 * another drain removed them meanwhile.
 */
export function removeDrainedEventsWrite(
  key: { pk: string; sk: string },
  current: readonly OutboxEvent[],
  drained: number,
): TableWrite {
  const rest = current.slice(drained);
  const condition = {
    ConditionExpression: 'size(webhook_events) = :size AND webhook_events[0].event_id = :first',
    ExpressionAttributeValues: { ':size': current.length, ':first': current[0]?.event_id },
  };
  return {
    Update:
      rest.length === 0
        ? { Key: key, UpdateExpression: `REMOVE webhook_events, ${OUTBOX_PK}, ${OUTBOX_SK}`, ...condition }
        : {
            Key: key,
            UpdateExpression: 'SET webhook_events = :rest',
            ...condition,
            ExpressionAttributeValues: { ...condition.ExpressionAttributeValues, ':rest': rest },
          },
    what: 'webhook outbox events',
  };
}

/**
 * Removes the drained events, the first ones of the item, once they are queued. Events are only
 * appended at the end and removed from the front, and their ids are unique, so an unchanged size
 * and first id mean an unchanged list: the write sets the list to what followed the drained ones
 * (or removes it and the index entry when nothing did) under that two-term condition, however many
 * events the item holds. (Naming every drained id overflowed DynamoDB's expression limit on a
 * burst; removing list elements by index removed the wrong ones on dynalite, the local store of the time.)
 * When events join between the read and the write it reads again; false when another drain
 * removed them.
 */
export async function markDrained(table: Table, entry: OutboxEntry): Promise<boolean> {
  const ids = entry.events.map((event) => event.event_id);
  for (let tries = 0; tries < 5; tries++) {
    const { Item } = await table.doc.send(
      new GetCommand({
        TableName: table.name,
        Key: entry.key,
        ProjectionExpression: 'webhook_events',
        ConsistentRead: true,
      }),
    );
    const current = (Item?.webhook_events ?? []) as OutboxEvent[];
    if (!ids.every((id, i) => current[i]?.event_id === id)) return false;
    if ((await trySendWrite(table, removeDrainedEventsWrite(entry.key, current, ids.length))).written)
      return true;
  }
  return false;
}
