/**
 * The one error hierarchy of the service. `lib/` throws these; the HTTP error middleware maps
 * each to its status code and a problem-details body (RFC 9457: `type`, `title`, `status`,
 * `detail`, `instance`, plus the stable `code` below) in one place. Anything else becomes a 500
 * whose body never carries internals.
 */

/**
 * Every machine-readable `code` an error body can carry, with its status and when it is
 * answered: a client branches on `code` (stable, never reworded), a person reads `detail` (which
 * names the field or the record, and may be reworded). docs/api-guide.md#error-codes lists the
 * same; the OpenAPI document's ErrorBody enumerates them; test/common/error-codes.test.ts holds
 * the three together.
 */
export const ERROR_CODES = {
  invalid_request: {
    status: 400,
    when: 'A body field or query parameter breaks a rule; the detail names it',
  },
  invalid_json: { status: 400, when: 'The request body is not valid JSON' },
  unknown_query_parameter: {
    status: 400,
    when: 'A query parameter the route does not take (a misspelt filter would otherwise be ignored)',
  },
  invalid_cursor: {
    status: 400,
    when: 'A cursor this list did not issue (another list, tenant or an altered one)',
  },
  unauthorized: { status: 401, when: 'X-API-Key is missing, unknown, revoked or its user disabled' },
  forbidden: {
    status: 403,
    when: 'The caller’s role may not do this, or the request did not come through the service’s front door',
  },
  plan_feature_required: {
    status: 403,
    when: 'The tenant’s plan does not include the feature (batch screening)',
  },
  four_eyes_required: {
    status: 403,
    when: 'An approval by the admin who made the decision, or who shares its key lineage: another admin must approve',
  },
  retention_locked: {
    status: 403,
    when: 'The retention lock keeps the record until its retention period ends',
  },
  not_found: { status: 404, when: 'No such record in the caller’s tenant, or no such route' },
  method_not_allowed: {
    status: 405,
    when: 'The path exists, not with this method; the Allow header lists those it takes',
  },
  conflict: {
    status: 409,
    when: 'The record is in another state than the request assumes; the detail says which',
  },
  already_disposed: {
    status: 409,
    when: 'The screen already has a disposition: send `override: true` to replace it',
  },
  client_exists: {
    status: 409,
    when: 'An active client already monitors this person (or this reference); `existing_client_id` names it',
  },
  idempotency_in_progress: {
    status: 409,
    when: 'A request with this Idempotency-Key is still running; retry shortly',
  },
  gone: { status: 410, when: 'What the request needs existed once and is no longer kept' },
  payload_too_large: { status: 413, when: 'The body is larger than the route accepts' },
  idempotency_key_reused: { status: 422, when: 'An Idempotency-Key already used with a different body' },
  quota_exceeded: { status: 429, when: 'The month’s screen limit is reached; nothing was charged' },
  rate_limited: {
    status: 429,
    when: 'The tenant is over its plan’s request rate; retry after Retry-After seconds',
  },
  stream_limit: {
    status: 429,
    when: 'The tenant has its plan’s number of streamed responses open; retry when one ends',
  },
  internal_error: {
    status: 500,
    when: 'An internal error; the detail names the request id to quote to support',
  },
  service_starting: {
    status: 503,
    when: 'The service is still loading the watchlists; retry after Retry-After seconds',
  },
} as const satisfies Record<string, { status: number; when: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export abstract class DomainError extends Error {
  abstract readonly status: number;
  /** The class's code; a throw site may name a more particular one. */
  protected abstract readonly defaultCode: ErrorCode;
  constructor(
    readonly detail: string,
    private readonly particularCode?: ErrorCode,
  ) {
    super(detail);
    this.name = new.target.name;
  }
  /** The stable, machine-readable code of the error body (ERROR_CODES). */
  get code(): ErrorCode {
    return this.particularCode ?? this.defaultCode;
  }
  /**
   * The refused request's screen is stored and in use, so its charge stands and is not given
   * back: a client registration that lost the race to a registration of the same person whose
   * client took that very screen (lib/monitoring/register-client.ts).
   */
  chargeStands = false;
}

/**
 * One broken rule of a 400, machine-readable beside the `detail` that lists them in words:
 * `field` is the path (`subjects[3].name`, `limit`), `code` the rule (`required`, `unknown_field`,
 * `min_length`, `max_length`, `regex`, `picklist`, `check`, ... as valibot names it) and `message`
 * what the detail says of it.
 */
export interface FieldProblem {
  field: string;
  code: string;
  message: string;
}

export class InvalidRequestError extends DomainError {
  readonly status = 400;
  protected readonly defaultCode = 'invalid_request';
  constructor(
    detail: string,
    code?: ErrorCode,
    /** The fields and rules the request broke, when a schema found them (lib/common/validation.ts). */
    readonly fields: readonly FieldProblem[] = [],
  ) {
    super(detail, code);
  }
}

/** One wording for every authentication failure: a 401 never says whether a key ever existed. */
export class UnauthorizedError extends DomainError {
  readonly status = 401;
  protected readonly defaultCode = 'unauthorized';
  constructor() {
    super('Missing or invalid API key. Send a valid key in the X-API-Key header.');
  }
}

export class ForbiddenError extends DomainError {
  readonly status = 403;
  protected readonly defaultCode = 'forbidden';
}

export class NotFoundError extends DomainError {
  readonly status = 404;
  protected readonly defaultCode = 'not_found';
}

export class MethodNotAllowedError extends DomainError {
  readonly status = 405;
  protected readonly defaultCode = 'method_not_allowed';
  constructor(
    detail: string,
    readonly allow: readonly string[],
  ) {
    super(detail);
  }
}

/**
 * A conditional write found the item in another state; carries what it found where useful, and
 * `body`: fields the 409's body adds beside `detail` (e.g. `existing_client_id`).
 */
export class ConflictError extends DomainError {
  readonly status = 409;
  protected readonly defaultCode = 'conflict';
  constructor(
    detail: string,
    readonly existing?: unknown,
    code?: ErrorCode,
    readonly body: Readonly<Record<string, unknown>> = {},
  ) {
    super(detail, code);
  }
}

/** What the request needs existed once and is no longer kept (a snapshot version past its retention). */
export class GoneError extends DomainError {
  readonly status = 410;
  protected readonly defaultCode = 'gone';
}

/** The request is well-formed but cannot be honoured as sent (an Idempotency-Key reused with another body). */
export class UnprocessableError extends DomainError {
  readonly status = 422;
  protected readonly defaultCode = 'idempotency_key_reused';
}

export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
  protected readonly defaultCode = 'payload_too_large';
}

export class QuotaExceededError extends DomainError {
  readonly status = 429;
  protected readonly defaultCode = 'quota_exceeded';
  /** `batchSize`: a batch is refused whole, so its detail says how many it needed and how many remain. */
  constructor(
    readonly used: number,
    readonly allowed: number,
    readonly batchSize?: number,
  ) {
    const batch =
      batchSize === undefined
        ? ''
        : `; this batch of ${batchSize} subject${batchSize === 1 ? '' : 's'} needs ${batchSize} and ${Math.max(0, allowed - used)} remain`;
    super(
      `Monthly screen limit reached: ${used}/${allowed} screens used this month${batch}. Upgrade your plan to screen more.`,
    );
  }
}

/**
 * The process cannot serve the request yet (the local server still compiling or indexing the
 * watchlists): 503 with `Retry-After`. `body` adds fields to the `detail` (/health says what is
 * loading).
 */
export class ServiceStartingError extends DomainError {
  readonly status = 503;
  protected readonly defaultCode = 'service_starting';
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
    readonly body: Readonly<Record<string, unknown>> = {},
  ) {
    super(detail);
  }
}

/**
 * A fair-use limit between tenants (lib/tenancy/limits.ts), not the monthly quota: the request is
 * refused before it does anything, and may be sent again after `retryAfterSeconds` (the
 * `Retry-After` header). The detail never speaks of the month's screens, so a client can tell
 * the two 429s apart.
 */
export class TooManyRequestsError extends DomainError {
  readonly status = 429;
  protected readonly defaultCode = 'rate_limited';
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
    code: 'rate_limited' | 'stream_limit' = 'rate_limited',
  ) {
    super(detail, code);
  }
}
