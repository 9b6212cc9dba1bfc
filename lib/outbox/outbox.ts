import { randomBytes } from 'node:crypto';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { indexAttributes, keys } from '../store/schema.ts';
import { type Table, writeIf } from '../store/table.ts';

/**
 * The transactional outbox of webhook events (STYLE §19): the write that makes a change also
 * appends the event reporting it to the changed item's `webhook_events` and puts the item in the
 * sparse `webhook-outbox` index (lib/store/schema.ts). A drain (lib/webhooks/drain.ts) reads the
 * index oldest first, queues the deliveries, and removes what it drained. So an event exists if
 * and only if its change does: nothing is sent by a second, best-effort call that a crash could
 * skip. This module knows nothing of endpoints or HTTP: it is the store's side of the outbox.
 */

/** An event as it waits in the outbox: ids and facts, no secrets; the drain gives it its sequence. */
export interface OutboxEvent {
  /** `evt_<time><random>`: sorts by the time it was minted; the root of every delivery's `webhook-id`. */
  event_id: string;
  type: string;
  /** The tenant it belongs to; null for an event every tenant may hear of (`lists.updated`). */
  tenant_id: string | null;
  occurred_at: string;
  data: Record<string, unknown>;
}

/** `evt_` + 11 base-36 digits of epoch ms + 10 hex: unique and in time order. */
export function newEventId(at: Date = new Date()): string {
  return `evt_${at.getTime().toString(36).padStart(11, '0')}${randomBytes(5).toString('hex')}`;
}

export function outboxEvent(
  type: string,
  tenantId: string | null,
  data: Record<string, unknown>,
  at: Date = new Date(),
): OutboxEvent {
  return { event_id: newEventId(at), type, tenant_id: tenantId, occurred_at: at.toISOString(), data };
}

const [OUTBOX_PK, OUTBOX_SK] = indexAttributes('webhookOutbox');

/** The outbox attributes of an item written whole (PutItem): its events and its index entry. */
export function withOutbox<T extends { pk: string; sk: string }>(
  item: T,
  events: readonly OutboxEvent[],
): T & { webhook_events?: OutboxEvent[] } {
  if (events.length === 0) return item;
  return {
    ...item,
    webhook_events: [...events],
    [OUTBOX_PK]: keys.outboxIndex,
    [OUTBOX_SK]: `${events[0].occurred_at}#${item.pk}#${item.sk}`,
  };
}

/**
 * The fragment of an UpdateItem that appends events to the item: a `SET` clause (join it to the
 * update's own SET with a comma) and its values. The index sort key is set once, by the oldest
 * undrained event, so an item keeps its place in the queue while more events join it.
 */
export function outboxUpdate(
  key: { pk: string; sk: string },
  events: readonly OutboxEvent[],
): { set: string; values: Record<string, unknown> } {
  return {
    set: `webhook_events = list_append(if_not_exists(webhook_events, :outboxNone), :outboxEvents), ${OUTBOX_PK} = :outboxPk, ${OUTBOX_SK} = if_not_exists(${OUTBOX_SK}, :outboxSk)`,
    values: {
      ':outboxNone': [],
      ':outboxEvents': [...events],
      ':outboxPk': keys.outboxIndex,
      ':outboxSk': `${events[0]?.occurred_at ?? new Date().toISOString()}#${key.pk}#${key.sk}`,
    },
  };
}

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
      IndexName: 'webhook-outbox',
      KeyConditionExpression: `${OUTBOX_PK} = :pk`,
      ExpressionAttributeValues: { ':pk': keys.outboxIndex },
      ProjectionExpression: 'pk, sk, webhook_events',
      Limit: limit,
    }),
  );
  return Items.filter((item) => Array.isArray(item.webhook_events) && item.webhook_events.length > 0).map(
    (item) => ({
      key: { pk: String(item.pk), sk: String(item.sk) },
      events: (item.webhook_events as OutboxEvent[]).slice(0, EVENTS_PER_PASS),
      more: item.webhook_events.length > EVENTS_PER_PASS,
    }),
  );
}

/**
 * Removes the drained events, the first ones of the item, once they are queued. Events are only
 * appended at the end and removed from the front, and their ids are unique, so an unchanged size
 * and first id mean an unchanged list: the write sets the list to what followed the drained ones
 * (or removes it and the index entry when nothing did) under that two-term condition, however many
 * events the item holds. (Naming every drained id overflowed DynamoDB's expression limit on a
 * burst; removing list elements by index removed the wrong ones on dynalite, the local store.)
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
    const rest = current.slice(ids.length);
    const condition = {
      ConditionExpression: 'size(webhook_events) = :size AND webhook_events[0].event_id = :first',
      ExpressionAttributeValues: { ':size': current.length, ':first': ids[0] },
    };
    const written = await writeIf(
      table,
      rest.length === 0
        ? new UpdateCommand({
            TableName: table.name,
            Key: entry.key,
            UpdateExpression: `REMOVE webhook_events, ${OUTBOX_PK}, ${OUTBOX_SK}`,
            ...condition,
          })
        : new UpdateCommand({
            TableName: table.name,
            Key: entry.key,
            UpdateExpression: 'SET webhook_events = :rest',
            ...condition,
            ExpressionAttributeValues: { ...condition.ExpressionAttributeValues, ':rest': rest },
          }),
    );
    if (written) return true;
  }
  return false;
}
