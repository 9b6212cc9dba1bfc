import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { FunctionDefinition } from '../../../lib/contract/routes.ts';
import { TABLE_KEYS } from '../../../lib/store/schema.ts';
import { LIST_SYNC_ENTRY } from './list-sync.ts';

/**
 * The table's TTL attribute: DynamoDB deletes an item, silently and for good, once the epoch
 * second it holds has passed. So setting it on a screen, a user or an audit entry would delete
 * evidence; only the kinds that are meant to expire carry it (docs/operations.md#the-ttl-attribute).
 */
export const EXPIRY_ATTRIBUTE = TABLE_KEYS.ttlAttribute;

/** The writes that can set an attribute: an item put whole, an update, a batch of puts. */
export const EXPIRY_WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem'];

/**
 * The entries of the functions that write an item of an expiring kind, and so may set
 * `expires_at`: every route that authenticates a key (the pipeline counts each request in a
 * request window, lib/tenancy/fair-use-table.ts; idempotency keys and batches are written by such
 * routes too), every function that declares `writesExpiringItems` in the manifest (the queue
 * worker's rescreen changes, the scheduled rescreen runs), and the list sync (its list-change
 * rescreen runs). Every other function is denied it.
 */
export function entriesSettingExpiry(
  definitions: readonly (FunctionDefinition & { auth?: string })[],
): Set<string> {
  return new Set([
    ...definitions.filter((d) => d.auth === 'api-key' || d.writesExpiringItems === true).map((d) => d.entry),
    LIST_SYNC_ENTRY,
  ]);
}

/**
 * An explicit deny (no grant added later can lift it): no put, update or batch write of the
 * table that names `expires_at`. `dynamodb:Attributes` holds the attribute names a request
 * touches: an update's expression, a put's whole item.
 */
export function denyExpiry(table: ITable, grantee: IGrantable): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      effect: Effect.DENY,
      actions: EXPIRY_WRITE_ACTIONS,
      resources: [table.tableArn],
      conditions: { 'ForAnyValue:StringEquals': { 'dynamodb:Attributes': [EXPIRY_ATTRIBUTE] } },
    }),
  );
}
