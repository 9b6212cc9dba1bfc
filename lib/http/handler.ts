import type { MiddlewareObj } from '@middy/core';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as v from 'valibot';
import { type Logger, logger } from '../log.ts';
import { getServices, type Services } from '../runtime/services.ts';
import { authenticate, type Principal } from '../tenancy/auth.ts';
import { bodyLimit } from './body-limit.ts';
import { errorResponse, jsonResponse } from './error-response.ts';
import { jsonBody } from './json-body.ts';
import { validate } from './validation.ts';

/** What a use-case handler receives: validated input and who is calling. */
export interface HttpRequest<TBody, TQuery, TPrincipal> {
  body: TBody;
  query: TQuery;
  params: Record<string, string>;
  principal: TPrincipal;
  apiKey: string;
  requestId: string;
  services: Services;
  log: Logger;
  event: APIGatewayProxyEventV2;
}

export interface HttpResult {
  status?: number;
  body: unknown;
}

interface HandlerSpec<
  TBodySchema extends v.GenericSchema | undefined,
  TQuerySchema extends v.GenericSchema | undefined,
> {
  /** Default true: every endpoint but /health authenticates X-API-Key. */
  auth?: boolean;
  body?: TBodySchema;
  query?: TQuerySchema;
}

type Output<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

type ServiceEvent = APIGatewayProxyEventV2 & { principal?: Principal; log?: Logger };

/** Request id in every response and log line; one structured log line per request. */
function requestFrame(): MiddlewareObj<ServiceEvent, APIGatewayProxyStructuredResultV2> {
  const started = new WeakMap<object, number>();
  const finish = (request: { event: ServiceEvent; response?: APIGatewayProxyStructuredResultV2 | null }) => {
    const { event } = request;
    const requestId = event.requestContext.requestId;
    if (request.response) {
      request.response.headers = { ...request.response.headers, 'x-request-id': requestId };
    }
    (event.log ?? logger).info(
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
      request.event.log = logger.child({ requestId: request.event.requestContext.requestId });
    },
    after: finish,
    onError: (request) => {
      const { event } = request;
      request.response = errorResponse(request.error, event.requestContext.requestId, event.log ?? logger);
      finish(request);
    },
  };
}

/** Authenticates X-API-Key with the shared tenancy code and attaches the principal. */
function apiKeyAuth(): MiddlewareObj<ServiceEvent> {
  return {
    before: async ({ event }) => {
      event.principal = await authenticate(getServices().table, event.headers?.['x-api-key']);
    },
  };
}

/**
 * Builds a Lambda handler for an HTTP API route: request frame (id, log, error mapping), body size
 * limit, JSON parsing, API-key auth, valibot validation, then the use case; its result is JSON.
 */
export function httpHandler<
  TBodySchema extends v.GenericSchema | undefined = undefined,
  TQuerySchema extends v.GenericSchema | undefined = undefined,
  TAuth extends boolean = true,
>(
  spec: HandlerSpec<TBodySchema, TQuerySchema> & { auth?: TAuth },
  useCase: (
    request: HttpRequest<
      Output<TBodySchema>,
      Output<TQuerySchema>,
      TAuth extends false ? undefined : Principal
    >,
  ) => Promise<HttpResult> | HttpResult,
) {
  const chain = middy<ServiceEvent, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(requestFrame())
    .use(bodyLimit());
  if (spec.body) chain.use(jsonBody());
  if (spec.auth !== false) chain.use(apiKeyAuth());
  return chain.handler(async (event) => {
    const body = spec.body ? validate(spec.body, event.body, 'body') : undefined;
    const query = spec.query ? validate(spec.query, event.queryStringParameters ?? {}, 'query') : undefined;
    const result = await useCase({
      body: body as Output<TBodySchema>,
      query: query as Output<TQuerySchema>,
      params: (event.pathParameters ?? {}) as Record<string, string>,
      principal: event.principal as TAuth extends false ? undefined : Principal,
      apiKey: event.headers?.['x-api-key'] ?? '',
      requestId: event.requestContext.requestId,
      services: getServices(),
      log: event.log ?? logger,
      event,
    });
    return jsonResponse(result.status ?? 200, result.body);
  });
}
