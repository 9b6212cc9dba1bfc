import * as v from 'valibot';
import { type OutboxEvent, withOutbox } from '../outbox/outbox.ts';
import { keys } from '../store/schema.ts';
import type { Table } from '../store/table.ts';
import { sendWrite, type TableWrite } from '../store/write.ts';

/**
 * The lists-event item (lib/store/schema.ts): a published snapshot's `lists.updated` webhook
 * event, on an item of its own in the outbox. It belongs to no tenant: the drain offers it to
 * every tenant's subscribers (its event and outbox keys: lib/outbox/outbox.ts).
 */
export const ListsEventSchema = v.object({
  entity: v.literal('lists-event'),
  /** The snapshot version published. */
  version: v.string(),
  published_at: v.string(),
});
export type ListsEvent = v.InferOutput<typeof ListsEventSchema>;

/** The lists-event writes, as values (lib/store/write.ts). */
export const listsEventWrites = {
  /** One event per published snapshot: condition attribute_not_exists, so it is never queued twice. */
  publish(version: string, publishedAt: string, event: OutboxEvent): TableWrite {
    const item: ListsEvent = { entity: 'lists-event', version, published_at: publishedAt };
    return {
      Put: {
        Item: withOutbox({ ...keys.listsEvent(publishedAt, version), ...item }, [event]),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
      what: 'lists event',
      // The sync's own fault (a version published twice at the same instant), not a caller's.
      refused: () => new Error(`The lists event of snapshot ${version} was already recorded`),
    };
  },
};

/** Records the `lists.updated` event of the snapshot `version`, published at `publishedAt`. */
export async function recordListsEvent(
  table: Table,
  version: string,
  publishedAt: string,
  event: OutboxEvent,
): Promise<void> {
  await sendWrite(table, listsEventWrites.publish(version, publishedAt, event));
}
