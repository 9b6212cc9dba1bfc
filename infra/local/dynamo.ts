import { mkdirSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { tableDefinition } from '../../lib/store/schema.ts';

export interface LocalDynamo {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * dynalite: the DynamoDB wire protocol on loopback, persisted in LevelDB under `path`, or in
 * memory when no path is given (tests). It runs on a worker thread of this process, so the
 * store's work takes the second core while the handlers keep the first, as DynamoDB and Lambda
 * are separate machines on AWS.
 */
export async function startDynalite(options: { path?: string; port?: number } = {}): Promise<LocalDynamo> {
  if (options.path) mkdirSync(options.path, { recursive: true });
  const thread = new Worker(new URL('./dynalite-thread.mjs', import.meta.url), {
    workerData: { path: options.path, port: options.port },
  });
  const port = await new Promise<number>((resolve, reject) => {
    thread.once('error', reject);
    thread.once('message', (message: { port?: number; error?: string }) =>
      message.port ? resolve(message.port) : reject(new Error(`dynalite did not start: ${message.error}`)),
    );
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      const closed = new Promise((resolve) => thread.once('message', resolve));
      thread.postMessage('close');
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      await thread.terminate();
    },
  };
}

/** Creates the service table at `endpoint` unless it exists (idempotent across restarts). */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const wanted = tableDefinition(tableName);
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    // A data directory from an older layout would fail on its first query of a newer index:
    // say so at start-up instead.
    const names = (list: { IndexName?: string }[] | undefined) =>
      (list ?? [])
        .map((index) => index.IndexName ?? '')
        .sort()
        .join(',');
    if (names(Table?.GlobalSecondaryIndexes) !== names(wanted.GlobalSecondaryIndexes)) {
      throw new Error(
        `Table ${tableName} at ${endpoint} has an older index layout than this version needs ` +
          `(${names(Table?.GlobalSecondaryIndexes)}). Delete the local data directory (.data/) to start afresh.`,
      );
    }
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
    await client.send(new CreateTableCommand(wanted));
  } finally {
    client.destroy();
  }
}
