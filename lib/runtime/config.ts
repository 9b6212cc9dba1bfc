import * as v from 'valibot';

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
