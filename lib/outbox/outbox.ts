import { randomBytes } from 'node:crypto';
import { keys } from '../store/schema.ts';
import { OUTBOX_PK, OUTBOX_SK, type OutboxEvent } from './outbox-table.ts';

/** The event's type is declared with the item (./outbox-table.ts); the features write it through here. */
export type { OutboxEvent };

/**
 * The transactional outbox of webhook events (STYLE §19): the write that makes a change also
 * appends the event reporting it to the changed item's `webhook_events` and puts the item in the
 * sparse `webhook-outbox` index (lib/store/schema.ts). A drain (lib/webhooks/drain.ts) reads the
 * index oldest first, queues the deliveries, and removes what it drained. So an event exists if
 * and only if its change does: nothing is sent by a second, best-effort call that a crash could
 * skip. This module builds what a change appends; the index's read and the drained-events write
 * are in ./outbox-table.ts. It knows nothing of endpoints or HTTP: it is the store's side of the
 * outbox.
 */

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
