/**
 * The manifest: every function the service deploys, and everything about its wiring that both
 * runtimes need. The handlers read it (authentication, plan gate, method check: lib/http/handler.ts)
 * and so do the CDK stack (infra/cdk/stack.ts: one function per entry, its table grant, queue and
 * schedule wiring) and the local runtime (infra/local), so a route, a grant or a schedule can
 * never exist in one place and not the other. Declaring is granting.
 */

import type { PlanFeature } from '../tenancy/plans.ts';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'DELETE';

/** DynamoDB access a function needs; the stack grants exactly this. */
export type TableAccess = 'none' | 'read' | 'read-write';

/** What every deployed function declares. */
export interface FunctionDefinition {
  /** Stable identifier, used to name the Lambda function and its log group. */
  id: string;
  /** Entry file of the handler, relative to the repository root; it exports `handler`. */
  entry: string;
  tableAccess: TableAccess;
  /** Whether the function loads the watchlist snapshot (bundled with it). */
  needsWatchlists?: boolean;
  /**
   * Whether the function reads earlier versions of the synced snapshot, not only the newest (replay
   * of a screen on the lists it was matched against): the stack grants s3:GetObjectVersion.
   */
  readsSnapshotHistory?: boolean;
  /**
   * Whether it reads which snapshot is the newest published without loading it (a rescreen run
   * names the lists its clients need: lib/monitoring/run-lists.ts). Read access to the snapshot
   * store, nothing bundled.
   */
  readsSnapshotVersion?: boolean;
  /** Whether the function sends to the work queue (batch subjects, client re-screens). */
  sendsToQueue?: boolean;
  /** Whether it seals webhook secrets (KMS GenerateDataKey on the webhook key). */
  sealsWebhookSecrets?: boolean;
  /** Whether it sends to the webhook delivery queue (a replay). */
  sendsWebhooks?: boolean;
  /**
   * Whether it writes an item of a kind that expires (the table's TTL attribute: rescreen changes,
   * runs, batches). Routes that authenticate a key need not say so (each counts its request in an
   * expiring request window); every other function without it is denied the TTL attribute
   * (infra/cdk/constructs/expiry-permission.ts).
   */
  writesExpiringItems?: boolean;
  summary: string;
}

/**
 * Files a function reads at run time besides its code (the reference page's Swagger UI files):
 * the stack copies exactly these into its deployment package and sets `variable` to the folder
 * they are in; locally they are read where they are.
 */
export interface BundledFiles {
  /** Folder the files come from, relative to the repository root. */
  from: string;
  /** Their names in that folder; only these are copied. */
  files: readonly string[];
  /** Folder of the deployment package they are copied to (under /var/task). */
  into: string;
  /** Environment variable naming that folder in the deployed function. */
  variable: 'SWAGGER_UI_DIR';
}

/**
 * The files of swagger-ui-dist the reference page loads, and nothing else of the package: the
 * route serving them answers only these names, and the stack copies exactly these into the
 * function's deployment package. The standalone preset (a top bar that loads any URL typed into
 * it) and the source maps are left out on purpose.
 */
export const SWAGGER_UI_FILES = {
  from: 'node_modules/swagger-ui-dist',
  files: ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'favicon-16x16.png'],
  into: 'swagger-ui',
  variable: 'SWAGGER_UI_DIR',
} as const satisfies BundledFiles;

export type SwaggerUiFile = (typeof SWAGGER_UI_FILES.files)[number];

export interface RouteDefinition extends FunctionDefinition {
  method: HttpMethod;
  /** API Gateway style path, `{param}` for path parameters. */
  path: string;
  /** `none` only for /health, /openapi.json and the API reference (/docs); everything else authenticates X-API-Key. */
  auth: 'none' | 'api-key';
  /** `http` routes go through API Gateway; `stream` routes through a response-streaming Function URL. */
  kind: 'http' | 'stream';
  /** Plan feature the route needs (checked by the request pipeline; 403 naming the plan). */
  planFeature?: PlanFeature;
  /** Files the route's function serves or reads, copied into its deployment package. */
  bundledFiles?: BundledFiles;
}

/** The part of a route the request pipeline reads. */
export type HandlerRoute = Pick<RouteDefinition, 'id' | 'auth' | 'kind' | 'planFeature'> & {
  method?: HttpMethod;
  path?: string;
};

/** A function an EventBridge schedule invokes (locally: a timer in `npm start`). */
export interface ScheduledJobDefinition extends FunctionDefinition {
  /** How often it runs, in minutes (EventBridge Scheduler `rate(...)`). */
  everyMinutes: number;
  /** Environment variable that overrides the period locally (demos and tests), in seconds. */
  localPeriodVariable: string;
}

/** A function the work queue invokes (SQS event source with reportBatchItemFailures). */
export interface QueueWorkerDefinition extends FunctionDefinition {
  /** Messages handed to one invocation. */
  batchSize: number;
}

/**
 * The function of POST /screens/{screen_id}/replay and GET /screens/{screen_id}/matches: both re-run
 * a stored screen on the lists its receipt names (the snapshot, earlier versions of it); read-write
 * because the replay is recorded on the audit trail (`screen.replay`).
 */
const replayFunction = {
  entry: 'functions/http/screen-replay.ts',
  auth: 'api-key',
  kind: 'http',
  tableAccess: 'read-write',
  needsWatchlists: true,
  readsSnapshotHistory: true,
} as const;

export const routes = [
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
    // Load balancers and uptime probes ask with HEAD, which API Gateway routes apart from GET; the
    // same handler answers (the body is dropped on the way out of a HEAD response).
    id: 'health-head',
    method: 'HEAD',
    path: '/health',
    entry: 'functions/http/health.ts',
    auth: 'none',
    kind: 'http',
    tableAccess: 'none',
    summary: 'Liveness, headers only',
  },
  {
    id: 'openapi',
    method: 'GET',
    path: '/openapi.json',
    entry: 'functions/http/openapi.ts',
    auth: 'none',
    kind: 'http',
    tableAccess: 'none',
    summary: 'This API’s OpenAPI 3.1 document, generated from the code',
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
    tableAccess: 'read',
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
    id: 'screen-replay',
    method: 'POST',
    path: '/screens/{screen_id}/replay',
    ...replayFunction,
    summary: 'Re-run a screen on the snapshot and matcher its receipt names, and on today’s lists',
  },
  {
    id: 'screen-matches',
    method: 'GET',
    path: '/screens/{screen_id}/matches',
    // Served by the replay's function (one entry, one function: the stack is near CloudFormation's
    // 500 resources), so it declares the replay's wiring; this route itself only reads.
    ...replayFunction,
    summary:
      'A check’s matches beyond the strongest 10 a screen stores, strongest first (check, limit, cursor)',
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
    id: 'client-register',
    method: 'POST',
    path: '/clients',
    entry: 'functions/http/client-register.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    needsWatchlists: true,
    summary: 'Register a client for ongoing monitoring; screens it at once',
  },
  {
    id: 'clients-list',
    method: 'GET',
    path: '/clients',
    entry: 'functions/http/clients-list.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'The tenant’s client profiles, newest first (limit, cursor, risk_level, reference)',
  },
  {
    id: 'clients-screened',
    method: 'GET',
    path: '/clients/screened',
    entry: 'functions/http/clients-screened.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'Every subject ever screened: one row each, latest screen and latest disposition',
  },
  {
    id: 'clients-reviewed',
    method: 'GET',
    path: '/clients/reviewed',
    entry: 'functions/http/clients-reviewed.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'Subjects with a disposition, most recent decision first',
  },
  {
    id: 'client-get',
    method: 'GET',
    path: '/clients/{client_id}',
    entry: 'functions/http/client-get.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'One client profile with its open alert and its screens, newest first',
  },
  {
    id: 'client-stop',
    method: 'DELETE',
    path: '/clients/{client_id}',
    entry: 'functions/http/client-stop.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    summary: 'Stop monitoring a client (its screens stay)',
  },
  {
    id: 'users-list',
    method: 'GET',
    path: '/users',
    entry: 'functions/http/users-list.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'The tenant’s users with role and status, never a key (admins)',
  },
  {
    id: 'user-add',
    method: 'POST',
    path: '/users',
    entry: 'functions/http/user-add.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    summary: 'Add an analyst within the plan’s seats; the key is shown once (admins)',
  },
  {
    id: 'user-disable',
    method: 'POST',
    path: '/users/{user_id}/disable',
    entry: 'functions/http/user-disable.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    summary: 'Disable a user: their key stops working at once, an analyst’s seat is freed (admins)',
  },
  {
    id: 'user-revoke-key',
    method: 'POST',
    path: '/users/{user_id}/revoke-key',
    entry: 'functions/http/user-revoke-key.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    summary: 'Revoke a user’s key and issue a new one, shown once (admins)',
  },
  {
    id: 'audit-list',
    method: 'GET',
    path: '/audit',
    entry: 'functions/http/audit-list.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'The tenant’s account administration trail, newest first (admins)',
  },
  {
    id: 'settings-get',
    method: 'GET',
    path: '/settings',
    entry: 'functions/http/settings-get.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'The tenant’s retention settings: period and lock (admins)',
  },
  {
    id: 'settings-update',
    method: 'PATCH',
    path: '/settings',
    entry: 'functions/http/settings-update.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    summary: 'Set the retention period, or turn the retention lock on (admins; audited)',
  },
  // Tenant tuning (issue 40, docs/policies.md): the tenant's screening policy and the remembered
  // false positives.
  {
    id: 'policy-get',
    method: 'GET',
    path: '/settings/policy',
    entry: 'functions/http/policy-get.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'The tenant’s screening policy in force, with its version and the service’s bounds',
  },
  {
    id: 'policy-propose',
    method: 'POST',
    path: '/settings/policy/proposals',
    entry: 'functions/http/policy-propose.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    sendsToQueue: true,
    summary:
      'Propose a policy: a sandbox job replays the tenant’s past screens under it (202; admins; audited)',
  },
  {
    id: 'policy-proposals-list',
    method: 'GET',
    path: '/settings/policy/proposals',
    entry: 'functions/http/policy-proposals-list.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'The tenant’s policy proposals, newest first (limit, cursor; admins)',
  },
  {
    id: 'policy-proposal-get',
    method: 'GET',
    path: '/settings/policy/proposals/{proposal_id}',
    entry: 'functions/http/policy-proposal-get.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'One policy proposal: its status, the sandbox’s progress and its report (admins)',
  },
  {
    id: 'policy-proposal-apply',
    method: 'POST',
    path: '/settings/policy/proposals/{proposal_id}/apply',
    entry: 'functions/http/policy-proposal-apply.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    summary:
      'Apply a reported proposal: an admin other than its author adopts it as the next version (audited)',
  },
  {
    id: 'false-positives-list',
    method: 'GET',
    path: '/settings/false-positives',
    entry: 'functions/http/false-positives-list.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'The decided false positives the tenant’s ad-hoc screens remember (admins)',
  },
  {
    id: 'false-positive-revoke',
    method: 'DELETE',
    path: '/settings/false-positives/{memory_id}',
    entry: 'functions/http/false-positive-revoke.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    summary: 'Forget a remembered false positive: the match alerts again (admins; audited)',
  },
  {
    id: 'rescreen-trigger',
    method: 'POST',
    path: '/clients/rescreen/auto/trigger',
    entry: 'functions/http/rescreen-trigger.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    sendsToQueue: true,
    readsSnapshotVersion: true,
    summary: 'Re-screen the tenant’s clients past their due date now (202 with the run’s counts)',
  },
  {
    id: 'rescreen-run',
    method: 'GET',
    path: '/clients/rescreen/runs/{run_id}',
    entry: 'functions/http/rescreen-run.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'A rescreen run’s counts, progress and the clients whose outcome changed',
  },
  {
    id: 'rescreen-runs',
    method: 'GET',
    path: '/clients/rescreen/runs',
    entry: 'functions/http/rescreen-runs.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'The tenant’s rescreen runs of the last week, newest first, with their counts (limit, cursor)',
  },
  {
    id: 'alerts-list',
    method: 'GET',
    path: '/alerts',
    entry: 'functions/http/alerts-list.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'Monitoring alerts: the open ones by default, one per client (status, since, limit, cursor)',
  },
  {
    id: 'batches-list',
    method: 'GET',
    path: '/batch',
    entry: 'functions/http/batches-list.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'The tenant’s batches of the last week, newest first, with their counts (limit, cursor)',
  },
  {
    id: 'batch-get',
    method: 'GET',
    path: '/batch/{batch_id}',
    entry: 'functions/http/batch-get.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'One batch: its counts and its screens per risk level so far',
  },
  {
    id: 'batch-results',
    method: 'GET',
    path: '/batch/{batch_id}/results',
    entry: 'functions/http/batch-results.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'A batch’s subjects with their outcome and strongest match, as CSV or NDJSON',
  },
  {
    // The interactive reference: no key, so anyone evaluating or integrating can read it; what it
    // calls ("Try it out") needs the key like any client.
    id: 'reference-page',
    method: 'GET',
    path: '/docs',
    entry: 'functions/http/reference-page.ts',
    auth: 'none',
    kind: 'http',
    tableAccess: 'none',
    summary: 'Interactive API reference (Swagger UI) of the OpenAPI document',
  },
  {
    id: 'reference-asset',
    method: 'GET',
    path: '/docs/{asset}',
    entry: 'functions/http/reference-asset.ts',
    auth: 'none',
    kind: 'http',
    tableAccess: 'none',
    bundledFiles: SWAGGER_UI_FILES,
    summary: 'The reference page’s script, styles and icons, served by the service itself',
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
    sendsToQueue: true,
    summary: 'Screen up to 500 subjects; progress streams back as Server-Sent Events',
  },
  {
    id: 'batch-clients-stream',
    method: 'POST',
    path: '/batch/clients/stream',
    entry: 'functions/stream/batch-clients-stream.ts',
    auth: 'api-key',
    kind: 'stream',
    planFeature: 'batch',
    tableAccess: 'read-write',
    sendsToQueue: true,
    summary: 'Screen and register up to 500 clients for monitoring; progress streams back as SSE',
  },
  {
    // Streamed, not buffered: an API Gateway response stops at 10 MB and 30 s, a year's trail does not.
    id: 'audit-export',
    method: 'GET',
    path: '/audit/export',
    entry: 'functions/stream/audit-export.ts',
    auth: 'api-key',
    kind: 'stream',
    // Read-write: the export itself is recorded on the audit trail (started, then done).
    tableAccess: 'read-write',
    summary:
      'A period of the hash-chained audit trail as NDJSON or CSV, with its head hash and count (admins)',
  },
  {
    id: 'screens-export',
    method: 'GET',
    path: '/screens/export',
    entry: 'functions/stream/screens-export.ts',
    auth: 'api-key',
    kind: 'stream',
    tableAccess: 'read-write',
    summary:
      'The screens of a period with their decisions and receipts as NDJSON or CSV, with a digest (admins)',
  },
  {
    id: 'batch-reattach',
    method: 'GET',
    path: '/batch/{batch_id}/events',
    entry: 'functions/stream/batch-reattach.ts',
    auth: 'api-key',
    kind: 'stream',
    tableAccess: 'read',
    summary: 'Follow a batch again: its progress stream from the first event until complete',
  },
  {
    id: 'webhook-create',
    method: 'POST',
    path: '/webhooks',
    entry: 'functions/http/webhook-create.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    sealsWebhookSecrets: true,
    summary: 'Register a webhook endpoint; its signing secret is shown once (admins)',
  },
  {
    id: 'webhooks-list',
    method: 'GET',
    path: '/webhooks',
    entry: 'functions/http/webhooks-list.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'The tenant’s webhook endpoints and the plan’s cap (admins)',
  },
  {
    id: 'webhook-get',
    method: 'GET',
    path: '/webhooks/{webhook_id}',
    entry: 'functions/http/webhook-get.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'One webhook endpoint, with its failing or disabled state (admins)',
  },
  {
    id: 'webhook-update',
    method: 'PATCH',
    path: '/webhooks/{webhook_id}',
    entry: 'functions/http/webhook-update.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    summary: 'Change a webhook endpoint’s URL, events, description or enabled state (admins)',
  },
  {
    id: 'webhook-delete',
    method: 'DELETE',
    path: '/webhooks/{webhook_id}',
    entry: 'functions/http/webhook-delete.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    summary: 'Delete a webhook endpoint (admins)',
  },
  {
    id: 'webhook-rotate-secret',
    method: 'POST',
    path: '/webhooks/{webhook_id}/rotate-secret',
    entry: 'functions/http/webhook-rotate-secret.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    sealsWebhookSecrets: true,
    summary: 'A new signing secret, shown once; the old one signs beside it for the overlap (admins)',
  },
  {
    id: 'webhook-test',
    method: 'POST',
    path: '/webhooks/{webhook_id}/test',
    entry: 'functions/http/webhook-test.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    summary: 'Send a webhook.test event to the endpoint (admins)',
  },
  {
    id: 'webhook-deliveries',
    method: 'GET',
    path: '/webhooks/{webhook_id}/deliveries',
    entry: 'functions/http/webhook-deliveries.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read',
    summary: 'An endpoint’s deliveries and their attempts, newest first, by event and outcome (admins)',
  },
  {
    id: 'webhook-replay',
    method: 'POST',
    path: '/webhooks/{webhook_id}/deliveries/{delivery_id}/replay',
    entry: 'functions/http/webhook-replay.ts',
    auth: 'api-key',
    kind: 'http',
    tableAccess: 'read-write',
    sendsWebhooks: true,
    summary: 'Send one delivery again, same payload and webhook-id (admins)',
  },
] as const satisfies readonly RouteDefinition[];

/** The id of a manifest route: handlers name their route by it. */
export type RouteId = (typeof routes)[number]['id'];

/** How the route with this id authenticates, known to the type checker. */
export type RouteAuth<Id extends RouteId> = Extract<(typeof routes)[number], { id: Id }>['auth'];

/**
 * Where requests no route takes go: API Gateway's `$default` route on AWS, the same handler
 * locally, answering 404 (unknown path) or 405 (known path, other method) with a `detail`.
 */
export const fallbackRoute = {
  id: 'fallback',
  entry: 'functions/http/fallback.ts',
  tableAccess: 'none',
  auth: 'none',
  kind: 'http',
  summary: 'Answers 404 or 405 for requests no route takes',
} as const satisfies FunctionDefinition & HandlerRoute;

/**
 * The work queue's consumer: one job per SQS message, a batch subject or a client re-screen (SQS
 * event source with reportBatchItemFailures on AWS; fauxqs + sqs-consumer locally,
 * infra/local/queue.ts).
 */
export const batchWorker = {
  id: 'batch-worker',
  entry: 'functions/queue/batch-worker.ts',
  tableAccess: 'read-write',
  needsWatchlists: true,
  // A policy proposal's sandbox replays past screens on the snapshots their receipts name.
  readsSnapshotHistory: true,
  writesExpiringItems: true,
  batchSize: 10,
  summary: 'Screens one queued subject per message and records its outcome',
} as const satisfies QueueWorkerDefinition;

export const queueWorkers: readonly QueueWorkerDefinition[] = [batchWorker];

/**
 * The webhook delivery queue's consumer: one attempt per message (lib/webhooks/delivery.ts). Its
 * own queue, DLQ, egress and KMS grant: infra/cdk/constructs/webhooks.ts; locally infra/local/queue.ts.
 */
export const webhookDelivery = {
  id: 'webhook-delivery',
  entry: 'functions/queue/webhook-delivery.ts',
  tableAccess: 'read-write',
  batchSize: 10,
  summary: 'POSTs one signed webhook payload per message, retrying with backoff, then the DLQ',
} as const satisfies QueueWorkerDefinition;

/** The outbox drain (lib/webhooks/drain.ts): every minute on AWS; every second under `npm start`. */
export const webhookDrain = {
  id: 'webhook-drain',
  entry: 'functions/schedule/webhook-drain.ts',
  tableAccess: 'read-write',
  sendsWebhooks: true,
  everyMinutes: 1,
  localPeriodVariable: 'WEBHOOK_DRAIN_PERIOD_SECONDS',
  summary:
    'Every minute: moves webhook events from the outbox to the delivery queue, one message per endpoint',
} as const satisfies ScheduledJobDefinition;

/**
 * Scheduled functions; the stack gives each an EventBridge schedule, `npm start` a timer. The
 * daily list sync is declared apart, with its bucket, its daily rule and its grants (the status
 * rows, the client name keys and the list-change rescreen runs: infra/cdk/constructs/list-sync.ts),
 * because no other function shares those.
 */
export const scheduledJobs: readonly ScheduledJobDefinition[] = [
  {
    id: 'auto-rescreen',
    entry: 'functions/schedule/auto-rescreen.ts',
    tableAccess: 'read-write',
    sendsToQueue: true,
    readsSnapshotVersion: true,
    writesExpiringItems: true,
    everyMinutes: 60,
    localPeriodVariable: 'AUTO_RESCREEN_PERIOD_SECONDS',
    summary: 'Hourly: a rescreen run for every tenant with clients past their due date',
  },
  {
    id: 'retention-purge',
    entry: 'functions/schedule/retention-purge.ts',
    tableAccess: 'read-write',
    everyMinutes: 24 * 60,
    localPeriodVariable: 'RETENTION_PURGE_PERIOD_SECONDS',
    summary: 'Daily: deletes the screens past each tenant’s retention period, audited with the counts',
  },
  webhookDrain,
];

/** The manifest route with this id; a handler names its route once, here. */
export function routeById(id: RouteId): RouteDefinition {
  const route = (routes as readonly RouteDefinition[]).find((candidate) => candidate.id === id);
  if (!route) throw new Error(`No route '${id}' in the manifest (lib/contract/routes.ts)`);
  return route;
}
