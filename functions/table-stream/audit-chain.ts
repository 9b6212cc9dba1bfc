import type { DynamoDBStreamEvent } from 'aws-lambda';
import { chainAnnouncedTenants } from '../../lib/audit/chain-writer.ts';
import { getChainWriterDeps } from '../../lib/runtime/audit-chain.ts';

/**
 * The audit chain writer on AWS: the table's DynamoDB Stream, filtered to the INSERT of waiting
 * audit entries (infra/cdk/constructs/audit-chain.ts), wakes it; it links each announced tenant's
 * waiting entries and anchors the head in the Object Lock bucket (lib/audit/chain-writer.ts).
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<void> => {
  await chainAnnouncedTenants(getChainWriterDeps(), event.Records);
};
