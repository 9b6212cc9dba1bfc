import { inject } from 'vitest';

// In-process local stacks without a data directory take a fresh table on the run's DynamoDB Local
// (infra/local/stack.ts) rather than starting a JVM each.
process.env.DYNAMODB_LOCAL_ENDPOINT = inject('dynamodbLocalEndpoint');
