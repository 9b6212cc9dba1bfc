import type * as v from 'valibot';
import { BatchRequestSchema } from '../batch/request.ts';
import { ExportQuerySchema } from '../common/export-query.ts';
import { ListQuerySchema } from '../common/fields.ts';
import { ClientListQuerySchema } from '../monitoring/clients-read.ts';
import { BatchClientsRequestSchema, ClientRequestSchema } from '../monitoring/register-client.ts';
import { DisposeRequestSchema, ScreenRequestSchema } from '../screening/request.ts';
import { SettingsPatchSchema } from '../tenancy/retention.ts';
import { AddUserRequestSchema } from '../tenancy/users.ts';
import {
  AccountSchema,
  AuditEntrySchema,
  AuditExportEndSchema,
  AuditPageSchema,
  BatchEventSchemas,
  ClientDetailSchema,
  ClientPageSchema,
  ClientProfileSchema,
  DatabaseStatusSchema,
  DisabledUserSchema,
  ExportErrorSchema,
  HealthSchema,
  HealthStartingSchema,
  OpenApiDocumentSchema,
  RescreenRunSchema,
  RescreenRunStartedSchema,
  RotatedKeySchema,
  ScreenDeletedSchema,
  ScreenExportRecordSchema,
  ScreenedSubjectsPageSchema,
  ScreenHistorySchema,
  ScreenPageSchema,
  ScreenReplaySchema,
  ScreenResultSchema,
  ScreenSchema,
  ScreensExportEndSchema,
  SettingsSchema,
  UserListSchema,
  UserWithKeySchema,
} from './responses.ts';
import type { RouteId } from './routes.ts';

/**
 * The contract of every route of the manifest (lib/contract/routes.ts): what it reads (request body and
 * query, as the valibot schemas the request pipeline validates with) and what it answers (its
 * success status and body schema, or for a streamed route its Server-Sent Events; the error
 * statuses it can answer beyond those every route of its kind can). The request pipeline takes
 * its input schemas from here and types each use case's result by its success schema
 * (lib/http/handler.ts); the OpenAPI document (lib/openapi/document.ts) is generated from it.
 */
export interface Operation {
  body?: v.GenericSchema;
  query?: v.GenericSchema;
  /**
   * The success answer: a JSON body, (streamed routes) the events of an SSE stream, or (the
   * reference page and its files) content of the media types listed, or (the exports) an NDJSON or
   * CSV file whose records are those listed by type (`entry`/`screen`: the lines without a `type`).
   */
  success:
    | { status: 200 | 201 | 202; description: string; schema: v.GenericSchema | null }
    | { status: 200; description: string; events: Readonly<Record<string, v.GenericSchema>> }
    | { status: 200; description: string; mediaTypes: readonly string[] }
    | { status: 200; description: string; exportRecords: Readonly<Record<string, v.GenericSchema>> };
  /** Error statuses particular to the route, with when each happens. */
  errors?: Partial<Record<ErrorStatus, string>>;
  /** The body of an error status whose answer is not the `{ detail }` of every error (/health's 503). */
  errorBodies?: Partial<Record<ErrorStatus, v.GenericSchema>>;
  /** Whether the route honours an `Idempotency-Key` header (lib/http/idempotency.ts). */
  idempotent?: boolean;
}

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 422 | 429 | 500 | 503;

/** A JSON success answer; the status is a literal (not inferred from `Operation`), so results are typed by it. */
const json = <const TSchema extends v.GenericSchema>(schema: TSchema, description: string) => ({
  status: 200 as const,
  description,
  schema,
});
const created = <const TSchema extends v.GenericSchema>(schema: TSchema, description: string) => ({
  ...json(schema, description),
  status: 201 as const,
});
const accepted = <const TSchema extends v.GenericSchema>(schema: TSchema, description: string) => ({
  ...json(schema, description),
  status: 202 as const,
});

const batchEvents = {
  status: 200 as const,
  description:
    'Server-Sent Events: `start` once, one `progress` per subject as it completes (completion order), `error` for a subject that failed for good, `complete` once, last; comment lines keep an idle connection open.',
  events: BatchEventSchemas,
};

const exportErrors = {
  403: 'The caller is not an admin',
};

const notFound = (what: string) => ({ 404: `No ${what} with this id in the caller's tenant` });
const adminsOnly = { 403: 'The caller is not an admin' };
const listQueryErrors = { 400: 'A limit outside 1 to 200, or a cursor this list did not issue' };
/** A route that screens (or reads the lists) on a process still loading them (lib/common/readiness.ts). */
const starting = {
  503: 'The service is starting and the watchlists did not finish loading within the wait; nothing is stored or charged. Retry after `Retry-After` seconds',
};
const batchErrors = {
  429: 'The batch does not fit in this month’s remaining quota; nothing is charged',
};

export const operations = {
  health: {
    success: json(HealthSchema, 'The service is up'),
    errors: {
      503: 'The service is starting: `loading` says what it is loading. Retry after `Retry-After` seconds',
    },
    errorBodies: { 503: HealthStartingSchema },
  },
  'health-head': {
    success: { status: 200, description: 'The service is up (headers only)', schema: null },
    errors: { 503: 'The service is starting' },
  },
  openapi: { success: json(OpenApiDocumentSchema, 'This document') },
  me: { success: json(AccountSchema, 'The caller, tenant, plan and this month’s usage') },
  'rotate-key': { success: json(RotatedKeySchema, 'The new key, shown this once') },
  dbstatus: {
    success: json(DatabaseStatusSchema, 'Per list counts, dates, sync state and staleness'),
    errors: starting,
  },
  screen: {
    body: ScreenRequestSchema,
    idempotent: true,
    success: json(ScreenResultSchema, 'The screen (`skipped`: an earlier screen inside the rescreen window)'),
    errors: {
      410: 'A repeat of an `Idempotency-Key` whose first response returned a screen deleted since; nothing is screened or charged',
      429: 'The monthly screen limit is reached; nothing is stored or charged',
      ...starting,
    },
  },
  'screens-list': {
    query: ListQuerySchema,
    success: json(ScreenPageSchema, 'A page of screens, newest first'),
    errors: listQueryErrors,
  },
  'screens-pending': {
    query: ListQuerySchema,
    success: json(ScreenPageSchema, 'A page of screens with no disposition, newest first'),
    errors: listQueryErrors,
  },
  'screen-get': { success: json(ScreenSchema, 'The screen with all match data'), errors: notFound('screen') },
  'screen-history': {
    success: json(ScreenHistorySchema, 'The disposition in force and every history entry, oldest first'),
    errors: notFound('screen'),
  },
  'screen-replay': {
    success: json(
      ScreenReplaySchema,
      'The screen re-run on the snapshot its receipt names and on today’s lists; nothing is stored or charged',
    ),
    errors: {
      ...notFound('screen'),
      409: 'The screen was stored before screens recorded their receipt: there is no record of its lists to replay it on',
      410: 'The snapshot the receipt names is no longer kept (past the retention period, or a bundled snapshot an earlier release shipped); the detail names the version and the rule',
      ...starting,
    },
  },
  'screen-dispose': {
    body: DisposeRequestSchema,
    success: json(ScreenHistorySchema, 'The disposition recorded, with the history'),
    errors: {
      ...notFound('screen'),
      403: 'An analyst approving, or an admin approving a decision they made or whose author’s key they issued or could hold, or whose author issued theirs (four eyes)',
      409: 'A disposition is already in force (send `override`), the approval names another decision, an approval without `approves_version` is ambiguous (the detail names the version to send), or the history is full',
    },
  },
  'screen-delete': {
    success: json(ScreenDeletedSchema, 'The screen, its history and notes are gone for good'),
    errors: {
      ...notFound('screen'),
      403: 'An analyst deleting a screen someone else created, or (under the tenant’s retention lock) a decided screen before its retention period ends; the detail names the date it becomes deletable',
      409: 'The screen changed (was decided) while it was being deleted; send the request again',
    },
  },
  'client-register': {
    body: ClientRequestSchema,
    idempotent: true,
    success: created(ClientProfileSchema, 'The client, screened and under monitoring'),
    errors: {
      409: 'Another client of the tenant has this reference',
      429: 'The monthly screen limit is reached; nothing is stored or charged',
      ...starting,
    },
  },
  'clients-list': {
    query: ClientListQuerySchema,
    success: json(ClientPageSchema, 'A page of client profiles, newest first'),
    errors: { 400: 'A limit, cursor, risk_level or reference that is not valid' },
  },
  'clients-screened': {
    query: ListQuerySchema,
    success: json(ScreenedSubjectsPageSchema, 'Every subject ever screened, most recent activity first'),
    errors: listQueryErrors,
  },
  'clients-reviewed': {
    query: ListQuerySchema,
    success: json(ScreenedSubjectsPageSchema, 'Subjects with a disposition, most recent decision first'),
    errors: listQueryErrors,
  },
  'client-get': {
    query: ListQuerySchema,
    success: json(ClientDetailSchema, 'The client profile and a page of its screens'),
    errors: { ...listQueryErrors, ...notFound('client') },
  },
  'client-stop': {
    success: json(
      ClientProfileSchema,
      'The client, no longer monitored (stopping again answers the same); its screens stay',
    ),
    errors: {
      ...notFound('client'),
      403: 'An analyst stopping a client someone else registered',
    },
  },
  'users-list': { success: json(UserListSchema, 'Every user of the tenant'), errors: adminsOnly },
  'user-add': {
    body: AddUserRequestSchema,
    success: created(UserWithKeySchema, 'The analyst added, with their key shown this once'),
    errors: { 403: 'The caller is not an admin, or asked for an admin', 409: 'Every analyst seat is in use' },
  },
  'user-disable': {
    success: json(DisabledUserSchema, 'The user, disabled'),
    errors: {
      ...notFound('user'),
      403: 'The caller is not an admin, or disables themselves',
      409: 'The user is already disabled',
    },
  },
  'user-revoke-key': {
    success: json(UserWithKeySchema, 'The user with a new key, shown this once'),
    errors: {
      ...notFound('user'),
      403: 'The caller is not an admin, or the user is an admin (operations resets admins’ keys)',
      409: 'The user is disabled',
    },
  },
  'audit-list': {
    query: ListQuerySchema,
    success: json(AuditPageSchema, 'A page of the audit trail, newest first'),
    errors: { ...listQueryErrors, ...adminsOnly },
  },
  'settings-get': {
    success: json(SettingsSchema, 'The tenant’s retention settings'),
    errors: adminsOnly,
  },
  'settings-update': {
    body: SettingsPatchSchema,
    success: json(SettingsSchema, 'The settings as changed (the change is in the audit trail)'),
    errors: {
      400: 'No setting sent, a value out of range, or the lock without a retention period',
      403: 'The caller is not an admin, or the change would lift the retention lock or shorten its period (operations only)',
      409: 'The settings changed meanwhile; read them again',
    },
  },
  'rescreen-trigger': {
    success: accepted(
      RescreenRunStartedSchema,
      'The run, started (its clients are re-screened in the background)',
    ),
  },
  'rescreen-run': {
    success: json(RescreenRunSchema, 'The run’s counts, progress and the clients whose outcome changed'),
    errors: notFound('rescreen run'),
  },
  'audit-export': {
    query: ExportQuerySchema,
    success: {
      status: 200,
      description:
        'The period’s run of the audit chain, streamed: NDJSON (one entry per line, exactly as stored) or CSV (one row per entry), then the `export_end` record with the count, the first and last seq, the hash before the first, the head hash and the chain head. `npm run verify-export -- <file>` checks it.',
      exportRecords: {
        entry: AuditEntrySchema,
        export_end: AuditExportEndSchema,
        export_error: ExportErrorSchema,
      },
    },
    errors: exportErrors,
  },
  'screens-export': {
    query: ExportQuerySchema,
    success: {
      status: 200,
      description:
        'The screens of the period (screened_at) with their decisions, history and receipts, streamed: NDJSON or CSV, then the `export_end` record with the count and the SHA-256 of the records. Holds personal data (subjects): admins only.',
      exportRecords: {
        screen: ScreenExportRecordSchema,
        export_end: ScreensExportEndSchema,
        export_error: ExportErrorSchema,
      },
    },
    errors: exportErrors,
  },
  'batch-stream': { body: BatchRequestSchema, idempotent: true, success: batchEvents, errors: batchErrors },
  'batch-clients-stream': {
    body: BatchClientsRequestSchema,
    idempotent: true,
    success: batchEvents,
    // A subject whose reference another client holds is an `error` event of the stream, not a 409.
    errors: batchErrors,
  },
  'batch-reattach': { success: batchEvents, errors: notFound('batch') },
  'reference-page': {
    success: {
      status: 200,
      description: 'The interactive reference of this document',
      mediaTypes: ['text/html'],
    },
  },
  'reference-asset': {
    success: {
      status: 200,
      description: 'One of the page’s files: its script, Swagger UI’s script and stylesheet, or an icon',
      mediaTypes: ['text/javascript', 'text/css', 'image/png'],
    },
    errors: { 404: 'Not one of the reference page’s files' },
  },
} as const satisfies Record<RouteId, Operation>;

export type Operations = typeof operations;
