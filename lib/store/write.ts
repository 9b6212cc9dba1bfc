import { setTimeout as sleep } from 'node:timers/promises';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ConflictError } from '../common/errors.ts';
import type { Table } from './table.ts';

/**
 * Writes as values. A store module (`*-table.ts`) builds each of its named operations as a
 * {@link TableWrite}: the command's parts (without the table name) and what a refused condition
 * means. The same value is sent alone ({@link sendWrite}) or joined with others into one
 * all-or-nothing transaction ({@link transact}), so a use case that must bind an action to its
 * records (a decision and its audit entry, a client and its person claim) joins the modules'
 * operations and never spells a command itself.
 */

type Key = Record<string, string>;
type Names = Record<string, string>;
type Values = Record<string, unknown>;

interface Condition {
  ConditionExpression?: string;
  ExpressionAttributeNames?: Names;
  ExpressionAttributeValues?: Values;
}

/**
 * What a refused condition means, given the item the write found (undefined when there was none):
 * the domain error to throw (a 404 for an item that is gone, a 409 naming what it holds, a 429 with
 * the counts).
 */
export type Refusal = (found: Record<string, unknown> | undefined) => Error;

/** One write of the table, as a value. */
export type TableWrite = (
  | { Put: { Item: Record<string, unknown> } & Condition }
  | { Update: { Key: Key; UpdateExpression: string } & Condition }
  | { Delete: { Key: Key } & Condition }
  | { ConditionCheck: { Key: Key; ConditionExpression: string } & Condition }
) & {
  /** Names the write in errors and logs ("screen decision", "person claim"). */
  what: string;
  /** The domain error for a refused condition; without it, a ConflictError naming `what`. */
  refused?: Refusal;
};

/** DynamoDB's limit on the items of one TransactWriteItems call. */
export const TRANSACTION_LIMIT = 100;

/** A refused write's error: its own refusal, or a 409 naming it. */
function refusalOf(write: TableWrite, found: Record<string, unknown> | undefined): Error {
  return (
    write.refused?.(found) ??
    new ConflictError(`The ${write.what} changed meanwhile; read it again and retry`)
  );
}

function foundOf(error: unknown): Record<string, unknown> | undefined {
  const item = (error as { Item?: Record<string, AttributeValue> }).Item;
  return item ? unmarshall(item) : undefined;
}

/**
 * Sends one write alone. `returnValues` asks for the item's attributes as the write left them
 * (`ALL_NEW`, `UPDATED_NEW`) or found them (`ALL_OLD`). A refused condition throws the write's
 * refusal with the item it found (ReturnValuesOnConditionCheckFailure).
 */
export async function sendWrite(
  table: Table,
  write: TableWrite,
  returnValues?: 'ALL_NEW' | 'UPDATED_NEW' | 'ALL_OLD',
): Promise<Record<string, unknown> | undefined> {
  const common = { TableName: table.name, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
  try {
    if ('Put' in write) {
      const { Attributes } = await table.doc.send(
        new PutCommand({
          ...write.Put,
          ...common,
          ...(returnValues === 'ALL_OLD' ? { ReturnValues: 'ALL_OLD' } : {}),
        }),
      );
      return Attributes;
    }
    if ('Update' in write) {
      const { Attributes } = await table.doc.send(
        new UpdateCommand({
          ...write.Update,
          ...common,
          ...(returnValues ? { ReturnValues: returnValues } : {}),
        }),
      );
      return Attributes;
    }
    if ('Delete' in write) {
      const { Attributes } = await table.doc.send(
        new DeleteCommand({
          ...write.Delete,
          ...common,
          ...(returnValues === 'ALL_OLD' ? { ReturnValues: 'ALL_OLD' } : {}),
        }),
      );
      return Attributes;
    }
    // A condition check alone is a transaction of one.
    await transact(table, [write]);
    return undefined;
  } catch (error) {
    if (error instanceof Error && error.name === 'ConditionalCheckFailedException')
      throw refusalOf(write, foundOf(error));
    throw error;
  }
}

/** An update of one item, as a value. */
export type UpdateWrite = Extract<TableWrite, { Update: unknown }>;

/** What {@link trySendWrite} tells: written (with the attributes asked for), or refused (with the item found). */
export type WriteOutcome =
  | { written: true; attributes: Record<string, unknown> | undefined }
  | { written: false; found: Record<string, unknown> | undefined };

/**
 * Sends one write alone, where a refused condition is an outcome rather than an error (a refund
 * with nothing left to give back, a stream slot another stream holds).
 */
export async function trySendWrite(
  table: Table,
  write: TableWrite,
  returnValues?: 'ALL_NEW' | 'UPDATED_NEW' | 'ALL_OLD',
): Promise<WriteOutcome> {
  let found: Record<string, unknown> | undefined;
  const refusedMarker = new Error('refused');
  try {
    const attributes = await sendWrite(
      table,
      {
        ...write,
        refused: (item) => {
          found = item;
          return refusedMarker;
        },
      },
      returnValues,
    );
    return { written: true, attributes };
  } catch (error) {
    if (error === refusedMarker) return { written: false, found };
    throw error;
  }
}

/** Sends one write alone; false when its condition was refused (a claim taken, a pointer already further on). */
export async function sendWriteIf(table: Table, write: TableWrite): Promise<boolean> {
  return (await trySendWrite(table, write)).written;
}

/** Attempts of a transaction that DynamoDB cancelled for a conflict with another one in flight. */
const CONFLICT_ATTEMPTS = 6;

/**
 * A transaction still cancelled for conflicts with others in flight after every attempt: nothing
 * was written; a caller that can build the transaction afresh (the audit trail, at a new head) may.
 */
export class TransactionConflictError extends Error {
  constructor(readonly writes: number) {
    super(`A transaction of ${writes} writes kept conflicting with others in flight; nothing was written`);
    this.name = 'TransactionConflictError';
  }
}

interface CancellationReason {
  Code?: string;
  Item?: Record<string, AttributeValue>;
}

/**
 * Writes every one of `writes` or none of them, in one TransactWriteItems call (at most
 * {@link TRANSACTION_LIMIT}; no two of them may address the same item). When a condition is
 * refused, nothing is written and the first refused write's refusal is thrown with the item it
 * found. A transaction cancelled only because another one was changing the same items meanwhile
 * (`TransactionConflict`) is sent again with a growing pause: each attempt is all-or-nothing, so a
 * retry never writes twice.
 */
export async function transact(table: Table, writes: readonly TableWrite[]): Promise<void> {
  if (writes.length === 0) return;
  if (writes.length > TRANSACTION_LIMIT)
    throw new Error(`A transaction takes at most ${TRANSACTION_LIMIT} writes, not ${writes.length}`);
  const TransactItems = writes.map((write) => {
    const { what: _what, refused: _refused, ...command } = write;
    const [kind, parts] = Object.entries(command)[0] as [string, Record<string, unknown>];
    return { [kind]: { ...parts, TableName: table.name, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } };
  });
  for (let attempt = 1; ; attempt++) {
    try {
      await table.doc.send(new TransactWriteCommand({ TransactItems }));
      return;
    } catch (error) {
      if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') throw error;
      const reasons = ((error as { CancellationReasons?: CancellationReason[] }).CancellationReasons ??
        []) as CancellationReason[];
      const refused = reasons.findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
      if (refused >= 0)
        throw refusalOf(
          writes[refused],
          reasons[refused].Item ? unmarshall(reasons[refused].Item) : undefined,
        );
      const conflicted = reasons.some((reason) => reason.Code === 'TransactionConflict');
      if (!conflicted) throw error;
      if (attempt === CONFLICT_ATTEMPTS) throw new TransactionConflictError(writes.length);
      await sleep(20 * 2 ** attempt * Math.random());
    }
  }
}
