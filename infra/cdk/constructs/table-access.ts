import { Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { TableAccess } from '../../../lib/contract/routes.ts';

/**
 * The DynamoDB actions of each declared access, listed rather than taken from the CDK's
 * grantReadData / grantReadWriteData, which also grant Scan (nothing in the service scans: every
 * read is a key lookup or a query of one partition), DescribeTable and the stream actions.
 *
 * Writers keep DeleteItem and BatchWriteItem: the shared write paths need them (a failed screen
 * frees its rescreen window, a finished batch deletes its open-batch marker, a batch writes its
 * items 25 at a time, an expired idempotency record is replaced, stopping a client deletes its
 * name keys).
 */
export const TABLE_ACTIONS = {
  none: [],
  read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'],
  'read-write': [
    'dynamodb:GetItem',
    'dynamodb:BatchGetItem',
    'dynamodb:Query',
    'dynamodb:ConditionCheckItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
  ],
} as const satisfies Record<TableAccess, readonly string[]>;

/**
 * Grants exactly the declared access (on the table and its indexes), and the use of the table's
 * customer-managed key when it has one.
 */
export function grantTableAccess(table: ITable, grantee: IGrantable, access: TableAccess): void {
  if (access === 'none') return;
  table.grant(grantee, ...TABLE_ACTIONS[access]);
  // The finding is on the policy of the role that holds the grant.
  const holder = grantee.grantPrincipal;
  if (holder instanceof Construct) {
    const tableId = Stack.of(table).getLogicalId(table.node.defaultChild as never);
    Validations.of(holder).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${tableId}.Arn>/index/*]`,
      reason:
        'Queries by the table own global secondary indexes (lib/store/table.ts INDEXES); the grant names this table, its actions are listed, never a wildcard',
    });
  }
  if (access === 'read') table.encryptionKey?.grantDecrypt(grantee);
  else table.encryptionKey?.grantEncryptDecrypt(grantee);
}

/**
 * The attributes the fair-use counters write (lib/tenancy/limits.ts: the request rate's TAT, a
 * stream slot's holder and lease), and nothing else.
 */
export const FAIR_USE_ATTRIBUTES = [
  'pk',
  'sk',
  'entity',
  'tat',
  'stream_id',
  'stream_route',
  'lease_until',
] as const;

/**
 * Every authenticated route counts its request (and a streamed one takes a stream slot) with one
 * UpdateItem, so a route declared `read` still needs that one write. It gets UpdateItem alone,
 * limited by `dynamodb:Attributes` to the counters' attributes: no PutItem or DeleteItem, so it can
 * neither replace nor remove an item, and no other attribute of any item can be changed by it.
 */
export function grantFairUseCounting(table: ITable, grantee: IGrantable, access: TableAccess): void {
  // A writer has UpdateItem already; a route with no table access authenticates nobody.
  if (access !== 'read') return;
  grantee.grantPrincipal.addToPrincipalPolicy(
    new PolicyStatement({
      actions: ['dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: {
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...FAIR_USE_ATTRIBUTES] },
        StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE'] },
      },
    }),
  );
  table.encryptionKey?.grantEncrypt(grantee);
}
