import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { inject } from 'vitest';
import { deleteTable, ensureTable } from '../../infra/local/dynamo.ts';
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
 * A fresh table of its own on the run's one DynamoDB Local (AWS's engine, started once by the
 * global setup), deleted again by `close`.
 */
export async function startTestStore(): Promise<TestStore> {
  const endpoint = inject('dynamodbLocalEndpoint');
  const tableName = `test-${randomUUID().slice(0, 8)}`;
  await ensureTable(endpoint, tableName);
  const table = createTable({ tableName, endpoint });
  return {
    table,
    endpoint,
    close: async () => {
      table.doc.destroy();
      await deleteTable(endpoint, tableName);
    },
  };
}

// The item at a key as stored (a consistent read), or undefined: for a test that checks a write
// left an item exactly as it was, or that a refused transaction wrote nothing.
export { readItem } from '../../lib/store/table.ts';
