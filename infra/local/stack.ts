import { execFile } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { resumeOpenBatches } from '../../lib/batch/resume.ts';
import { localSettings, setEnvironment } from '../../lib/common/config.ts';
import { logger } from '../../lib/common/log.ts';
import { getServices, resetServices } from '../../lib/runtime/services.ts';
import { defaultSnapshotPath } from '../../lib/watchlists/snapshot.ts';
import { type DemoKey, seedDemoTenants } from './demo-tenants.ts';
import { ensureTable, startDynalite } from './dynamo.ts';
import { createHttpServer } from './http-server.ts';
import { startListSyncSchedule } from './list-sync-schedule.ts';
import { type LocalQueue, startLocalQueue } from './queue.ts';
import { type LocalScheduler, startLocalScheduler } from './scheduler.ts';
import { createStreamServer } from './stream-server.ts';

const repoRoot = resolve(import.meta.dirname, '../..');

/**
 * Every local stand-in (this server, fauxqs, dynalite) listens on loopback only: the queue and
 * the table hold names and dates of birth, and none of them authenticates its callers.
 */
const LOOPBACK = '127.0.0.1';

async function compileSnapshotIfMissing(): Promise<void> {
  if (existsSync(defaultSnapshotPath())) return;
  logger.info('compiling the watchlist snapshot from data/ (first start only)');
  await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'scripts/build-snapshot.ts')],
    {
      cwd: repoRoot,
    },
  );
}

export interface LocalStackOptions {
  /** Where dynalite persists and demo keys are written; null keeps everything in memory (tests). */
  dataDir: string | null;
  port?: number;
  tableName?: string;
  /**
   * Module exporting the batch queue's worker `handler`, relative to the repository root; default
   * the deployed one (tests name a module whose worker has a failing dependency).
   */
  batchWorkerEntry?: string;
  /** Batch queue pollers (default LOCAL_BATCH_CONSUMERS or 4). */
  batchConsumers?: number;
}

export interface LocalStack {
  url: string;
  demoKeys: DemoKey[];
  /** The batch queue (fauxqs) and its dead-letter queue. */
  batchQueue: LocalQueue;
  /** The scheduled jobs' timers; `tick` runs them all now. */
  scheduler: LocalScheduler;
  close(): Promise<void>;
}

/**
 * The whole service on one machine: the embedded stores stand in for DynamoDB (dynalite) and the
 * route manifest's handlers are served by a node:http stand-in for API Gateway. Configuration
 * reaches the handlers through the same environment variables Lambda gives them.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const tableName = options.tableName ?? 'screening';
  const externalDynamo = localSettings().dynamodbEndpoint;
  const dynamo = externalDynamo
    ? { endpoint: externalDynamo, close: async () => undefined }
    : await startDynalite({ path: options.dataDir ? join(options.dataDir, 'dynamodb') : undefined });
  await ensureTable(dynamo.endpoint, tableName);
  // The ops CLI finds the running store here (dynalite holds the LevelDB lock while we run).
  const endpointFile = options.dataDir ? join(options.dataDir, 'dynamodb-endpoint') : undefined;
  if (endpointFile) writeFileSync(endpointFile, `${dynamo.endpoint}\n`);

  setEnvironment({ TABLE_NAME: tableName, DYNAMODB_ENDPOINT: dynamo.endpoint });

  // The batch queue: fauxqs in-process with its DLQ, and the worker's sqs-consumer pollers.
  const externalQueue = Boolean(localSettings().sqsEndpoint && localSettings().batchQueueUrl);
  const batchQueue = await startLocalQueue({
    workerEntry: options.batchWorkerEntry,
    consumers: options.batchConsumers,
  });
  setEnvironment({ SQS_ENDPOINT: batchQueue.endpoint, BATCH_QUEUE_URL: batchQueue.queueUrl });
  // Synced snapshots persist beside the table, so a restart screens against the last sync.
  const stores = localSettings();
  const defaultedStore = options.dataDir !== null && !stores.watchlistStoreDir && !stores.watchlistBucket;
  if (defaultedStore && options.dataDir)
    setEnvironment({ WATCHLIST_STORE_DIR: join(options.dataDir, 'watchlists') });
  resetServices();
  const { table, matcher } = getServices();
  // A fresh checkout has no compiled snapshot: compile it in a child process, so the event loop
  // stays free while it runs (about 8 s) and /health answers at once.
  const snapshotReady = compileSnapshotIfMissing();

  // The queue lives in memory: batches a previous run left unfinished are queued again.
  const resumed = await resumeOpenBatches(getServices(), logger);
  if (resumed.resumed + resumed.abandoned > 0) logger.info(resumed, 'unfinished batches resumed');

  const demoKeys = await seedDemoTenants(
    table,
    options.dataDir ? join(options.dataDir, 'demo-keys.json') : undefined,
  );

  // The scheduled jobs (auto-rescreen) on timers, beside the HTTP server and the batch queue,
  // so `npm start` runs everything.
  const scheduler = await startLocalScheduler();
  const server: Server = await createHttpServer({ streamServer: await createStreamServer() });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, LOOPBACK, resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://${LOOPBACK}:${port}`;
  await snapshotReady;
  // Index the watchlists before the stack counts as ready, as a provisioned Lambda would: the
  // first screen should not pay for the load.
  const { lists } = await matcher();
  const listSync = startListSyncSchedule(localSettings().listSyncIntervalSeconds);
  logger.info({ url, tableName, lists: lists.length, listSync: Boolean(listSync) }, 'local stack ready');

  return {
    url,
    demoKeys,
    batchQueue,
    scheduler,
    close: async () => {
      scheduler.close();
      await listSync?.stop();
      if (defaultedStore) setEnvironment({ WATCHLIST_STORE_DIR: undefined });
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await batchQueue.close();
      if (!externalQueue) {
        setEnvironment({ SQS_ENDPOINT: undefined, BATCH_QUEUE_URL: undefined });
      }
      await dynamo.close();
      if (endpointFile) rmSync(endpointFile, { force: true });
      if (!externalDynamo) setEnvironment({ DYNAMODB_ENDPOINT: undefined });
    },
  };
}
