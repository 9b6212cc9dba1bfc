/**
 * The route manifest: the single list of every endpoint the service exposes.
 * Both the CDK stack (infra/stack.ts) and the local server (infra/local) read it, so a route
 * can never exist in one runtime and not the other.
 */

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface RouteDefinition {
  /** Stable identifier, used to name the Lambda function and its log group. */
  id: string;
  method: HttpMethod;
  /** API Gateway style path, `{param}` for path parameters. */
  path: string;
  /** Entry file of the handler, relative to the repository root; it exports `handler`. */
  entry: string;
  /** `none` only for /health; everything else authenticates X-API-Key. */
  auth: 'none' | 'api-key';
  /** `http` routes go through API Gateway; `stream` routes through a response-streaming Function URL. */
  kind: 'http' | 'stream';
  /** Plan feature the route needs (checked in the handler's middleware). */
  planFeature?: 'batch';
  /** DynamoDB access the function needs; the stack grants exactly this. */
  tableAccess: 'none' | 'read' | 'read-write';
  /** Whether the function loads the watchlist snapshot (bundled with it). */
  needsWatchlists?: boolean;
  /** Whether the function sends to the batch queue. */
  sendsToQueue?: boolean;
  summary: string;
}

export const routes: readonly RouteDefinition[] = [
  {
    id: 'health',
    method: 'GET',
    path: '/health',
    entry: 'functions/http/health.ts',
    auth: 'none',
    kind: 'http',
    tableAccess: 'none',
    summary: 'Liveness and interface version',
  },
  {
    id: 'me',
    method: 'GET',
    path: '/me',
    entry: 'functions/http/me.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'The caller, their tenant, plan and this month’s usage',
  },
  {
    id: 'rotate-key',
    method: 'POST',
    path: '/me/rotate-key',
    entry: 'functions/http/rotate-key.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    summary: 'Issue a new API key; the old one stops working at once',
  },
  {
    id: 'dbstatus',
    method: 'GET',
    path: '/dbstatus',
    entry: 'functions/http/dbstatus.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'none',
    needsWatchlists: true,
    summary: 'Watchlist statistics: counts per list, source dates, last sync, staleness',
  },
  {
    id: 'screen',
    method: 'POST',
    path: '/screen',
    entry: 'functions/http/screen.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    needsWatchlists: true,
    summary: 'Screen one individual against sanctions, PEP and criminal lists',
  },
  {
    id: 'screens-list',
    method: 'GET',
    path: '/screens',
    entry: 'functions/http/screens-list.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'The tenant’s screens, newest first (limit, cursor)',
  },
  {
    id: 'screens-pending',
    method: 'GET',
    path: '/screens/pending',
    entry: 'functions/http/screens-pending.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'Screens with no disposition recorded, newest first',
  },
  {
    id: 'screen-get',
    method: 'GET',
    path: '/screens/{screen_id}',
    entry: 'functions/http/screen-get.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'One screen with all match data, narratives and its disposition',
  },
  {
    id: 'screen-history',
    method: 'GET',
    path: '/screens/{screen_id}/history',
    entry: 'functions/http/screen-history.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'Disposition history and analyst notes of a screen, oldest first',
  },
  {
    id: 'screen-dispose',
    method: 'POST',
    path: '/screens/{screen_id}/dispose',
    entry: 'functions/http/screen-dispose.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    summary: 'Record, override or approve a disposition',
  },
  {
    id: 'screen-delete',
    method: 'DELETE',
    path: '/screens/{screen_id}',
    entry: 'functions/http/screen-delete.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    summary: 'Delete a screen with its history and notes (admins: any; analysts: their own)',
  },
  {
    id: 'batch-stream',
    method: 'POST',
    path: '/batch/stream',
    entry: 'functions/stream/batch-stream.ts',
    auth: 'api-key',
    kind: 'stream',
    planFeature: 'batch',
    tableAccess: 'read-write',
    needsWatchlists: false,
    sendsToQueue: true,
    summary: 'Screen up to 500 subjects; progress streams back as Server-Sent Events',
  },
];

/**
 * Where requests no route takes go: API Gateway's `$default` route on AWS, the same handler
 * locally, answering 404 (unknown path) or 405 (known path, other method) with a `detail`.
 */
export const fallbackRoute = {
  id: 'fallback',
  entry: 'functions/http/fallback.ts',
  tableAccess: 'none',
} as const satisfies Pick<RouteDefinition, 'id' | 'entry' | 'tableAccess'>;

/**
 * The batch queue's consumer: screens one subject per SQS message (SQS event source with
 * reportBatchItemFailures on AWS; fauxqs + sqs-consumer locally, infra/local/queue.ts).
 */
export const batchWorker = {
  id: 'batch-worker',
  entry: 'functions/queue/batch-worker.ts',
  tableAccess: 'read-write',
  needsWatchlists: true,
} as const satisfies Pick<RouteDefinition, 'id' | 'entry' | 'tableAccess' | 'needsWatchlists'>;
