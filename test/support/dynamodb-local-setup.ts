import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from './dynamo.ts';

/**
 * Global setup of the dynamodb-local project (vitest.config.ts): one DynamoDB Local for the whole
 * run instead of one Java process per test file (a start takes seconds of both cores); every test
 * store is still a fresh table of its own (test/support/dynamo.ts startTestStore).
 */
export default async function setup(project: TestProject) {
  const server = await startDynamoDbLocal();
  project.provide('dynamodbLocalEndpoint', server.endpoint);
  return () => server.close();
}
