import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  DomainError,
  MethodNotAllowedError,
  ServiceStartingError,
  TooManyRequestsError,
} from '../common/errors.ts';
import type { Logger } from '../common/log.ts';

export const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' } as const;

/** A status-carrying error raised by middy's own middlewares (e.g. the JSON body parser). */
interface MiddyHttpError {
  statusCode: number;
  message: string;
  expose?: boolean;
}

function isMiddyHttpError(error: unknown): error is MiddyHttpError {
  return (
    typeof error === 'object' && error !== null && typeof (error as MiddyHttpError).statusCode === 'number'
  );
}

export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return { statusCode: status, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/** A response that is not JSON; bytes travel base64-encoded, as API Gateway payload v2 expects. */
export function contentResponse(
  status: number,
  content: string | Uint8Array,
  headers: Record<string, string>,
): APIGatewayProxyStructuredResultV2 {
  if (typeof content === 'string') return { statusCode: status, headers, body: content };
  return {
    statusCode: status,
    headers,
    body: Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('base64'),
    isBase64Encoded: true,
  };
}

/**
 * The one mapping from errors to responses: domain errors keep their status and detail; the
 * body parser's 422 for malformed JSON is a 400 here (the request body is invalid: docs/api-decisions.md#errors);
 * anything else is a 500 that names only the request id, so internals never leak.
 */
export function errorResponse(
  error: unknown,
  requestId: string,
  log: Logger,
): APIGatewayProxyStructuredResultV2 {
  if (error instanceof ServiceStartingError)
    return jsonResponse(
      error.status,
      { ...error.body, detail: error.detail },
      { 'retry-after': String(error.retryAfterSeconds) },
    );
  if (error instanceof DomainError) {
    const headers: Record<string, string> =
      error instanceof MethodNotAllowedError
        ? { allow: error.allow.join(', ') }
        : error instanceof TooManyRequestsError
          ? { 'retry-after': String(error.retryAfterSeconds) }
          : {};
    return jsonResponse(error.status, { detail: error.detail }, headers);
  }
  if (isMiddyHttpError(error) && error.statusCode < 500) {
    const detail =
      error.statusCode === 422
        ? 'Request body is not valid JSON'
        : error.expose
          ? error.message
          : 'Bad request';
    return jsonResponse(error.statusCode === 422 ? 400 : error.statusCode, { detail });
  }
  log.error({ err: error }, 'unhandled error');
  return jsonResponse(500, { detail: `Internal error; quote request id ${requestId} to support` });
}
