import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { localSettings } from '../../lib/common/config.ts';
import { createTable, type Table } from '../../lib/store/table.ts';
import { DYNAMODB_LOCAL_DIR, ensureTable, startDynamoDbLocal } from './dynamo.ts';

export interface TableLocation {
  table?: string;
  endpoint?: string;
  region?: string;
}

/**
 * Where the ops CLIs find the table: an explicit endpoint or table (AWS), else the local
 * runtime's store. While `npm start` runs, its DynamoDB Local owns the files, so a CLI talks to
 * that endpoint instead; otherwise the CLI starts DynamoDB Local on the same files for itself.
 */
export async function openTable(location: TableLocation): Promise<{ table: Table; close(): Promise<void> }> {
  const settings = localSettings();
  const dataDir = resolve(settings.dataDir);
  const endpointFile = join(dataDir, 'dynamodb-endpoint');
  const explicitEndpoint = location.endpoint ?? settings.dynamodbEndpoint;
  const tableName = location.table ?? settings.tableName;
  if (explicitEndpoint || tableName) {
    const table = createTable({
      tableName: tableName ?? 'screening',
      endpoint: explicitEndpoint,
      region: location.region ?? settings.region,
    });
    return { table, close: async () => undefined };
  }
  if (existsSync(endpointFile)) {
    const endpoint = readFileSync(endpointFile, 'utf8').trim();
    const reachable = await fetch(endpoint, { method: 'POST' }).then(
      () => true,
      () => false,
    );
    if (reachable)
      return { table: createTable({ tableName: 'screening', endpoint }), close: async () => undefined };
  }
  const dynamo = await startDynamoDbLocal({ path: join(dataDir, DYNAMODB_LOCAL_DIR) });
  await ensureTable(dynamo.endpoint, 'screening');
  return { table: createTable({ tableName: 'screening', endpoint: dynamo.endpoint }), close: dynamo.close };
}
