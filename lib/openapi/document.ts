import {
  type ConversionConfig,
  type JsonSchema,
  toJsonSchema,
  toJsonSchemaDefs,
} from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { guardedBodies } from '../common/fields.ts';
import { INTERFACE_VERSION } from '../common/version.ts';
import { type ErrorStatus, type Operation, operations } from '../contract/operations.ts';
import * as responses from '../contract/responses.ts';
import { type RouteDefinition, routes } from '../contract/routes.ts';
import { MAX_BODY_BYTES } from '../http/body-limit.ts';
import { WEBHOOK_EVENT_DESCRIPTIONS, WEBHOOK_EVENT_TYPES, webhookPayloadSchema } from '../webhooks/events.ts';
import capturedExamples from './examples.json' with { type: 'json' };

/**
 * The OpenAPI 3.1 document of the service, generated, never written by hand: one operation per
 * route of the manifest (lib/contract/routes.ts), its parameters and request body from the valibot schemas
 * the request pipeline validates with, its responses from the valibot response schemas
 * (lib/contract/operations.ts, lib/contract/responses.ts), converted by @valibot/to-json-schema.
 * Served at GET /openapi.json and written to docs/openapi.json by `npm run openapi`.
 */

type JsonObject = Record<string, unknown>;

/** Named response schemas: each becomes `#/components/schemas/<name>` and is referenced by it. */
const namedSchemas: Record<string, v.GenericSchema> = {
  ErrorBody: responses.ErrorBodySchema,
  Health: responses.HealthSchema,
  Account: responses.AccountSchema,
  RotatedKey: responses.RotatedKeySchema,
  DatabaseStatus: responses.DatabaseStatusSchema,
  Actor: responses.ActorSchema,
  Subject: responses.SubjectSchema,
  Match: responses.MatchSchema,
  SanctionsResult: responses.SanctionsResultSchema,
  PepResult: responses.PepResultSchema,
  CriminalResult: responses.CriminalResultSchema,
  Decision: responses.DecisionSchema,
  Disposition: responses.DispositionSchema,
  ScreenSummary: responses.ScreenSummarySchema,
  Screen: responses.ScreenSchema,
  ScreenResult: responses.ScreenResultSchema,
  ScreenPage: responses.ScreenPageSchema,
  ScreenHistory: responses.ScreenHistorySchema,
  ScreenDeleted: responses.ScreenDeletedSchema,
  ClientProfile: responses.ClientProfileSchema,
  ClientPage: responses.ClientPageSchema,
  ClientDetail: responses.ClientDetailSchema,
  ScreenedSubjectsPage: responses.ScreenedSubjectsPageSchema,
  RescreenRunStarted: responses.RescreenRunStartedSchema,
  RescreenRun: responses.RescreenRunSchema,
  User: responses.UserSchema,
  UserList: responses.UserListSchema,
  UserWithKey: responses.UserWithKeySchema,
  DisabledUser: responses.DisabledUserSchema,
  AuditPage: responses.AuditPageSchema,
  OpenApiDocument: responses.OpenApiDocumentSchema,
  BatchStartEvent: responses.BatchEventSchemas.start,
  BatchProgressEvent: responses.BatchEventSchemas.progress,
  BatchErrorEvent: responses.BatchEventSchemas.error,
  BatchCompleteEvent: responses.BatchEventSchemas.complete,
};

const componentRef = (name: string) => `#/components/schemas/${name}`;

/** Response schemas describe exactly: anything the converter cannot render is an error here. */
const responseConfig: ConversionConfig = {
  target: 'draft-2020-12',
  errorMode: 'throw',
  definitions: namedSchemas,
  overrideRef: ({ referenceId }) => componentRef(referenceId),
};

/**
 * Request schemas also check what JSON Schema cannot say (a real calendar date, readable letters,
 * the `types` list): the document gives their input type and its limits, the server's 400 the rest.
 * The JSON-object guard of a body (lib/screening/request.ts `strictBody`) is rendered as its object.
 */
const requestConfig: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'input',
  errorMode: 'ignore',
  overrideSchema: ({ valibotSchema }) => {
    const object = guardedBodies.get(valibotSchema);
    return object ? convert(object, requestConfig) : undefined;
  },
};

/** A schema as the document embeds it: no `$schema` or `$defs` of its own (components hold them). */
function convert(schema: v.GenericSchema, config: ConversionConfig): JsonSchema {
  const { $schema: _dialect, $defs: _definitions, ...rest } = toJsonSchema(schema, config) as JsonObject;
  return rest as JsonSchema;
}

/**
 * Real answers of the local stack by operation id and status (scripts/capture-openapi-examples.ts;
 * a stream's as its text), checked against their schemas by test/openapi/document.test.ts.
 */
const examples: Record<string, Record<string, unknown>> = capturedExamples;
const exampleOf = (routeId: string, status: number) =>
  status in (examples[routeId] ?? {}) ? { example: examples[routeId][status] } : {};

/**
 * An error's body, under both media types it is served as (lib/http/error-response.ts
 * `problemContentType`): `application/problem+json`, or `application/json` to a client whose
 * Accept asks for that alone. The same JSON either way.
 */
const errorMedia = (routeId: string, status: number, schema: JsonObject | JsonSchema) => {
  const media = { schema, ...exampleOf(routeId, status) };
  return { 'application/problem+json': media, 'application/json': media };
};

const errorContent = (routeId: string, status: number) =>
  errorMedia(routeId, status, { $ref: componentRef('ErrorBody') });

/** An error's body: the `{ detail }` of every error, or the route's own schema for the status. */
function errorBodyContent(routeId: string, status: number, schema: v.GenericSchema | undefined) {
  if (!schema) return errorContent(routeId, status);
  return errorMedia(routeId, status, convert(schema, responseConfig));
}

/** The error statuses a route can answer: those of its kind (authentication, a body...) and its own. */
function errorStatuses(route: RouteDefinition, operation: Operation): Map<ErrorStatus, string[]> {
  const statuses = new Map<ErrorStatus, string[]>();
  const add = (status: ErrorStatus, when: string) =>
    statuses.set(status, [...(statuses.get(status) ?? []), when]);
  if (operation.body) add(400, 'The body is not valid JSON or breaks a rule; the detail names the field');
  if (operation.query) add(400, 'A query parameter breaks a rule; the detail names it');
  // Every route refuses a query parameter it does not declare (lib/http/handler.ts).
  add(400, 'A query parameter the route does not take (`unknown_query_parameter`); the detail names it');
  if (route.auth === 'api-key') add(401, 'X-API-Key is missing or not a working key');
  if (route.planFeature) add(403, `The tenant’s plan does not include ${route.planFeature} screening`);
  // Every route refuses an oversized body before reading it, whether it reads a body or not.
  add(413, `The body is larger than ${MAX_BODY_BYTES} bytes (1 MB)`);
  if (operation.idempotent) {
    add(400, 'Idempotency-Key is not 1 to 255 printable ASCII characters');
    add(409, 'A request with this Idempotency-Key is still running; retry shortly');
    add(422, 'This Idempotency-Key was already used with a different body');
  }
  for (const [status, when] of Object.entries(operation.errors ?? {}))
    add(Number(status) as ErrorStatus, when);
  // Fair use between tenants (lib/tenancy/limits.ts), distinct from the monthly quota's 429.
  if (route.auth === 'api-key') {
    add(
      429,
      'Fair use: the tenant is over its plan’s request rate (`Request rate limit reached`, Retry-After: the seconds until a request would be admitted); nothing was done',
    );
  }
  if (route.auth === 'api-key' && route.kind === 'stream') {
    add(
      429,
      'Fair use: the tenant already has its plan’s number of streamed responses open (`Open stream limit reached`, Retry-After: 15); nothing was started',
    );
  }
  add(500, 'An internal error; the detail names the request id to quote to support');
  return new Map([...statuses].sort(([a], [b]) => a - b));
}

function successResponse(routeId: string, operation: Operation): JsonObject {
  const { success } = operation;
  const example = exampleOf(routeId, success.status);
  if ('events' in success) {
    const names = Object.keys(success.events);
    return {
      description: success.description,
      content: {
        'text/event-stream': {
          // Each event is `event: <name>` and `data: <JSON>`; the data schema of each name follows.
          schema: { type: 'string' },
          ...example,
          'x-events': Object.fromEntries(
            names.map((name) => [name, convert(success.events[name], responseConfig)]),
          ),
        },
      },
    };
  }
  if ('exportRecords' in success) {
    // An export file: NDJSON (one record per line) or CSV (a header, one row per record, and a
    // row of an export record's type and JSON); `x-records` gives each line's schema by its `type`
    // (the data lines carry none: the first name).
    return {
      description: success.description,
      content: {
        'application/x-ndjson': {
          schema: { type: 'string' },
          'x-records': Object.fromEntries(
            Object.entries(success.exportRecords).map(([name, schema]) => [
              name,
              convert(schema, responseConfig),
            ]),
          ),
        },
        'text/csv': { schema: { type: 'string' } },
      },
    };
  }
  if ('mediaTypes' in success) {
    // Text as a string; an image as bytes of its own type (an empty schema: any content).
    return {
      description: success.description,
      content: Object.fromEntries(
        success.mediaTypes.map((type) => [
          type,
          type.startsWith('text/') ? { schema: { type: 'string' } } : {},
        ]),
      ),
    };
  }
  if (!success.schema) return { description: success.description };
  return {
    description: success.description,
    content: { 'application/json': { schema: convert(success.schema, responseConfig), ...example } },
  };
}

const pathParameters = (path: string) =>
  [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));

function queryParameters(schema: v.GenericSchema | undefined): JsonObject[] {
  if (!schema) return [];
  const object = convert(schema, requestConfig) as { properties?: JsonObject; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => {
    const { description, ...schema } = property as { description?: string };
    return {
      name,
      in: 'query',
      ...(description ? { description } : {}),
      required: object.required?.includes(name) ?? false,
      schema,
    };
  });
}

const idempotencyKeyHeader = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Retry safely: the same key and body within 24 hours answers the first response again, nothing done twice.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[!-~]+$' },
};

/** Group of a route in the reference: by the first segment of its path. */
const TAGS: Record<string, { name: string; description: string }> = {
  health: { name: 'Account', description: 'Liveness, the caller and their tenant, the watchlists in force' },
  me: { name: 'Account', description: '' },
  dbstatus: { name: 'Account', description: '' },
  'openapi.json': { name: 'Reference', description: 'This document, and the interactive reference at /docs' },
  docs: { name: 'Reference', description: '' },
  screen: { name: 'Screening', description: 'Screen a person; read, decide on and delete screens' },
  screens: { name: 'Screening', description: '' },
  clients: {
    name: 'Clients',
    description: 'Clients under ongoing monitoring, re-screens, every subject screened',
  },
  alerts: { name: 'Clients', description: '' },
  batch: {
    name: 'Batch',
    description:
      'Up to 500 subjects, progress streamed back as Server-Sent Events; the tenant’s batches and each batch’s results',
  },
  users: { name: 'Users', description: 'The tenant’s users, keys and administration trail (admins)' },
  audit: { name: 'Users', description: '' },
  settings: { name: 'Settings', description: 'The tenant’s retention period and retention lock (admins)' },
  webhooks: {
    name: 'Webhooks',
    description:
      'Signed event deliveries (Standard Webhooks) to the tenant’s endpoints, their log and replay (admins); the events are under `webhooks`',
  },
};

/**
 * The OpenAPI 3.1 `webhooks` section: one entry per event type, the POST the service makes to a
 * registered endpoint, with the payload's schema and the Standard Webhooks headers.
 */
function webhooksSection(): Record<string, JsonObject> {
  const header = (description: string) => ({ required: true, description, schema: { type: 'string' } });
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          summary: type,
          description: WEBHOOK_EVENT_DESCRIPTIONS[type],
          operationId: `webhook-${type.replace(/[._]/g, '-')}`,
          tags: ['Webhooks'],
          // The service calls the receiver: no API key; the receiver checks the signature instead.
          security: [],
          parameters: [
            {
              name: 'webhook-id',
              in: 'header',
              ...header('The delivery id: the same on every retry and replay (deduplicate by it)'),
            },
            {
              name: 'webhook-timestamp',
              in: 'header',
              ...header('Seconds since the epoch when this attempt was signed'),
            },
            {
              name: 'webhook-signature',
              in: 'header',
              ...header('`v1,<base64 HMAC-SHA256>`, one per live secret, space-separated'),
            },
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: convert(webhookPayloadSchema(type), responseConfig) } },
          },
          responses: {
            '200': {
              description:
                'Any 2xx within 10 seconds is success; anything else (redirects included) is retried',
            },
          },
        },
      },
    ]),
  );
}
function tagOf(path: string): string {
  const tag = TAGS[path.split('/')[1]];
  if (!tag) throw new Error(`No tag for ${path}: add its first segment to TAGS in lib/openapi/document.ts`);
  return tag.name;
}

/** Response header fields (lib/http/handler.ts, lib/http/quota-headers.ts), referenced by every response. */
const responseHeaders = {
  'X-Request-Id': {
    description:
      'The request’s id, in every log line written while serving it: the caller’s well-formed X-Request-Id, else a fresh one.',
    required: true,
    schema: { type: 'string' },
  },
  RateLimit: {
    description:
      'The tenant’s monthly screen quota now, IETF draft-ietf-httpapi-ratelimit-headers-10: `"monthly";r=<remaining>;t=<seconds until the month ends>`. Plans with a quota only.',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description:
      'The quota policy: `"monthly";q=<screens per month>;w=<seconds in this month>`. Plans with a quota only.',
    schema: { type: 'string' },
  },
  'Quota-Unlimited': {
    description: '`?1` on plans without a monthly quota (Enterprise), in place of the two RateLimit fields.',
    schema: { type: 'string' },
  },
  'Retry-After': {
    description:
      'Seconds to wait before trying again: on a 503 while the service is starting, and on a fair-use 429 (request rate, open streams). Absent on the monthly quota’s 429, which lasts until the month ends (see RateLimit).',
    schema: { type: 'string' },
  },
};
const headerRef = (name: keyof typeof responseHeaders) => ({ $ref: `#/components/headers/${name}` });

/** Every response names its request id; an authenticated one (not a 401) the tenant's quota too. */
function headersOf(route: RouteDefinition, status: number): JsonObject {
  const retry = status === 429 || status === 503 ? { 'Retry-After': headerRef('Retry-After') } : {};
  const quota =
    route.auth === 'api-key' && status !== 401
      ? {
          RateLimit: headerRef('RateLimit'),
          'RateLimit-Policy': headerRef('RateLimit-Policy'),
          'Quota-Unlimited': headerRef('Quota-Unlimited'),
        }
      : {};
  return { 'X-Request-Id': headerRef('X-Request-Id'), ...retry, ...quota };
}

function operationObject(route: RouteDefinition, operation: Operation): JsonObject {
  const { status: success } = operation.success;
  const responses: JsonObject = {
    [String(success)]: { ...successResponse(route.id, operation), headers: headersOf(route, success) },
  };
  for (const [status, when] of errorStatuses(route, operation)) {
    responses[String(status)] = {
      description: when.join('. '),
      headers: headersOf(route, status),
      // A HEAD response never has a body, not even an error's.
      ...(route.method === 'HEAD'
        ? {}
        : { content: errorBodyContent(route.id, status, operation.errorBodies?.[status]) }),
    };
  }
  const parameters = [
    ...pathParameters(route.path),
    ...queryParameters(operation.query),
    ...(operation.idempotent ? [idempotencyKeyHeader] : []),
  ];
  return {
    operationId: route.id,
    summary: route.summary,
    tags: [tagOf(route.path)],
    security: route.auth === 'api-key' ? [{ ApiKey: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: convert(operation.body, requestConfig),
                // What `Try it out` starts from: a body the route accepts as it stands.
                ...(operation.requestExample === undefined ? {} : { example: operation.requestExample }),
              },
            },
          },
        }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of every route of the manifest. */
export function openApiDocument(): OpenApiDocument {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes as readonly RouteDefinition[]) {
    const operation: Operation = operations[route.id as keyof typeof operations];
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = operationObject(route, operation);
  }
  const tags = Object.values(TAGS).filter((tag) => tag.description);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Individual Screening Service',
      version: INTERFACE_VERSION,
      description:
        'Screens individuals against sanctions lists, politically exposed persons and criminal records; stores every result as a screen analysts disposition; keeps registered clients under ongoing monitoring. Every error is JSON problem details (RFC 9457) with a stable `code` beside its `detail`. Generated from the service’s own validation and response schemas.',
    },
    servers: [{ url: '/', description: 'The service answering this document' }],
    tags,
    paths,
    webhooks: webhooksSection(),
    components: {
      headers: responseHeaders,
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description:
            'A user’s key, `isk_<tenant id>.<user id>.<43 characters>`; `npm start` prints demo keys.',
        },
      },
      schemas: toJsonSchemaDefs(namedSchemas, {
        target: 'draft-2020-12',
        errorMode: 'throw',
        overrideRef: responseConfig.overrideRef,
      }),
    },
  };
}

export type OpenApiDocument = v.InferOutput<typeof responses.OpenApiDocumentSchema>;

let built: OpenApiDocument | undefined;

/** The document, built once per process (it depends only on the code). */
export function servedOpenApiDocument(): OpenApiDocument {
  built ??= openApiDocument();
  return built;
}
