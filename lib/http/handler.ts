import { Readable } from 'node:stream';
import type { MiddlewareObj } from '@middy/core';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as v from 'valibot';
import { InvalidRequestError, MethodNotAllowedError, NotFoundError } from '../common/errors.ts';
import { type Logger, logger, loggingAs } from '../common/log.ts';
import { validate } from '../common/validation.ts';
import { type Operation, type Operations, operations } from '../contract/operations.ts';
import {
  type HandlerRoute,
  type RouteAuth,
  type RouteDefinition,
  type RouteId,
  routeById,
} from '../contract/routes.ts';
import type { Services } from '../ports.ts';
import { API_KEY_HEADER } from '../tenancy/api-keys.ts';
import { authenticate, type Principal, requirePlanFeature } from '../tenancy/auth.ts';
import { countRequest, releaseStreamSlot, type StreamSlot, takeStreamSlot } from '../tenancy/limits.ts';
import { recordingUsage, type UsageSeen } from '../tenancy/quota.ts';
import { bodyLimit } from './body-limit.ts';
import { contentResponse, errorResponse, jsonResponse } from './error-response.ts';
import { type IdempotencyOptions, idempotencyKeyOf, idempotent } from './idempotency.ts';
import { jsonBody } from './json-body.ts';
import { originVerify } from './origin-verify.ts';
import { quotaHeaders } from './quota-headers.ts';
import { requestIdFor } from './request-id.ts';
import { matchRoutePath } from './route-match.ts';
import { frameSse, SSE_HEADERS, type SseMessage } from './sse.ts';

/**
 * The one request pipeline of the service. Every route, buffered (API Gateway) or streamed (a
 * response-streaming Function URL), goes through the same steps, configured by its entry in the
 * route manifest (lib/contract/routes.ts): request id, quota headers and log line, error mapping,
 * the CloudFront origin check (origin-verify.ts), method check (stream
 * routes only: CloudFront routes by path), body size limit, API-key authentication, plan gate,
 * JSON parsing and valibot validation. Only the last step differs: a JSON body, or an SSE stream.
 */

/** What a use case receives: validated input and who is calling. */
export interface HttpRequest<TBody, TQuery, TPrincipal> {
  body: TBody;
  query: TQuery;
  params: Record<string, string>;
  principal: TPrincipal;
  apiKey: string;
  /**
   * The request's Idempotency-Key (lib/http/idempotency.ts), read only on routes whose contract
   * declares `idempotent` (so the document and the code agree on where it works); else undefined.
   */
  idempotencyKey: string | undefined;
  /**
   * Runs `useCase` at most once per Idempotency-Key (lib/http/idempotency.ts), in the scope the
   * pipeline builds: the caller's tenant, this route and the validated body. Without a key (or
   * on a route whose contract does not declare `idempotent`) it simply runs it.
   */
  once<T>(useCase: () => Promise<T>, options?: IdempotencyOptions<T>): Promise<T>;
  requestId: string;
  services: Services;
  log: Logger;
  event: APIGatewayProxyEventV2;
}

/** What a use case answers: the route's success status (200 unless it declares another) and body. */
export interface HttpResult {
  status?: number;
  body: unknown;
}

/**
 * A response that is not JSON (the API reference page and its files), sent with its own headers
 * (`content-type` included). Errors on such a route are still the JSON `{ detail }` of every route.
 */
export interface ContentResult {
  status?: number;
  headers: Record<string, string>;
  /** Text is sent as it is; bytes are base64-encoded with `isBase64Encoded`, as API Gateway expects. */
  content: string | Uint8Array;
}

/**
 * The result a route's use case must return, from its contract (lib/contract/operations.ts): the
 * declared success status, and a body of the input type of the declared response schema. A use case
 * answering a shape the OpenAPI document does not describe fails the type check. A route whose
 * contract declares media types other than JSON (the reference page) or a file of records (a
 * batch's results) answers a ContentResult.
 */
type ResultOf<TRoute> = TRoute extends keyof Operations
  ? Operations[TRoute]['success'] extends
      | { mediaTypes: readonly string[] }
      | { exportRecords: Readonly<Record<string, v.GenericSchema>> }
    ? ContentResult
    : Operations[TRoute]['success'] extends { status: infer TStatus; schema: infer TSchema }
      ? (TStatus extends 200 ? { status?: 200 } : { status: TStatus }) & {
          body: TSchema extends v.GenericSchema ? v.InferInput<TSchema> : undefined;
        }
      : never
  : HttpResult;

/** The request body and query schemas a route's contract declares (none for the fallback). */
type BodySchemaOf<TRoute> = TRoute extends keyof Operations
  ? Operations[TRoute] extends { body: infer TSchema extends v.GenericSchema }
    ? TSchema
    : undefined
  : undefined;
type QuerySchemaOf<TRoute> = TRoute extends keyof Operations
  ? Operations[TRoute] extends { query: infer TSchema extends v.GenericSchema }
    ? TSchema
    : undefined
  : undefined;

/**
 * A streamed response: the status line and headers, then each group of `events` as it comes,
 * framed as Server-Sent Events (sse.ts), one chunk per group; or, for a download in another
 * format (the NDJSON and CSV exports), each chunk of `text` as it is, under the use case's own
 * content type.
 */
export type StreamResult =
  | { headers?: Record<string, string>; events: AsyncIterable<readonly SseMessage[]> }
  | { headers: Record<string, string> & { 'content-type': string }; text: AsyncIterable<string> };

/** The schemas a request is validated with: its route's contract's (lib/contract/operations.ts). */
interface InputSpec {
  body?: v.GenericSchema;
  query?: v.GenericSchema;
  idempotent?: boolean;
}

const inputOf = (route: RouteId | HandlerRoute): InputSpec =>
  typeof route === 'string' ? (operations[route] as Operation) : {};

type Output<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

type ServiceEvent = APIGatewayProxyEventV2 & {
  principal?: Principal;
  log?: Logger;
  requestId?: string;
  /** Usage counts the request read or wrote, so its quota headers need no read of their own. */
  usageSeen?: UsageSeen;
};

/** What middy writes: a buffered JSON result, or (streamed routes) a body piped as it is read. */
type PipelineResult = Omit<APIGatewayProxyStructuredResultV2, 'body'> & { body?: string | Readable };

type UseCase<TBodySchema, TQuerySchema, TAuth extends HandlerRoute['auth'], TResult> = (
  request: HttpRequest<
    Output<TBodySchema>,
    Output<TQuerySchema>,
    TAuth extends 'none' ? undefined : Principal
  >,
  context: Context,
) => Promise<TResult> | TResult;

/** The caller's well-formed `X-Request-Id`, else API Gateway's id for the request (request-id.ts). */
const requestIdOf = (event: ServiceEvent) =>
  (event.requestId ??= requestIdFor(event.headers, event.requestContext?.requestId));

/**
 * Request id in every response, log line and 500 body; the tenant's quota on every response to an
 * authenticated caller; one structured log line per request; error mapping.
 */
function requestFrame(services: () => Services): MiddlewareObj<ServiceEvent, PipelineResult> {
  const started = new WeakMap<object, number>();
  const finish = async (request: { event: ServiceEvent; response?: PipelineResult | null }) => {
    const { event } = request;
    const log = event.log ?? logger;
    if (request.response) {
      let quota: Record<string, string> = {};
      if (event.principal) {
        try {
          quota = await quotaHeaders(services().table, event.principal, event.usageSeen ?? new Map());
        } catch (error) {
          // The answer (often already an error about the store) matters more than its quota headers.
          log.warn({ err: error }, 'quota headers unavailable');
        }
      }
      request.response.headers = {
        ...request.response.headers,
        ...quota,
        'x-request-id': requestIdOf(event),
      };
    }
    log.info(
      {
        route: event.routeKey,
        status: request.response?.statusCode,
        tenant: event.principal?.tenantId,
        ms: Date.now() - (started.get(event) ?? Date.now()),
      },
      'request',
    );
  };
  return {
    before: (request) => {
      started.set(request.event, Date.now());
      request.event.usageSeen = new Map();
      request.event.log = logger.child({ requestId: requestIdOf(request.event) });
    },
    after: finish,
    onError: async (request) => {
      const { event } = request;
      request.response = errorResponse(
        request.error,
        requestIdOf(event),
        event.log ?? logger,
        event.rawPath,
        event.headers?.accept,
      );
      await finish(request);
    },
  };
}

/**
 * A Function URL takes every method and path, and CloudFront routes by a path pattern, so a
 * streamed route checks both itself: another path (such as a trailing slash) is the 404 and
 * another method the 405 that API Gateway's exact routes give elsewhere.
 */
function methodGuard(route: HandlerRoute): MiddlewareObj<ServiceEvent, PipelineResult> {
  return {
    before: ({ event }) => {
      if (route.path && event.rawPath) {
        const params = matchRoutePath(route as RouteDefinition, event.rawPath);
        if (!params) {
          throw new NotFoundError(
            `No route ${event.requestContext?.http?.method?.toUpperCase() ?? 'GET'} ${event.rawPath}`,
          );
        }
        if (Object.keys(params).length > 0) event.pathParameters = { ...event.pathParameters, ...params };
      }
      const method = event.requestContext?.http?.method?.toUpperCase();
      if (method && route.method && method !== route.method) {
        throw new MethodNotAllowedError(
          `Method ${method} is not allowed on ${event.rawPath}; allowed: ${route.method}`,
          [route.method],
        );
      }
    },
  };
}

/** Authenticates X-API-Key with the shared tenancy code and attaches the principal. */
function apiKeyAuth(services: () => Services): MiddlewareObj<ServiceEvent, PipelineResult> {
  return {
    before: async ({ event }) => {
      event.principal = await authenticate(services().table, event.headers?.[API_KEY_HEADER]);
    },
  };
}

/**
 * The tenant's request rate (lib/tenancy/limits.ts): one conditional write per authenticated
 * request, before anything else the request does; over the plan's rate, 429 with Retry-After.
 */
function requestRate(services: () => Services): MiddlewareObj<ServiceEvent, PipelineResult> {
  return {
    before: async ({ event }) => {
      const principal = event.principal as Principal;
      await countRequest(services().table, principal.tenantId, principal.plan);
    },
  };
}

/** The route's plan feature (batch routes: Growth or higher); the 403 names the plan needed. */
function planGate(
  feature: NonNullable<HandlerRoute['planFeature']>,
): MiddlewareObj<ServiceEvent, PipelineResult> {
  return {
    before: ({ event }) => {
      requirePlanFeature(event.principal as Principal, feature);
    },
  };
}

function pipeline(services: () => Services, route: HandlerRoute, parsesBody: boolean, streamed: boolean) {
  const chain = middy<ServiceEvent, PipelineResult, Error, Context>(
    streamed ? { streamifyResponse: true } : {},
  ).use(requestFrame(services));
  // Before anything else: a request that went around CloudFront (and its WAF) gets no further.
  chain.use(originVerify() as MiddlewareObj<ServiceEvent, PipelineResult>);
  if (route.kind === 'stream') chain.use(methodGuard(route));
  chain.use(bodyLimit() as MiddlewareObj<ServiceEvent, PipelineResult>);
  if (route.auth === 'api-key') chain.use(apiKeyAuth(services)).use(requestRate(services));
  if (route.planFeature) chain.use(planGate(route.planFeature));
  if (parsesBody) chain.use(jsonBody() as MiddlewareObj<ServiceEvent, PipelineResult>);
  return chain;
}

function requestOf<TBody, TQuery, TPrincipal>(
  services: Services,
  event: ServiceEvent,
  spec: InputSpec,
  route: HandlerRoute,
): HttpRequest<TBody, TQuery, TPrincipal> {
  const body = spec.body ? validate(spec.body, event.body, 'body') : undefined;
  refuseUnknownQueryParameters(spec.query, event.queryStringParameters);
  const query = spec.query ? validate(spec.query, event.queryStringParameters ?? {}, 'query') : undefined;
  const idempotencyKey = spec.idempotent ? idempotencyKeyOf(event.headers) : undefined;
  const tenantId = event.principal?.tenantId;
  return {
    body: body as TBody,
    query: query as TQuery,
    params: (event.pathParameters ?? {}) as Record<string, string>,
    principal: event.principal as TPrincipal,
    apiKey: event.headers?.[API_KEY_HEADER] ?? '',
    idempotencyKey,
    once: async (useCase, options) =>
      tenantId === undefined
        ? useCase()
        : (
            await idempotent(
              services.table,
              { tenantId, route: route.id, key: idempotencyKey, body },
              useCase,
              options,
            )
          ).result,
    requestId: requestIdOf(event),
    services,
    log: event.log ?? logger,
    event,
  };
}

/**
 * A query parameter the route's contract does not declare is a 400 naming it, on every route: a
 * misspelt filter (`risk=HIGH` for `risk_level=HIGH`) would otherwise answer an unfiltered page
 * that looks like a filtered one.
 */
function refuseUnknownQueryParameters(
  schema: v.GenericSchema | undefined,
  query: Record<string, string | undefined> | undefined,
): void {
  const allowed = schema && 'entries' in schema ? Object.keys(schema.entries as v.ObjectEntries) : [];
  const unknown = Object.keys(query ?? {}).filter((name) => !allowed.includes(name));
  if (unknown.length === 0) return;
  const takes = allowed.length > 0 ? `it takes ${allowed.join(', ')}` : 'it takes none';
  throw new InvalidRequestError(
    `${unknown.slice(0, 5).join(', ')}: ${unknown.length === 1 ? 'is not a query parameter' : 'are not query parameters'} of this route (${takes})`,
    'unknown_query_parameter',
  );
}

const routeOf = (route: RouteId | HandlerRoute): HandlerRoute =>
  typeof route === 'string' ? routeById(route) : route;

/** The route's authentication as the type checker knows it: a use case behind a key gets a principal. */
type AuthOf<TRoute> = TRoute extends RouteId
  ? RouteAuth<TRoute>
  : TRoute extends HandlerRoute
    ? TRoute['auth']
    : never;

/**
 * The Lambda handler of a buffered route (API Gateway HTTP API, payload v2): the pipeline, then
 * the use case; its result is the JSON response. `route` is the manifest id (or, for the
 * `$default` fallback, its definition); the route's contract gives the schemas its body and query
 * are validated with and the type of its result.
 */
function httpHandler<const TRoute extends RouteId | HandlerRoute>(
  route: TRoute,
  useCase: UseCase<BodySchemaOf<TRoute>, QuerySchemaOf<TRoute>, AuthOf<TRoute>, ResultOf<TRoute>>,
  services: () => Services,
) {
  const definition = routeOf(route);
  const spec = inputOf(route);
  const handler = pipeline(services, definition, Boolean(spec.body), false).handler(
    async (event, context) => {
      const result = await recordingUsage(event.usageSeen ?? new Map(), () =>
        useCase(requestOf(services(), event, spec, definition), context),
      );
      if ('content' in result) return contentResponse(result.status ?? 200, result.content, result.headers);
      return jsonResponse((result as HttpResult).status ?? 200, result.body);
    },
  );
  // Called (event, context).
  return inRequest(handler, 1);
}

/**
 * The whole pipeline run as part of its request (lib/common/log.ts `loggingAs`): every line
 * logged while it runs, by the middlewares (origin check, authentication, rate, quota headers,
 * the 500's log), the use case or the module logger deep in lib/, carries the request id and
 * Lambda's own request id, so one id finds every line of a request.
 */
function inRequest<TArgs extends unknown[], TResult>(
  handler: (...args: TArgs) => TResult,
  contextAt: number,
): (...args: TArgs) => TResult {
  return (...args: TArgs) => {
    const event = args[0] as ServiceEvent;
    const context = args[contextAt] as Context | undefined;
    return loggingAs(requestIdOf(event), () => handler(...args), context?.awsRequestId);
  };
}

/**
 * The Lambda handler of a streamed route (a Function URL with InvokeMode RESPONSE_STREAM): the
 * same pipeline, so a failure before the first byte (401, 403, 400, 413, 429) is the same JSON
 * `{detail}` response as on every other route; then the use case's events are written as they
 * are produced.
 */
function streamHandler<const TRoute extends RouteId>(
  route: TRoute,
  useCase: UseCase<BodySchemaOf<TRoute>, QuerySchemaOf<TRoute>, 'api-key', StreamResult>,
  services: () => Services,
) {
  const definition = routeOf(route);
  const spec = inputOf(route);
  const handler = pipeline(services, definition, true, true).handler(async (event, context) => {
    const requestId = requestIdOf(event);
    // Validated first, so a 400 never takes one of the tenant's stream slots.
    const request = requestOf<Output<BodySchemaOf<TRoute>>, Output<QuerySchemaOf<TRoute>>, Principal>(
      services(),
      event,
      spec,
      definition,
    );
    const slot = await openStream(services().table, request.principal, definition.id);
    let result: StreamResult;
    try {
      result = await recordingUsage(event.usageSeen ?? new Map(), () => useCase(request, context));
    } catch (error) {
      await slot.release();
      throw error;
    }
    const chunks = 'text' in result ? result.text : framedSse(result.events);
    const body = Readable.from(chunksLoggedAs(requestId, chunks), { objectMode: false });
    // Ended, failed or dropped by the client: a readable closes once in every case.
    body.once('close', () => {
      slot.release().catch((error) => request.log.warn({ err: error }, 'stream slot not released'));
    });
    return {
      statusCode: 200,
      headers: 'text' in result ? result.headers : { ...SSE_HEADERS, ...result.headers },
      body,
    };
  });
  // A response-streaming handler is called (event, responseStream, context), and the runtime
  // recognises it by the mark `awslambda.streamifyResponse` sets (middy set it on its own).
  const streaming = inRequest(handler, 2);
  const runtime = (globalThis as { awslambda?: { streamifyResponse?: <T>(handler: T) => T } }).awslambda;
  return runtime?.streamifyResponse ? runtime.streamifyResponse(streaming) : streaming;
}

/**
 * The pipeline bound to the adapters a request uses. Only the composition root calls this
 * (lib/runtime/handlers.ts), so the pipeline never reaches up to the root that builds them.
 */
export function pipelineOf(services: () => Services) {
  return {
    httpHandler: <const TRoute extends RouteId | HandlerRoute>(
      route: TRoute,
      useCase: UseCase<BodySchemaOf<TRoute>, QuerySchemaOf<TRoute>, AuthOf<TRoute>, ResultOf<TRoute>>,
    ) => httpHandler(route, useCase, services),
    streamHandler: <const TRoute extends RouteId>(
      route: TRoute,
      useCase: UseCase<BodySchemaOf<TRoute>, QuerySchemaOf<TRoute>, 'api-key', StreamResult>,
    ) => streamHandler(route, useCase, services),
  };
}

/**
 * Takes one of the tenant's open-stream slots (lib/tenancy/limits.ts) for this response; its
 * `release` gives it back once, however many times it is called (the slot's lease covers a
 * process that dies first).
 */
async function openStream(table: Services['table'], principal: Principal, route: string) {
  const slot: StreamSlot = await takeStreamSlot(table, principal.tenantId, principal.plan, route);
  let released: Promise<void> | undefined;
  return { release: () => (released ??= releaseStreamSlot(table, slot)) };
}

/** Each group of events framed as Server-Sent Events, one chunk per group. */
async function* framedSse(events: AsyncIterable<readonly SseMessage[]>): AsyncGenerator<string> {
  for await (const group of events) yield frameSse(group);
}

/** The stream's chunks, each produced as part of the request (its log lines carry its id). */
async function* chunksLoggedAs(requestId: string, chunks: AsyncIterable<string>): AsyncGenerator<string> {
  const iterator = chunks[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await loggingAs(requestId, () => iterator.next());
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // A client that disconnects ends the stream early: let the use case's generator clean up.
    await loggingAs(requestId, async () => iterator.return?.());
  }
}
