import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PLAN_IDS, PLANS } from '../../lib/tenancy/plans.ts';
import {
  decide,
  MICROS_PER_SECOND,
  mostInAnyWindow,
  type RateLimit,
  rateLimit,
  rateLimitOf,
  retryAfterSeconds,
} from '../../lib/tenancy/request-rate.ts';

/**
 * The request rate's arithmetic (lib/tenancy/request-rate.ts), driven directly with random arrival
 * times: whatever the arrivals, no window of the stated length, at any offset, holds more admitted
 * requests than the plan states; and the limit is not met by refusing what it allows.
 */

/** Runs arrivals (µs, ascending) through the limiter from an empty bucket; the admitted times. */
function admitted(arrivals: readonly number[], limit: RateLimit): number[] {
  let tat: number | undefined;
  const out: number[] = [];
  for (const at of arrivals) {
    const decision = decide(tat, at, limit);
    if (decision.admitted) {
      tat = decision.tat;
      out.push(at);
    }
  }
  return out;
}

/** The most admitted requests in any closed window [t, t + length] (it is enough to start one at each). */
function busiestWindow(times: readonly number[], lengthMicros: number): number {
  let most = 0;
  let end = 0;
  for (let start = 0; start < times.length; start++) {
    while (end < times.length && times[end] <= times[start] + lengthMicros) end++;
    most = Math.max(most, end - start);
  }
  return most;
}

/** Arrival times: gaps of 0 (a burst) up to `maxGapMs`, from a random epoch, in µs. */
const arrivalsOf = (maxGapMs: number, maxLength: number) =>
  fc
    .tuple(
      fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
      fc.array(
        fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: maxGapMs })),
        { minLength: 1, maxLength },
      ),
    )
    .map(([startMs, gapsMs]) => {
      let at = startMs * 1000;
      return gapsMs.map((gap) => {
        at += gap * 1000 + (gap > 0 ? (gap * 7919) % 1000 : 0);
        return at;
      });
    });

/** A small stated limit (so random arrivals fill it): requests per window, window seconds, burst. */
const smallLimit = fc
  .tuple(fc.integer({ min: 2, max: 40 }), fc.integer({ min: 1, max: 10 }))
  .chain(([requests, windowSeconds]) =>
    fc.integer({ min: 1, max: requests - 1 }).map((burst) => rateLimit(requests, windowSeconds, burst)),
  );

describe('the request rate of each plan', () => {
  it.each(PLAN_IDS)('%s: requests_per_second × 10 in any 10 s, one second’s worth at once', (id) => {
    const limit = rateLimitOf(PLANS[id]);

    expect(limit).toMatchObject({
      requests: PLANS[id].requests_per_second * 10,
      windowSeconds: 10,
      burst: PLANS[id].requests_per_second,
    });
    expect(mostInAnyWindow(limit, 10)).toBeLessThanOrEqual(limit.requests);
    // No burst is twice the stated rate: any one second holds less than two seconds' worth.
    expect(mostInAnyWindow(limit, 1)).toBeLessThan(2 * PLANS[id].requests_per_second);
  });
});

describe('the limiter, over random arrival times', () => {
  it('never admits more than the stated requests in any window of the stated length, at any offset', () => {
    fc.assert(
      fc.property(smallLimit, arrivalsOf(3_000, 300), (limit, arrivals) => {
        const times = admitted(arrivals, limit);

        expect(busiestWindow(times, limit.windowSeconds * MICROS_PER_SECOND)).toBeLessThanOrEqual(
          limit.requests,
        );
      }),
      { numRuns: 2_000 },
    );
  });

  it('keeps each plan’s stated limit under arrivals far faster than it', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PLAN_IDS), arrivalsOf(40, 3_000), (id, arrivals) => {
        const limit = rateLimitOf(PLANS[id]);
        const times = admitted(arrivals, limit);

        expect(busiestWindow(times, 10 * MICROS_PER_SECOND)).toBeLessThanOrEqual(limit.requests);
        expect(busiestWindow(times, MICROS_PER_SECOND)).toBeLessThan(2 * PLANS[id].requests_per_second);
      }),
      { numRuns: 200 },
    );
  });

  it('admits a whole burst after a quiet window, and the steady rate after it', () => {
    fc.assert(
      fc.property(
        smallLimit,
        fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }),
        (limit, startSeconds) => {
          const start = startSeconds * MICROS_PER_SECOND;
          const burst = Array.from({ length: limit.burst + 5 }, () => start);
          const steady = Array.from(
            { length: 20 },
            (_, i) => start + limit.windowSeconds * MICROS_PER_SECOND + (i + 1) * limit.intervalMicros,
          );

          const times = admitted([...burst, ...steady], limit);

          expect(times.filter((t) => t === start)).toHaveLength(limit.burst);
          // After the burst the bucket refills at the steady rate: each request one interval apart is admitted.
          for (const t of steady) expect(times).toContain(t);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('tells a refused request when it would be admitted, to the microsecond', () => {
    fc.assert(
      fc.property(
        smallLimit,
        fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }),
        (limit, startSeconds) => {
          const now = startSeconds * MICROS_PER_SECOND;
          let tat: number | undefined;
          for (let i = 0; i < limit.burst; i++) {
            const decision = decide(tat, now, limit);
            if (!decision.admitted) throw new Error('the burst was refused');
            tat = decision.tat;
          }

          const refused = decide(tat, now, limit);
          if (refused.admitted) throw new Error('past the burst was admitted');

          expect(decide(tat, now + refused.retryAfterMicros - 1, limit).admitted).toBe(false);
          expect(decide(tat, now + refused.retryAfterMicros, limit).admitted).toBe(true);
          expect(retryAfterSeconds(refused.retryAfterMicros)).toBeGreaterThanOrEqual(1);
        },
      ),
      { numRuns: 500 },
    );
  });
});
