import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  ConflictError,
  DomainError,
  type ErrorCode,
  InvalidRequestError,
  MethodNotAllowedError,
  QuotaExceededError,
  ServiceStartingError,
  TooManyRequestsError,
} from '../common/errors.ts';
import type { Logger } from '../common/log.ts';
import { countMetric, METRIC } from '../common/metrics.ts';

export const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' } as const;

/** The media type of RFC 9457 problem details. */
export const PROBLEM_JSON = 'application/problem+json';

/**
 * The media type an error is served as: `application/problem+json` (RFC 9457), unless the
 * request's Accept asks for `application/json` and not for problem details, as clients of
 * interface 1.5.0 that check the type do: they keep their `application/json` (the body is the
 * same JSON either way, `detail` in it: docs/api-decisions.md#errors).
 */
export function problemContentType(accept: string | undefined): string {
  const accepted = new Set<string>();
  for (const range of (accept ?? '').split(',')) {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = Number(params.find((param) => param.startsWith('q='))?.slice(2) ?? '1');
    if (type && Number.isFinite(q) && q > 0) accepted.add(type);
  }
  const jsonOnly = accepted.has('application/json') && !accepted.has(PROBLEM_JSON);
  return `${jsonOnly ? 'application/json' : PROBLEM_JSON}; charset=utf-8`;
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

/** The HTTP status phrases an error body's `title` repeats (RFC 9457 with `type: about:blank`). */
const STATUS_TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/**
 * An error body: the problem details of RFC 9457 (`type` is `about:blank`, so `title` is the
 * status phrase; `instance` the path asked for) with the stable `code` beside the `detail` every
 * error has always carried (docs/api-decisions.md#errors).
 */
export function problemBody(
  status: number,
  code: ErrorCode,
  detail: string,
  instance: string | undefined,
): Record<string, unknown> {
  return {
    type: 'about:blank',
    title: STATUS_TITLES[status] ?? 'Error',
    status,
    code,
    detail,
    ...(instance ? { instance } : {}),
  };
}

/**
 * The one mapping from errors to responses: domain errors keep their status, code and detail (and
 * the fields a 409 adds, such as the existing client's id); anything else is a 500 that names only the request id, so internals never leak.
 */
export function errorResponse(
  error: unknown,
  requestId: string,
  log: Logger,
  instance?: string,
  accept?: string,
): APIGatewayProxyStructuredResultV2 {
  const mediaType = { 'content-type': problemContentType(accept) };
  if (error instanceof ServiceStartingError)
    return jsonResponse(
      error.status,
      // /health's own fields win: its contract's `status` is the word `starting`.
      { ...problemBody(error.status, error.code, error.detail, instance), ...error.body },
      { ...mediaType, 'retry-after': String(error.retryAfterSeconds) },
    );
  if (error instanceof DomainError) {
    if (error instanceof QuotaExceededError) countMetric(METRIC.quotaRefusals);
    const headers: Record<string, string> =
      error instanceof MethodNotAllowedError
        ? { allow: error.allow.join(', ') }
        : error instanceof TooManyRequestsError
          ? { 'retry-after': String(error.retryAfterSeconds) }
          : {};
    const extra = error instanceof ConflictError ? error.body : {};
    // A 400 a schema found names each field and rule beside the detail that lists them in words.
    const fields =
      error instanceof InvalidRequestError && error.fields.length > 0 ? { errors: error.fields } : {};
    return jsonResponse(
      error.status,
      { ...extra, ...problemBody(error.status, error.code, error.detail, instance), ...fields },
      { ...mediaType, ...headers },
    );
  }
  log.error({ err: error }, 'unhandled error');
  return jsonResponse(
    500,
    problemBody(500, 'internal_error', `Internal error; quote request id ${requestId} to support`, instance),
    mediaType,
  );
}
