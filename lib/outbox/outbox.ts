import { randomBytes } from 'node:crypto';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
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
}

/**
 * Events taken from one item per pass: the drained ones are removed with a condition naming each
 * id, and DynamoDB bounds an expression (4 KB); an item holding more (a burst of test events on
 * one endpoint) gives the next ones to the next pass.
 */
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
    }),
  );
}

/**
 * Removes the first `drained.length` events of an item once they are queued. When they are all
 * it carries, one write removes them and the index entry (condition: still exactly those); when
 * more joined meanwhile, only the drained ones go (condition: the list still starts with them),
 * and the item stays in the index for the next drain. False when the item changed under both.
 */
export async function markDrained(table: Table, entry: OutboxEntry): Promise<boolean> {
  const ids = entry.events.map((event) => event.event_id);
  const firstIds = Object.fromEntries(ids.map((id, i) => [`:id${i}`, id]));
  const sameStart = ids.map((_, i) => `webhook_events[${i}].event_id = :id${i}`).join(' AND ');
  const all = await writeIf(
    table,
    new UpdateCommand({
      TableName: table.name,
      Key: entry.key,
      UpdateExpression: `REMOVE webhook_events, ${OUTBOX_PK}, ${OUTBOX_SK}`,
      ConditionExpression: `size(webhook_events) = :n AND ${sameStart}`,
      ExpressionAttributeValues: { ':n': ids.length, ...firstIds },
    }),
  );
  if (all) return true;
  return writeIf(
    table,
    new UpdateCommand({
      TableName: table.name,
      Key: entry.key,
      UpdateExpression: `REMOVE ${ids.map((_, i) => `webhook_events[${i}]`).join(', ')}`,
      ConditionExpression: sameStart,
      ExpressionAttributeValues: firstIds,
    }),
  );
}
