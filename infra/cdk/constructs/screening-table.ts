import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { INDEXES, TABLE_KEYS } from '../../../lib/store/schema.ts';

/**
 * The single table holding every tenant's users, usage, screens, dispositions and batches.
 * Key names come from lib/store/schema.ts, the same definition the local runtime creates.
 */
export class ScreeningTable extends Construct {
  readonly table: Table;

  /** With a key, the table is encrypted with it (customer-managed); else with an AWS-owned key. */
  constructor(scope: Construct, id: string, encryptionKey?: IKey) {
    super(scope, id);
    const string = (name: string) => ({ name, type: AttributeType.STRING });
    this.table = new Table(this, 'Table', {
      partitionKey: string(TABLE_KEYS.partitionKey),
      sortKey: string(TABLE_KEYS.sortKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TABLE_KEYS.ttlAttribute,
      // Keys only: the audit chain writer (constructs/audit-chain.ts) learns which tenant has
      // waiting entries and reads them itself, consistently; no item's content leaves the table.
      stream: StreamViewType.KEYS_ONLY,
      // Screens and dispositions are the tenant's compliance record: recoverable to the second
      // and kept even if the stack is deleted.
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: RemovalPolicy.RETAIN,
      ...(encryptionKey ? { encryption: TableEncryption.CUSTOMER_MANAGED, encryptionKey } : {}),
    });
    for (const index of Object.values(INDEXES)) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: string(index.partitionKey),
        sortKey: string(index.sortKey),
      });
    }
  }
}
