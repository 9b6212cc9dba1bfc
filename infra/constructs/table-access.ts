import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import type { TableAccess } from '../../lib/routes.ts';

/**
 * Grants exactly the declared access. Both grants list explicit DynamoDB actions, so a handler
 * that only reads (e.g. /me) cannot write tenant data even if its code is wrong.
 */
export function grantTableAccess(table: ITable, grantee: IGrantable, access: TableAccess): void {
  if (access === 'read') table.grantReadData(grantee);
  else if (access === 'read-write') table.grantReadWriteData(grantee);
}
