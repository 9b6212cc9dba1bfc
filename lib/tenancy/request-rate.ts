import type { Plan } from './plans.ts';

/**
 * A tenant's request rate, as arithmetic only (no store, no clock): a token bucket written as the
 * generic cell rate algorithm (GCRA, ITU-T I.371), so its whole state is one number, the
 * theoretical arrival time `tat` (TAT) of the next request, and each decision is one comparison.
 * lib/tenancy/limits.ts applies it with one conditional write on the tenant's rate item
 * (lib/tenancy/fair-use-table.ts); the property test drives this module directly.
 *
 * The stated limit is the plan's `requests_per_second` times {@link RATE_WINDOW_SECONDS} in ANY
 * window of that length (not only in windows that start on a multiple of it, as the fixed window
 * before it counted, which let twice that through across a window's edge). A bucket that holds
 * `burst` requests and refills at `rate` a second admits at most `burst + rate × w` in any window
 * of `w` seconds, so `rate` is set to `(stated − burst) / window`: the stated number in any window
 * of the stated length, of which `burst` may come at once.
 *
 * Times are whole microseconds (epoch), so the arithmetic is exact in a double and in a DynamoDB
 * number; the emission interval is rounded up, which only ever admits less.
 */

/** The window the stated limit is counted over, in seconds. */
export const RATE_WINDOW_SECONDS = 10;

export const MICROS_PER_SECOND = 1_000_000;

/** A plan's limit as stated to the tenant, and the bucket that keeps it. */
export interface RateLimit {
  /** Requests allowed in any window of `windowSeconds`. */
  requests: number;
  windowSeconds: number;
  /** Requests admitted at once after a quiet spell: one second's worth of the plan's rate. */
  burst: number;
  /** Microseconds between two requests at the steady rate (the bucket's refill): T. */
  intervalMicros: number;
  /** How far ahead of now the TAT may be and a request still be admitted: τ = (burst − 1) × T. */
  toleranceMicros: number;
}

/** The rate limit of a plan: `requests_per_second` × 10 in any 10 seconds, one second's worth at once. */
export function rateLimitOf(plan: Pick<Plan, 'requests_per_second'>): RateLimit {
  return rateLimit(
    plan.requests_per_second * RATE_WINDOW_SECONDS,
    RATE_WINDOW_SECONDS,
    plan.requests_per_second,
  );
}

/** The bucket that admits at most `requests` in any `windowSeconds`, `burst` of them at once. */
export function rateLimit(requests: number, windowSeconds: number, burst: number): RateLimit {
  if (!(burst >= 1 && burst < requests))
    throw new Error(
      `A burst of ${burst} must be at least 1 and below the ${requests} requests of the window`,
    );
  const intervalMicros = Math.ceil((windowSeconds * MICROS_PER_SECOND) / (requests - burst));
  return { requests, windowSeconds, burst, intervalMicros, toleranceMicros: (burst - 1) * intervalMicros };
}

/** Steady requests per second the bucket admits (its refill). */
export function steadyRate(limit: RateLimit): number {
  return MICROS_PER_SECOND / limit.intervalMicros;
}

/** The most requests the bucket admits in any window of `seconds`: the burst plus the refill. */
export function mostInAnyWindow(limit: RateLimit, seconds: number): number {
  return 1 + Math.floor((seconds * MICROS_PER_SECOND + limit.toleranceMicros) / limit.intervalMicros);
}

/**
 * What a request arriving at `now` is answered, given the TAT stored (undefined: never counted):
 * - `idle`: the TAT is not ahead of now (the bucket is full): admitted, and the TAT becomes
 *   now + T. Stored with the condition `tat <= now` (or no TAT).
 * - `busy`: the TAT is ahead of now by at most τ: admitted, and the TAT moves on by T. Stored with
 *   the condition `now < tat <= now + τ`, as `tat + T`.
 * - `refused`: the TAT is more than τ ahead: nothing changes; the request would be admitted
 *   `retryAfterMicros` from now.
 * The conditions of the two admissions cannot both hold, and the TAT only moves forward, so a
 * write refused because another request moved the TAT meanwhile is decided again on the TAT it
 * found, and at most one more write is ever needed.
 */
export type RateDecision =
  | { admitted: true; kind: 'idle' | 'busy'; tat: number }
  | { admitted: false; retryAfterMicros: number };

export function decide(tat: number | undefined, now: number, limit: RateLimit): RateDecision {
  if (tat === undefined || tat <= now)
    return { admitted: true, kind: 'idle', tat: now + limit.intervalMicros };
  if (tat <= now + limit.toleranceMicros)
    return { admitted: true, kind: 'busy', tat: tat + limit.intervalMicros };
  return { admitted: false, retryAfterMicros: tat - limit.toleranceMicros - now };
}

/** The whole seconds of a Retry-After for a refusal: at least 1, rounded up. */
export function retryAfterSeconds(retryAfterMicros: number): number {
  return Math.max(1, Math.ceil(retryAfterMicros / MICROS_PER_SECOND));
}
