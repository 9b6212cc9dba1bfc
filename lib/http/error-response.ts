import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  ConflictError,
  DomainError,
  MethodNotAllowedError,
  ServiceStartingError,
  TooManyRequestsError,
} from '../common/errors.ts';
import type { Logger } from '../common/log.ts';

export const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' } as const;

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
 * The one mapping from errors to responses: domain errors keep their status and detail (and the
 * fields a 409 or a 503 adds, such as the existing client's id); anything else is a 500 that names
 * only the request id, so internals never leak.
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
    const extra = error instanceof ConflictError ? error.body : {};
    return jsonResponse(error.status, { ...extra, detail: error.detail }, headers);
  }
  log.error({ err: error }, 'unhandled error');
  return jsonResponse(500, { detail: `Internal error; quote request id ${requestId} to support` });
}
