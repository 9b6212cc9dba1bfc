import type { Table } from '../store/table.ts';
import { sendWrite, type TableWrite } from '../store/write.ts';

/**
 * A write sent alone whose refused condition is an answer, not an error: a claim another run
 * holds, a pointer already further on, a client stopped meanwhile. The store modules of
 * lib/monitoring (`*-table.ts`) send such writes through {@link sendUnlessRefused}; the same
 * {@link TableWrite} joined into a transaction keeps its own refusal.
 *
 * (A generic helper of lib/store/write.ts's kind, kept here because lib/store is not this
 * folder's to change.)
 */

/** What a write sent alone did: written (with the attributes asked for), or refused. */
export type WriteOutcome =
  | { written: true; attributes: Record<string, unknown> | undefined }
  | { written: false; found: Record<string, unknown> | undefined };

/** Carries the item a refused condition found out of sendWrite; never leaves this module. */
class Refused extends Error {
  constructor(readonly found: Record<string, unknown> | undefined) {
    super('refused');
  }
}

/**
 * Sends `write` alone; a refused condition answers `{ written: false }` with the item it found.
 * DynamoDB returns that item with the refusal (ReturnValuesOnConditionCheckFailure); dynalite does
 * not, so then `readFound` (a consistent read of the same key), when given, reads it back.
 */
export async function sendUnlessRefused(
  table: Table,
  write: TableWrite,
  options: {
    returnValues?: 'ALL_NEW' | 'UPDATED_NEW' | 'ALL_OLD';
    readFound?: () => Promise<Record<string, unknown> | undefined>;
  } = {},
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
    return { written: false, found: error.found ?? (await options.readFound?.()) };
  }
}
