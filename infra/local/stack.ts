import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { resumeOpenBatches } from '../../lib/batch/resume.ts';
import { localSettings, readConfig, setEnvironment } from '../../lib/common/config.ts';
import { logger } from '../../lib/common/log.ts';
import { markReady, markStarting, reportLoading } from '../../lib/common/readiness.ts';
import { getServices, resetServices } from '../../lib/runtime/services.ts';
import { getWebhookDeps } from '../../lib/runtime/webhooks.ts';
import { liveWatchlistsOf } from '../../lib/sync/live-watchlists.ts';
import { defaultSnapshotPath } from '../../lib/watchlists/snapshot.ts';
import { requeuePendingDeliveries } from '../../lib/webhooks/drain.ts';
import { type LocalAuditChain, startLocalAuditChain } from './audit-chain.ts';
import { type DemoKey, seedDemoTenants } from './demo-tenants.ts';
import { DYNAMODB_LOCAL_DIR, deleteTable, ensureTable, startDynamoDbLocal } from './dynamo.ts';
import { createHttpServer } from './http-server.ts';
import { startListSyncSchedule } from './list-sync-schedule.ts';
import { type LocalQueue, startLocalQueue } from './queue.ts';
import { type LocalScheduler, startLocalScheduler } from './scheduler.ts';
import { createStreamServer } from './stream-server.ts';
import { type LocalWebhookQueue, localWebhookSettings, startWebhookQueue } from './webhook-queue.ts';

const repoRoot = resolve(import.meta.dirname, '../..');

/**
 * Every local stand-in (this server, fauxqs, DynamoDB Local) listens on loopback only: the queue and
 * the table hold names and dates of birth, and none of them authenticates its callers.
 */
const LOOPBACK = '127.0.0.1';

/**
 * A fresh checkout has no compiled snapshot: compile it in a child process (scripts/build-snapshot.ts),
 * so the event loop stays free while it runs and /health answers `starting` meanwhile. Each line
 * the child prints as it parses a list is passed on as progress.
 */
async function compileSnapshotIfMissing(progress: (line: string) => void): Promise<void> {
  if (existsSync(defaultSnapshotPath())) return;
  const started = Date.now();
  const loading = 'compiling the watchlist snapshot from data/ (first start only)';
  reportLoading(loading);
  progress(loading);
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'scripts/build-snapshot.ts')], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  for await (const line of createInterface({ input: child.stdout })) {
    const parsed = /^parsed (\S+): (\d+) individuals \((\d+) of (\d+) lists/.exec(line);
    if (parsed) reportLoading(`compiling the watchlist snapshot: ${parsed[3]} of ${parsed[4]} lists parsed`);
    else if (line.startsWith('linked into')) reportLoading(`compiling the watchlist snapshot: ${line}`);
    if (parsed || line.startsWith('linked into')) progress(`  ${line}`);
  }
  const code = await new Promise<number | null>((settle) => {
    if (child.exitCode !== null) settle(child.exitCode);
    else child.once('exit', settle);
  });
  if (code !== 0) throw new Error(`compiling the watchlist snapshot failed (exit ${code}): ${stderr.trim()}`);
  progress(`snapshot compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

export interface LocalStackOptions {
  /**
   * Where DynamoDB Local persists and demo keys are written; null keeps nothing (tests): the
   * stack then takes a fresh table of its own on the run's DynamoDB Local (DYNAMODB_ENDPOINT), or
   * on one it starts in memory.
   */
  dataDir: string | null;
  port?: number;
  /** Default `screening`, as on AWS; a fresh `local-<random>` when dataDir is null. */
  tableName?: string;
  /**
   * Module exporting the batch queue's worker `handler`, relative to the repository root; default
   * the deployed one (tests name a module whose worker has a failing dependency).
   */
  batchWorkerEntry?: string;
  /** Batch queue pollers (default LOCAL_BATCH_CONSUMERS or 4). */
  batchConsumers?: number;
  /** Each step of a start (compiling, indexing), as a line for a person to read (`npm start` prints them). */
  onProgress?: (line: string) => void;
  /**
   * Resolve once the server listens, before the watchlists are loaded (default: once it is ready).
   * `ready` on the result settles when it is.
   */
  returnWhenListening?: boolean;
  /** Test hook: awaited before the watchlists are compiled and loaded, standing in for a slow compile. */
  beforeWatchlists?: () => Promise<void>;
}

export interface LocalStack {
  url: string;
  demoKeys: DemoKey[];
  /** The batch queue (fauxqs) and its dead-letter queue. */
  batchQueue: LocalQueue;
  /** The webhook delivery queue (fauxqs) and its dead-letter queue. */
  webhookQueue: LocalWebhookQueue;
  /** The scheduled jobs' timers; `tick` runs them all now. */
  scheduler: LocalScheduler;
  /** The audit chain writer (woken by each audited write, and a sweep every 5 s). */
  auditChain: LocalAuditChain;
  /** Settles when the watchlists are loaded and /health says `ok` (rejects if they cannot be). */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * The whole service on one machine: AWS's DynamoDB Local is the table, fauxqs the queues, and the
 * route manifest's handlers are served by a node:http stand-in for API Gateway. Configuration
 * reaches the handlers through the same environment variables Lambda gives them.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const progress = options.onProgress ?? ((line: string) => logger.info(line));
  // Until the lists are loaded, /health says `starting` and screens wait (lib/common/readiness.ts).
  markStarting('starting the table (DynamoDB Local)');
  const tableName =
    options.tableName ?? (options.dataDir ? 'screening' : `local-${randomUUID().slice(0, 8)}`);
  const externalDynamo = localSettings().dynamodbEndpoint;
  // A stack that keeps nothing takes a fresh table on the run's DynamoDB Local when there is one.
  const sharedDynamo = options.dataDir ? undefined : localSettings().sharedDynamodbLocal;
  const dynamo = externalDynamo
    ? { endpoint: externalDynamo, close: async () => undefined }
    : sharedDynamo
      ? { endpoint: sharedDynamo, close: () => deleteTable(sharedDynamo, tableName) }
      : await startDynamoDbLocal({
          path: options.dataDir ? join(options.dataDir, DYNAMODB_LOCAL_DIR) : undefined,
          onWaiting: (what) => {
            reportLoading(what);
            progress(what);
          },
        });
  reportLoading('creating the table');
  await ensureTable(dynamo.endpoint, tableName);
  reportLoading('starting the local stores (the queues, the demo tenants)');
  // The ops CLI finds the running store here (DynamoDB Local holds its SQLite file while we run).
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
  // Webhooks: their delivery queue on the same fauxqs, the drain on the scheduler below.
  localWebhookSettings(options.dataDir);
  const webhookQueue = await startWebhookQueue(
    batchQueue.endpoint,
    readConfig().WEBHOOK_RETRY_DELAYS_SECONDS,
  );
  // Synced snapshots persist beside the table, so a restart screens against the last sync.
  const stores = localSettings();
  const defaultedStore = options.dataDir !== null && !stores.watchlistStoreDir && !stores.watchlistBucket;
  if (defaultedStore && options.dataDir)
    setEnvironment({ WATCHLIST_STORE_DIR: join(options.dataDir, 'watchlists') });
  // The audit chain's anchors: append-only files beside the table (a temporary directory when
  // the stack keeps nothing), unless an anchor bucket or directory is configured.
  const anchorDir =
    stores.auditAnchorBucket || stores.auditAnchorDir
      ? undefined
      : options.dataDir
        ? join(options.dataDir, 'audit-anchors')
        : mkdtempSync(join(tmpdir(), 'audit-anchors-'));
  if (anchorDir) setEnvironment({ AUDIT_ANCHOR_DIR: anchorDir });
  resetServices();
  const { table, config } = getServices();
  const auditChain = startLocalAuditChain();

  // The queue lives in memory: batches a previous run left unfinished are queued again.
  const resumed = await resumeOpenBatches(getServices(), logger);
  if (resumed.resumed + resumed.abandoned > 0) logger.info(resumed, 'unfinished batches resumed');
  // So is the webhook delivery queue: deliveries a previous run queued but never made go again.
  const requeued = await requeuePendingDeliveries(getWebhookDeps());
  if (requeued > 0) logger.info({ requeued }, 'pending webhook deliveries queued again');

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
  progress(`listening on ${url}; /health answers "starting" until the watchlists are loaded`);

  let listSync: ReturnType<typeof startListSyncSchedule>;
  const ready = (async () => {
    await options.beforeWatchlists?.();
    await compileSnapshotIfMissing(progress);
    // Index the watchlists before the stack counts as ready, as a provisioned Lambda would: the
    // first screen should not pay for the load. The lists themselves, not through the readiness
    // gate that makes requests wait for exactly this.
    const loading = 'loading and indexing the watchlists';
    reportLoading(loading);
    const started = Date.now();
    const { lists } = await liveWatchlistsOf(config).matcher();
    const listed = lists.reduce((sum, list) => sum + list.individual_count, 0);
    progress(
      `indexed ${listed} listed individuals from ${lists.length} lists in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    markReady();
    listSync = startListSyncSchedule(localSettings().listSyncIntervalSeconds);
    logger.info({ url, tableName, lists: lists.length, listSync: Boolean(listSync) }, 'local stack ready');
  })();
  // A failed load leaves /health at `starting` and is reported by whoever awaits `ready`.
  ready.catch((error) => logger.error({ err: error }, 'the watchlists could not be loaded'));
  if (!options.returnWhenListening) await ready;

  return {
    url,
    demoKeys,
    batchQueue,
    webhookQueue,
    scheduler,
    auditChain,
    ready,
    close: async () => {
      await ready.catch(() => undefined);
      markReady();
      scheduler.close();
      await listSync?.stop();
      if (defaultedStore) setEnvironment({ WATCHLIST_STORE_DIR: undefined });
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await webhookQueue.close();
      await batchQueue.close();
      if (!externalQueue) {
        setEnvironment({ SQS_ENDPOINT: undefined, BATCH_QUEUE_URL: undefined });
      }
      await auditChain.stop();
      if (anchorDir) {
        setEnvironment({ AUDIT_ANCHOR_DIR: undefined });
        if (!options.dataDir) rmSync(anchorDir, { recursive: true, force: true });
      }
      await dynamo.close();
      if (endpointFile) rmSync(endpointFile, { force: true });
      if (!externalDynamo) setEnvironment({ DYNAMODB_ENDPOINT: undefined });
    },
  };
}
