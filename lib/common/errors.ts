/**
 * The one error hierarchy of the service. `lib/` throws these; the HTTP error middleware maps
 * each to its status code and a `{ "detail": ... }` body in one place. Anything else becomes a
 * 500 whose body never carries internals.
 */
export abstract class DomainError extends Error {
  abstract readonly status: number;
  constructor(readonly detail: string) {
    super(detail);
    this.name = new.target.name;
  }
}

export class InvalidRequestError extends DomainError {
  readonly status = 400;
}

/** One wording for every authentication failure: a 401 never says whether a key ever existed. */
export class UnauthorizedError extends DomainError {
  readonly status = 401;
  constructor() {
    super('Missing or invalid API key. Send a valid key in the X-API-Key header.');
  }
}

export class ForbiddenError extends DomainError {
  readonly status = 403;
}

export class NotFoundError extends DomainError {
  readonly status = 404;
}

export class MethodNotAllowedError extends DomainError {
  readonly status = 405;
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
  constructor(
    detail: string,
    readonly existing?: unknown,
    readonly body: Readonly<Record<string, unknown>> = {},
  ) {
    super(detail);
  }
}

/** What the request needs existed once and is no longer kept (a snapshot version past its retention). */
export class GoneError extends DomainError {
  readonly status = 410;
}

/** The request is well-formed but cannot be honoured as sent (an Idempotency-Key reused with another body). */
export class UnprocessableError extends DomainError {
  readonly status = 422;
}

export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
}

export class QuotaExceededError extends DomainError {
  readonly status = 429;
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
  constructor(
    detail: string,
    readonly retryAfterSeconds: number,
  ) {
    super(detail);
  }
}
