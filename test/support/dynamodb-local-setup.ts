import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamo.ts';

/**
 * Global setup of the run (vitest.config.ts): one DynamoDB Local, in memory, for every test file
 * instead of one JVM per file (a start takes seconds of both cores). Every test store and every
 * in-process local stack takes a fresh table of its own on it (test/support/dynamo.ts, and
 * DYNAMODB_LOCAL_ENDPOINT, set for each file by test/support/dynamodb-local-env.ts). A service a
 * test starts as its own process, with a data directory, starts its own DynamoDB Local as
 * `npm start` does.
 *
 * Each project of vitest.config.ts runs its global setup: the first starts the engine, the others
 * share it (kept on the main process's global object), and the last teardown closes it.
 */
const SHARED = Symbol.for('screening.test.dynamodbLocal');
type Shared = { server: ReturnType<typeof startDynamoDbLocal>; users: number };

export default async function setup(project: TestProject) {
  const global = globalThis as { [SHARED]?: Shared };
  global[SHARED] ??= { server: startDynamoDbLocal(), users: 0 };
  const shared = global[SHARED];
  shared.users += 1;
  const server = await shared.server;
  project.provide('dynamodbLocalEndpoint', server.endpoint);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete global[SHARED];
    await server.close();
  };
}
