import { ConflictError } from '../common/errors.ts';
import { getAll, type Table } from '../store/table.ts';
import { sendWrite, type TableWrite } from '../store/write.ts';

/**
 * One write sent alone, its refusal returned rather than thrown, with the item it found: the
 * screening store modules (screen-table.ts, window-table.ts, subject-table.ts) decide per
 * operation what a refused condition means (a 404 or a 409 built from that item, another attempt,
 * nothing at all).
 *
 * DynamoDB returns the item found with the refusal (ReturnValuesOnConditionCheckFailure, which
 * {@link sendWrite} asks for); dynalite does not, so then the item is read back consistently, as
 * `itemOfConditionFailure` (lib/store/table.ts) does for a raw command. A generic helper of the
 * store, kept here while lib/store/write.ts has no such read-back.
 */
export type WriteOutcome =
  | { written: true; attributes: Record<string, unknown> | undefined }
  | { written: false; found: Record<string, unknown> | undefined };

/** The refusal sendWrite throws for this module's own writes: the item it found, if returned. */
class Refused extends Error {
  constructor(readonly found: Record<string, unknown> | undefined) {
    super('condition refused');
  }
}

/** The primary key a write addresses. */
function keyOf(write: TableWrite): Record<string, string> {
  if ('Put' in write) {
    const { pk, sk } = write.Put.Item as { pk: string; sk: string };
    return { pk, sk };
  }
  if ('Update' in write) return write.Update.Key;
  if ('Delete' in write) return write.Delete.Key;
  return write.ConditionCheck.Key;
}

/**
 * Sends `write` (sendWrite, with `returnValues`): `written` with the attributes asked for, or
 * `written: false` with the item its condition found (undefined when there is none). `readFound:
 * false` skips the read-back where the caller needs only to know the write was refused.
 */
export async function writeOutcome(
  table: Table,
  write: TableWrite,
  options: { returnValues?: 'ALL_NEW' | 'UPDATED_NEW' | 'ALL_OLD'; readFound?: boolean } = {},
): Promise<WriteOutcome> {
  try {
    const attributes = await sendWrite(
      table,
      { ...write, refused: (found) => new Refused(found) },
      options.returnValues,
    );
    return { written: true, attributes };
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    if (error.found || options.readFound === false) return { written: false, found: error.found };
    const [found] = await getAll(table, [keyOf(write)]);
    return { written: false, found };
  }
}

/** Sends `write`; false when its condition did not hold (nothing read back). */
export async function writeIfHolds(table: Table, write: TableWrite): Promise<boolean> {
  return (await writeOutcome(table, write, { readFound: false })).written;
}

/**
 * Sends `write`, throwing its own refusal (`write.refused`) with the item found, read back where
 * the store did not return it.
 */
export async function writeOrRefuse(
  table: Table,
  write: TableWrite,
  returnValues?: 'ALL_NEW' | 'UPDATED_NEW' | 'ALL_OLD',
): Promise<Record<string, unknown> | undefined> {
  const outcome = await writeOutcome(table, write, { returnValues });
  if (outcome.written) return outcome.attributes;
  throw (
    write.refused?.(outcome.found) ??
    new ConflictError(`The ${write.what} changed meanwhile; read it again and retry`)
  );
}
