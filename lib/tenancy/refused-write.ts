import { itemOfConditionFailure, type Table } from '../store/table.ts';
import { sendWrite, type TableWrite } from '../store/write.ts';

/**
 * Two ways of sending one write alone that lib/store/write.ts's `sendWrite` does not offer yet (they
 * belong there; the tenancy tables share them meanwhile):
 *
 * - {@link trySendWrite}: a refused condition is an outcome, not an error (a refund with nothing
 *   left to give back, a stream slot another stream holds).
 * - {@link sendWriteFindingRefusal}: a refusal that depends on the item found (a 404 for an item
 *   that is gone, the counts of a 429) gets that item on every store. DynamoDB returns it with the
 *   refusal (ReturnValuesOnConditionCheckFailure); dynalite, the local store, does not, so then it
 *   is read back consistently, as `itemOfConditionFailure` does.
 */

type Found = Record<string, unknown> | undefined;

/** The refusal of a write sent by {@link trySendWrite}, with the item DynamoDB returned (if it did). */
class RefusedWrite extends Error {
  constructor(readonly found: Found) {
    super('The write’s condition was refused');
  }
}

/** An update of one item, as a value. */
export type UpdateWrite = Extract<TableWrite, { Update: unknown }>;

export type WriteOutcome =
  | { written: true; attributes: Record<string, unknown> | undefined }
  | { written: false; refusal: RefusedWrite };

/** Sends `write` alone; a refused condition is answered as `written: false`, never thrown. */
export async function trySendWrite(
  table: Table,
  write: TableWrite,
  returnValues?: 'ALL_NEW' | 'UPDATED_NEW' | 'ALL_OLD',
): Promise<WriteOutcome> {
  try {
    const attributes = await sendWrite(
      table,
      { ...write, refused: (found) => new RefusedWrite(found) },
      returnValues,
    );
    return { written: true, attributes };
  } catch (error) {
    if (error instanceof RefusedWrite) return { written: false, refusal: error };
    throw error;
  }
}

/**
 * Sends an update alone like `sendWrite`, except that a refused condition throws the write's own
 * refusal with the item found read back consistently where the store did not return it (dynalite).
 */
export async function sendWriteFindingRefusal(
  table: Table,
  write: UpdateWrite,
  returnValues?: 'ALL_NEW' | 'UPDATED_NEW' | 'ALL_OLD',
): Promise<Record<string, unknown> | undefined> {
  // A write without a refusal of its own is refused with a ConflictError, which needs no item.
  if (!write.refused) return sendWrite(table, write, returnValues);
  const outcome = await trySendWrite(table, write, returnValues);
  if (outcome.written) return outcome.attributes;
  const { refusal } = outcome;
  throw write.refused(refusal.found ?? (await itemOfConditionFailure(table, refusal, write.Update.Key)));
}
