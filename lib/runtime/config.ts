import * as v from 'valibot';

/**
 * Configuration, read and validated once per cold start from the environment. A missing or
 * malformed value fails the cold start loudly instead of surfacing as a 500 later.
 */
const ConfigSchema = v.object({
  TABLE_NAME: v.pipe(v.string('TABLE_NAME is required'), v.minLength(1, 'TABLE_NAME is required')),
  DYNAMODB_ENDPOINT: v.optional(v.pipe(v.string(), v.url('DYNAMODB_ENDPOINT must be a URL'))),
  AWS_REGION: v.optional(v.string(), 'us-east-1'),
  BATCH_QUEUE_URL: v.optional(v.string()),
  SQS_ENDPOINT: v.optional(v.pipe(v.string(), v.url('SQS_ENDPOINT must be a URL'))),
  RESCREEN_WINDOW_HOURS: v.optional(
    v.pipe(v.string(), v.transform(Number), v.number(), v.minValue(0), v.maxValue(24 * 365)),
    '24',
  ),
  WATCHLIST_SNAPSHOT: v.optional(v.string()),
});

export type Config = v.InferOutput<typeof ConfigSchema>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = v.safeParse(ConfigSchema, env);
  if (!result.success) {
    const problems = result.issues.map((issue) => `${v.getDotPath(issue) ?? 'config'}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  return result.output;
}
