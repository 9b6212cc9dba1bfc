import { Readable } from 'node:stream';
import type { MiddlewareObj } from '@middy/core';
import middy from '@middy/core';
import { executionModeStreamifyResponse } from '@middy/core/StreamifyResponse';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { MethodNotAllowedError } from '../errors.ts';
import { bodyLimit } from '../http/body-limit.ts';
import { errorResponse } from '../http/error-response.ts';
import { jsonBody } from '../http/json-body.ts';
import { type Logger, logger } from '../log.ts';
import { getServices } from '../runtime/services.ts';
import { authenticate, type Principal, requireBatchPlan } from '../tenancy/auth.ts';
import { batchEvents, type ProgressStreamOptions } from './progress-stream.ts';
import { validateBatchRequest } from './request.ts';
import { startBatch } from './start-batch.ts';

type StreamEvent = APIGatewayProxyEventV2 & { principal?: Principal; log?: Logger };

/** What the streaming handler returns: middy writes the status and headers, then pipes `body`. */
type StreamResult = Omit<APIGatewayProxyStructuredResultV2, 'body'> & { body: Readable | string };

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // nginx-style proxies buffer responses unless told not to; the events must arrive as they happen.
  'x-accel-buffering': 'no',
} as const;

/**
 * Request id, one log line per request, and the error mapping of every other route: a failure
 * before the stream starts (401, 403, 400, 413, 429) is a plain JSON `{detail}` response.
 */
function streamFrame(): MiddlewareObj<StreamEvent, StreamResult> {
  const requestId = (event: StreamEvent) => event.requestContext?.requestId ?? 'unknown';
  return {
    before: ({ event }) => {
      event.log = logger.child({ requestId: requestId(event) });
    },
    after: (request) => {
      if (request.response) {
        request.response.headers = { ...request.response.headers, 'x-request-id': requestId(request.event) };
      }
    },
    onError: (request) => {
      const { event } = request;
      const response = errorResponse(request.error, requestId(event), event.log ?? logger);
      request.response = {
        ...response,
        body: response.body ?? '',
        headers: { ...response.headers, 'x-request-id': requestId(event) },
      };
      (event.log ?? logger).info(
        { route: event.routeKey, status: response.statusCode, tenant: event.principal?.tenantId },
        'request',
      );
    },
  };
}

/**
 * A Function URL takes every method and CloudFront routes by path alone, so the stream checks
 * the method itself: anything but POST is a 405, as API Gateway's routes give elsewhere.
 */
function postOnly(): MiddlewareObj<StreamEvent, StreamResult> {
  return {
    before: ({ event }) => {
      const method = event.requestContext?.http?.method?.toUpperCase();
      if (method && method !== 'POST') {
        throw new MethodNotAllowedError(
          `Method ${method} is not allowed on ${event.rawPath}; allowed: POST`,
          ['POST'],
        );
      }
    },
  };
}

function apiKeyAuth(): MiddlewareObj<StreamEvent, StreamResult> {
  return {
    before: async ({ event }) => {
      event.principal = await authenticate(getServices().table, event.headers?.['x-api-key']);
    },
  };
}

/**
 * The handler of POST /batch/stream, a Lambda response-streaming function behind a Function URL
 * (locally the same handler behind infra/local/stream-server.ts). Authenticates X-API-Key with
 * the shared tenancy code, requires a batch plan, validates every subject, charges the whole batch
 * and queues it before the first byte of the stream; then streams progress as the workers finish.
 * A client that disconnects stops only the stream: the queued subjects are still screened.
 */
export function batchStreamHandler(streamOptions: ProgressStreamOptions = {}) {
  return middy<StreamEvent, StreamResult, Error, Context>({ executionMode: executionModeStreamifyResponse })
    .use(streamFrame())
    .use(postOnly())
    .use(bodyLimit() as MiddlewareObj<StreamEvent, StreamResult>)
    .use(apiKeyAuth())
    .use(jsonBody() as MiddlewareObj<StreamEvent, StreamResult>)
    .handler(async (event, context) => {
      const principal = event.principal as Principal;
      const log = event.log ?? logger;
      requireBatchPlan(principal);
      const request = validateBatchRequest(event.body);
      const services = getServices();
      const batch = await startBatch(services, principal, request, log);
      const started = Date.now();
      log.info(
        { route: event.routeKey, status: 200, tenant: principal.tenantId, batchId: batch.batchId },
        'request',
      );

      async function* logged() {
        let finished = false;
        try {
          yield* batchEvents(services.table, batch, {
            remainingMs: () => context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY,
            ...streamOptions,
          });
          finished = true;
        } finally {
          // A disconnect ends the stream early; the subjects are screened all the same.
          log.info(
            {
              tenant: batch.tenantId,
              batchId: batch.batchId,
              ms: Date.now() - started,
              clientStayed: finished,
            },
            'batch stream ended',
          );
        }
      }
      return {
        statusCode: 200,
        headers: { ...SSE_HEADERS },
        body: Readable.from(logged(), { objectMode: false }),
      };
    });
}
