import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../infra/local/dynamo.ts';

/**
 * Global setup of the run (vitest.config.ts): one DynamoDB Local, in memory, for every test file
 * instead of one JVM per file (a start takes seconds of both cores). Every test store and every
 * in-process local stack takes a fresh table of its own on it (test/support/dynamo.ts, and
 * DYNAMODB_LOCAL_ENDPOINT, set for each file by test/support/dynamodb-local-env.ts). A service a
 * test starts as its own process, with a data directory, starts its own DynamoDB Local as
 * `npm start` does.
 */
export default async function setup(project: TestProject) {
  const server = await startDynamoDbLocal();
  project.provide('dynamodbLocalEndpoint', server.endpoint);
  return () => server.close();
}
