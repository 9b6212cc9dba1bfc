import * as v from 'valibot';

/**
 * Five years: the record-keeping period banks work to (customer due diligence records are kept
 * five years after the relationship under the EU's AML directives and the US Bank Secrecy Act).
 */
export const DEFAULT_SNAPSHOT_RETENTION_DAYS = 1827;

/** The watchlist settings, also read by tools that run without a table (snapshot build, bench). */
const WatchlistConfigSchema = v.object({
  /** Path of the compiled watchlist snapshot; default data/snapshot/watchlists.json. */
  WATCHLIST_SNAPSHOT: v.optional(v.string()),
});

/**
 * Configuration, read and validated once per cold start from the environment. A missing or
 * malformed value fails the cold start loudly instead of surfacing as a 500 later.
 */
const ConfigSchema = v.object({
  ...WatchlistConfigSchema.entries,
  TABLE_NAME: v.pipe(v.string('TABLE_NAME is required'), v.minLength(1, 'TABLE_NAME is required')),
  DYNAMODB_ENDPOINT: v.optional(v.pipe(v.string(), v.url('DYNAMODB_ENDPOINT must be a URL'))),
  AWS_REGION: v.optional(v.string(), 'us-east-1'),
  BATCH_QUEUE_URL: v.optional(v.string()),
  SQS_ENDPOINT: v.optional(v.pipe(v.string(), v.url('SQS_ENDPOINT must be a URL'))),
  RESCREEN_WINDOW_HOURS: v.optional(
    v.pipe(v.string(), v.transform(Number), v.number(), v.minValue(0), v.maxValue(24 * 365)),
    '24',
  ),
  /** The bucket the list sync publishes snapshots to (set by the stack); see lib/sync/snapshot-store.ts. */
  WATCHLIST_BUCKET: v.optional(v.string()),
  /** Local alternative to the bucket: a directory (`npm start` uses <DATA_DIR>/watchlists). */
  WATCHLIST_STORE_DIR: v.optional(v.string()),
  /**
   * Days a watchlist snapshot version is kept after a newer one replaced it (lib/sync/snapshot-store.ts):
   * the local store prunes by it, and replay names it when a version is gone. On AWS the stack
   * sets it from the bucket's lifecycle rule, so the two agree.
   */
  SNAPSHOT_RETENTION_DAYS: v.optional(
    v.pipe(v.string(), v.transform(Number), v.number(), v.integer(), v.minValue(0), v.maxValue(36_500)),
    String(DEFAULT_SNAPSHOT_RETENTION_DAYS),
  ),
  /**
   * The Object Lock bucket the audit chain writer anchors each tenant's chain head in (set by the
   * stack); see lib/audit/anchor-store.ts.
   */
  AUDIT_ANCHOR_BUCKET: v.optional(v.string()),
  /** Local alternative to the bucket: a directory of append-only files (`npm start`: <DATA_DIR>/audit-anchors). */
  AUDIT_ANCHOR_DIR: v.optional(v.string()),
  /**
   * The least number of days an anchor is locked for; a tenant whose retention is longer gets
   * its own. Five years by default, the record-keeping period banks work to.
   */
  AUDIT_ANCHOR_RETENTION_DAYS: v.optional(
    v.pipe(v.string(), v.transform(Number), v.number(), v.integer(), v.minValue(1), v.maxValue(36_500)),
    String(DEFAULT_SNAPSHOT_RETENTION_DAYS),
  ),
  /** An S3 emulator's endpoint (tests); unset on AWS. */
  S3_ENDPOINT: v.optional(v.pipe(v.string(), v.url('S3_ENDPOINT must be a URL'))),
  /** Where the list sync downloads from: a mirror directory or base URL; default the official URLs. */
  LIST_SYNC_FROM: v.optional(v.string()),
  /** Comma-separated list ids the list sync covers; default every list with a feed. */
  LIST_SYNC_LISTS: v.optional(v.string()),
  /** Per-file download deadline of the list sync, in seconds. */
  LIST_SYNC_TIMEOUT_SECONDS: v.optional(
    v.pipe(v.string(), v.transform(Number), v.number(), v.minValue(1), v.maxValue(900)),
    '60',
  ),
  /** Where the reference page's Swagger UI files are (set by the stack); default the installed package. */
  SWAGGER_UI_DIR: v.optional(v.string()),
  /**
   * How long a request that needs the watchlists waits for a starting process to load them
   * (lib/common/readiness.ts) before it is answered 503 with Retry-After.
   */
  STARTUP_WAIT_SECONDS: v.optional(
    v.pipe(v.string(), v.transform(Number), v.number(), v.minValue(0), v.maxValue(60)),
    '10',
  ),
  /** The webhook delivery queue (set by the stack; fauxqs locally). */
  WEBHOOK_QUEUE_URL: v.optional(v.string()),
  /** The KMS key sealing webhook secrets' data keys (set by the stack). */
  WEBHOOK_KMS_KEY_ID: v.optional(v.string()),
  /** Locally, instead of KMS: a 32-byte key (base64) sealing the data keys (`npm start` makes one in DATA_DIR). */
  WEBHOOK_SECRET_KEY: v.optional(v.string()),
  /** `true` lets http://127.0.0.1 and http://[::1] receivers through (development and tests; never set on AWS). */
  WEBHOOK_ALLOW_LOOPBACK: v.optional(v.picklist(['true', 'false']), 'false'),
  /** Milliseconds a receiver has to answer a delivery. */
  WEBHOOK_TIMEOUT_MS: v.optional(
    v.pipe(v.string(), v.transform(Number), v.number(), v.minValue(50), v.maxValue(30_000)),
    '10000',
  ),
  /** The waits between delivery attempts, seconds, comma-separated (tests); default lib/webhooks/retry.ts. */
  WEBHOOK_RETRY_DELAYS_SECONDS: v.optional(v.string()),
  /** Minimum seconds between two checks for a newer synced snapshot. */
  WATCHLIST_CHECK_SECONDS: v.optional(
    v.pipe(v.string(), v.transform(Number), v.number(), v.minValue(0), v.maxValue(86_400)),
    '60',
  ),
});

export type Config = v.InferOutput<typeof ConfigSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return parseConfig(ConfigSchema, env);
}

export function readWatchlistConfig(
  env: NodeJS.ProcessEnv = process.env,
): v.InferOutput<typeof WatchlistConfigSchema> {
  return parseConfig(WatchlistConfigSchema, env);
}

function parseConfig<S extends v.GenericSchema>(schema: S, env: NodeJS.ProcessEnv): v.InferOutput<S> {
  const result = v.safeParse(schema, env);
  if (!result.success) {
    const problems = result.issues.map((issue) => `${v.getDotPath(issue) ?? 'config'}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  return result.output;
}

/**
 * The AWS region an adapter uses when its caller names none: the Lambda runtime's AWS_REGION,
 * else us-east-1 (the region the stack deploys to by default).
 */
export function defaultRegion(env: NodeJS.ProcessEnv = process.env): string {
  return env.AWS_REGION ?? 'us-east-1';
}

/** The log level: LOG_LEVEL, else silent under the test runner and info everywhere else. */
export function logLevel(env: NodeJS.ProcessEnv = process.env): string {
  return env.LOG_LEVEL ?? (env.VITEST ? 'silent' : 'info');
}

/** Where the local server reads the built console from: CONSOLE_DIR, unset for dist/console. */
export function consoleDirectorySetting(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.CONSOLE_DIR || undefined;
}

/** Where the CloudFront origin check (lib/http/origin-verify.ts) reads its secret from. */
export interface OriginSecretSource {
  /** ORIGIN_SECRET_ID, set by the stack on every HTTP API function; unset (check off) locally. */
  secretId: string | undefined;
  /** The AWS Parameters and Secrets Lambda Extension's port (its own variable; default 2773). */
  extensionPort: string;
  /** The extension answers only callers that send the function's session token. */
  sessionToken: string;
}

/** Read on every request (not once per cold start): cheap, and a test can switch the check on. */
export function originSecretSource(env: NodeJS.ProcessEnv = process.env): OriginSecretSource {
  return {
    secretId: env.ORIGIN_SECRET_ID || undefined,
    extensionPort: env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT ?? '2773',
    sessionToken: env.AWS_SESSION_TOKEN ?? '',
  };
}

/**
 * The origin-secret rotation function's settings (lib/runtime/origin-secret-rotation.ts): the
 * distribution whose origin header it rotates, set by the stack (infra/cdk/constructs/origin-secret.ts).
 */
export function originSecretRotationTarget(env: NodeJS.ProcessEnv = process.env): { distributionId: string } {
  const distributionId = env.DISTRIBUTION_ID;
  if (!distributionId)
    throw new Error('DISTRIBUTION_ID is not set: the rotation has no distribution to update');
  return { distributionId };
}

/**
 * The local runtime's settings (infra/local/: `npm start`, the ops CLIs' table, the tests' stack),
 * read when asked: a test may change them between two stacks. Raw where the runtime only tests
 * presence; numbers as `Number()` of the variable or its default, as before.
 */
export interface LocalSettings {
  /** DATA_DIR, default `.data` (unresolved), also when set empty (never the working directory). */
  dataDir: string;
  /** PORT, default 3000. */
  port: number;
  /** LOCAL_BATCH_CONSUMERS: the worker's pollers on the local queue, default 4. */
  batchConsumers: number;
  /** LIST_SYNC_INTERVAL_SECONDS: the local list sync's period, 0 (the default) for none. */
  listSyncIntervalSeconds: number;
  /** External stores instead of the embedded ones, and the table's name. */
  dynamodbEndpoint: string | undefined;
  /**
   * DYNAMODB_LOCAL_ENDPOINT: a DynamoDB Local already running (the test run's one) on which a
   * stack without a data directory takes a fresh table, instead of starting a JVM of its own.
   */
  sharedDynamodbLocal: string | undefined;
  tableName: string | undefined;
  sqsEndpoint: string | undefined;
  batchQueueUrl: string | undefined;
  watchlistStoreDir: string | undefined;
  watchlistBucket: string | undefined;
  /** AUDIT_ANCHOR_DIR / AUDIT_ANCHOR_BUCKET as set (else the stack anchors under DATA_DIR/audit-anchors). */
  auditAnchorDir: string | undefined;
  auditAnchorBucket: string | undefined;
  region: string | undefined;
  /** WEBHOOK_SECRET_KEY as set (else the stack keeps one in DATA_DIR, or a fresh one in memory). */
  webhookSecretKey: string | undefined;
  /** WEBHOOK_ALLOW_LOOPBACK as set; the local stack defaults it to `true` (http://127.0.0.1 receivers). */
  webhookAllowLoopback: string | undefined;
  /** WEBHOOK_DRAIN_PERIOD_SECONDS as set; the local stack drains every second by default. */
  webhookDrainPeriodSeconds: string | undefined;
  /** LOCAL_CONCURRENCY: HTTP invocations the local server runs at once (more wait for a slot), default 32. */
  concurrency: number;
  /** LOCAL_WEBHOOK_CONSUMERS: the delivery function's pollers on the local queue, default 2. */
  webhookConsumers: number;
}

export function localSettings(env: NodeJS.ProcessEnv = process.env): LocalSettings {
  return {
    dataDir: env.DATA_DIR || '.data',
    port: Number(env.PORT ?? 3000),
    concurrency: Number(env.LOCAL_CONCURRENCY ?? 32),
    batchConsumers: Number(env.LOCAL_BATCH_CONSUMERS ?? 4),
    listSyncIntervalSeconds: Number(env.LIST_SYNC_INTERVAL_SECONDS ?? 0),
    dynamodbEndpoint: env.DYNAMODB_ENDPOINT,
    sharedDynamodbLocal: env.DYNAMODB_LOCAL_ENDPOINT,
    tableName: env.TABLE_NAME,
    sqsEndpoint: env.SQS_ENDPOINT,
    batchQueueUrl: env.BATCH_QUEUE_URL,
    watchlistStoreDir: env.WATCHLIST_STORE_DIR,
    watchlistBucket: env.WATCHLIST_BUCKET,
    auditAnchorDir: env.AUDIT_ANCHOR_DIR,
    auditAnchorBucket: env.AUDIT_ANCHOR_BUCKET,
    region: env.AWS_REGION,
    webhookSecretKey: env.WEBHOOK_SECRET_KEY,
    webhookAllowLoopback: env.WEBHOOK_ALLOW_LOOPBACK,
    webhookDrainPeriodSeconds: env.WEBHOOK_DRAIN_PERIOD_SECONDS,
    webhookConsumers: Number(env.LOCAL_WEBHOOK_CONSUMERS ?? 2),
  };
}

/** The raw value of a variable the manifest names (a scheduled job's local period override). */
export function namedSetting(variable: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env[variable];
}

/**
 * Sets (or, for undefined, removes) variables: the local runtime hands the in-process handlers
 * their stores the way Lambda does, through the environment they read with `readConfig`.
 */
export function setEnvironment(
  values: Record<string, string | undefined>,
  env: NodeJS.ProcessEnv = process.env,
): void {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
}
